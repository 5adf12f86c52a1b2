/*
 * The inputs of a concat as the binding holds them: one NumPy array per object of the caller's
 * sequence (NumPy arrays, buffers, DLPack tensors, as the splits take x), with the library's
 * tensors over them, and the first input's kind, which the output is handed back as.
 * Functions returning int return 0, or -1 with an exception set.
 */
#ifndef PCL_CONCAT_INPUTS_H
#define PCL_CONCAT_INPUTS_H

#include "input.h"

/* Inputs held inline; more are allocated. */
#define PCL_INLINE_INPUTS 8

typedef struct pcl_concat_inputs {
  Py_ssize_t n;
  PyArrayObject **arrays; /* owned: the inputs' memory (packed types: their bytes, 1-D) */
  cleave_tensor *tensors; /* the library's view of arrays[i]: type, logical shape, data */
  const void **data;      /* tensors[i].data, as plan runs take them */
  int64_t *packed_shapes; /* the logical shapes given by shapes= (packed types), owned */
  pcl_input first;        /* the first input as the splits hold x: how outputs go back */
  int is_object;          /* object arrays of str (the library's variable-length strings) */
  int packed;             /* a packed sub-byte dtype= */
  PyArrayObject *inline_arrays[PCL_INLINE_INPUTS];
  cleave_tensor inline_tensors[PCL_INLINE_INPUTS];
  const void *inline_data[PCL_INLINE_INPUTS];
} pcl_concat_inputs;

/*
 * Fills `in` from the sequence `arrays` (a list, tuple or other sequence of array-likes; a single
 * array is refused) with the optional dtype= (for every input) and shapes= (one logical shape per
 * input, for packed dtypes). TypeError names the input of an unaccepted kind; the operator's rules
 * are left to the library. Release with pcl_concat_inputs_release whatever the outcome.
 */
int pcl_concat_inputs_acquire(PyObject *arrays, PyObject *dtype, PyObject *shapes,
                              pcl_concat_inputs *in);

/*
 * The binding's rule after the library's (which compares the library's element types): one NumPy
 * dtype for all inputs, byte order and units included, since nothing is converted and the output
 * takes the first input's dtype. cleave.Error (unsupported type) naming both inputs otherwise.
 */
int pcl_concat_check_dtypes(const pcl_concat_inputs *in);

/* Packed inputs: each buffer must hold exactly the packed stream of its logical shape
 * (cleave.Error, invalid shape, naming the input and both byte counts). */
int pcl_concat_check_packed_sizes(const pcl_concat_inputs *in, int64_t element_bits);

/* Replaces every input that is not C-contiguous by a C-contiguous copy and points the tensors at
 * the arrays' data. */
int pcl_concat_inputs_contiguous(pcl_concat_inputs *in);

/* The byte size of all inputs together (the output's, for byte-sized types). */
int64_t pcl_concat_inputs_bytes(const pcl_concat_inputs *in);

/* Drops what `in` holds. */
void pcl_concat_inputs_release(pcl_concat_inputs *in);

#endif
