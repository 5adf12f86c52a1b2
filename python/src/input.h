/* Inputs as the binding holds them: a NumPy array over the caller's memory with the library's
 * element type, whatever the caller passed (NumPy array, buffer, DLPack tensor). */
#ifndef PCL_INPUT_H
#define PCL_INPUT_H

#include "state.h"

typedef struct pcl_input {
  PyArrayObject *array; /* owned: the caller's memory (for packed types: its bytes, 1-D) */
  cleave_type type;
  int is_object; /* an object array of str (the library's variable-length strings) */
  int packed;    /* a packed sub-byte type given by dtype= */
  size_t rank;   /* the logical shape (the array's, or shape= for packed types) */
  int64_t shape[PCL_MAX_RANK];
  /* How outputs go back to the caller's kind (owned; both NULL for NumPy arrays and buffers):
   * the producer's from_dlpack (torch.from_dlpack) for tensors that came through DLPack, with
   * the DLPack dtype they are exported with, or its from_numpy for those that came through the
   * array protocol. */
  PyObject *from_dlpack;
  PyObject *from_numpy;
  int dl_code; /* -1: not through DLPack */
  int dl_bits;
} pcl_input;

/* Fills `in` from `obj` with the optional dtype= and shape= (NULL when not given). Returns 0, or
 * -1 with an exception set and nothing held: TypeError for objects that are none of the accepted
 * kinds and for dtypes the binding cannot map. Release a filled input with pcl_input_release. */
int pcl_input_acquire(PyObject *obj, PyObject *dtype, PyObject *shape, pcl_input *in);

/* Drops the references `in` holds. */
void pcl_input_release(pcl_input *in);

#endif
