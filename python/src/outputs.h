/* Producing a split's outputs: views of the input, fresh arrays from one library-allocated block,
 * or copies into the caller's out= arrays; then handing them back as the caller's kind. */
#ifndef PCL_OUTPUTS_H
#define PCL_OUTPUTS_H

#include "plan_cache.h"
#include "tensor.h"

typedef struct pcl_request {
  int copy;      /* PCL_COPY_* (args.h) */
  PyObject *out; /* borrowed; NULL or None when not given */
  int threads;
  int as_list; /* SplitToSequence returns a list */
} pcl_request;

/* Runs `op` (or the plan `entry`, when not NULL: cleave.Plan) on `in` as `req` asks. Returns a
 * new tuple (or list) of outputs, or NULL with an exception set and nothing written. */
PyObject *pcl_execute(const pcl_op *op, pcl_entry *entry, pcl_input *in, const pcl_request *req);

/* The output shapes of a plan as a tuple of tuples. */
PyObject *pcl_output_shapes(const pcl_entry *entry, int packed_bytes);

/* --- The parts of pcl_execute, by file --- */

/* outputs.c: what they share. */
/* Inputs of at least this many bytes are copied with the GIL released (and a thread pool when
 * threads= asks for one); smaller copies take less time than releasing and retaking the GIL. */
#define PCL_RELEASE_GIL_BYTES ((int64_t)1 << 20)
/* Output shape for `length` on the axis into dims; returns the rank. */
int pcl_output_dims(const pcl_input *in, const pcl_info *info, int64_t length, npy_intp *dims);
PyObject *pcl_new_sequence(const pcl_request *req, Py_ssize_t n);
void pcl_sequence_set(const pcl_request *req, PyObject *seq, Py_ssize_t i, PyObject *item);
/* Hands the outputs in seq back as the caller's kind (DLPack); steals seq. */
PyObject *pcl_finish(const pcl_input *in, const pcl_request *req, PyObject *seq);
/* The input as a C-contiguous array (new reference; the input itself when it is one). */
PyArrayObject *pcl_contiguous(pcl_input *in);
int pcl_release_gil(const pcl_input *in, int threads);

/* views.c */
PyObject *pcl_make_views(const pcl_op *op, const pcl_entry *entry, pcl_input *in,
                         const pcl_request *req);
PyObject *pcl_copy_views(const pcl_op *op, const pcl_entry *entry, pcl_input *in,
                         const pcl_request *req);
int pcl_check_strings(PyArrayObject *a);

/* copies.c */
int pcl_check_packed_size(const pcl_input *in, const pcl_entry *e);
PyObject *pcl_copy_alloc(pcl_entry *e, pcl_input *in, const pcl_request *req);

/* out_check.c */
PyObject *pcl_copy_into(pcl_entry *e, pcl_input *in, const pcl_request *req);
PyObject *pcl_copy_objects_into(const pcl_op *op, pcl_entry *e, pcl_input *in,
                                const pcl_request *req);

#endif
