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

#endif
