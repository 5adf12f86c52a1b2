/*
 * The inputs of one run as the binding holds them: a split's x, or a concat's sequence of
 * array-likes (NumPy arrays, buffers, DLPack tensors, each taken as input.c takes one), with the
 * library's tensors over them and the first input's kind, which the outputs are handed back as.
 * Functions returning int return 0, or -1 with an exception set.
 */
#ifndef PCL_INPUTS_H
#define PCL_INPUTS_H

#include "input.h"

/* Inputs held inline; more are allocated. */
#define PCL_INLINE_INPUTS 8

typedef struct pcl_inputs {
  Py_ssize_t n;
  PyArrayObject **arrays; /* owned: the inputs' memory (packed types: their bytes, 1-D) */
  cleave_tensor *tensors; /* the library's view of arrays[i]: type, logical shape, data */
  const void **data;      /* tensors[i].data, as plan runs take them */
  int64_t *packed_shapes; /* a concat's logical shapes given by shapes= (packed types), owned */
  pcl_input first;        /* the first input as input.c holds it: a split's x, and how outputs go
                           * back to the caller */
  int sequence;           /* given as a sequence (a concat's): messages name inputs[i] */
  int is_object;          /* object arrays of str (the library's variable-length strings) */
  int packed;             /* a packed sub-byte dtype= */
  PyArrayObject *inline_arrays[PCL_INLINE_INPUTS];
  cleave_tensor inline_tensors[PCL_INLINE_INPUTS];
  const void *inline_data[PCL_INLINE_INPUTS];
} pcl_inputs;

/* Fills `in` with a split's one input x, with the optional dtype= and shape= (as
 * pcl_input_acquire takes them). Release with pcl_inputs_release whatever the outcome. */
int pcl_inputs_acquire_one(PyObject *x, PyObject *dtype, PyObject *shape, pcl_inputs *in);

/*
 * Fills `in` from the sequence `arrays` (a list, tuple or other sequence of array-likes; a single
 * array is refused) with the optional dtype= (for every input) and shapes= (one logical shape per
 * input, for packed dtypes). TypeError names the input of an unaccepted kind; the operator's rules
 * are left to the library. Release with pcl_inputs_release whatever the outcome.
 */
int pcl_inputs_acquire(PyObject *arrays, PyObject *dtype, PyObject *shapes, pcl_inputs *in);

/*
 * The binding's rule after the library's (which compares the library's element types): one NumPy
 * dtype for all inputs, byte order and units included, since nothing is converted and the output
 * takes the first input's dtype. cleave.Error (unsupported type) naming both inputs otherwise.
 */
int pcl_inputs_check_dtypes(const pcl_inputs *in);

/* Packed inputs: each buffer must hold exactly the packed stream of its logical shape
 * (cleave.Error, invalid shape, naming the input and both byte counts). */
int pcl_inputs_check_packed_sizes(const pcl_inputs *in, int64_t element_bits);

/* Replaces every input that is not C-contiguous by a C-contiguous copy (`first` stays the
 * caller's) and points the tensors at the arrays' data. */
int pcl_inputs_contiguous(pcl_inputs *in);

/* The byte size of all inputs together. */
int64_t pcl_inputs_bytes(const pcl_inputs *in);

/* Drops what `in` holds. */
void pcl_inputs_release(pcl_inputs *in);

#endif
