/* Inputs as the binding holds them: a NumPy array over the caller's memory with the library's
 * element type, whatever the caller passed (NumPy array, buffer, DLPack tensor). */
#ifndef PCL_TENSOR_H
#define PCL_TENSOR_H

#include "module.h"

#include "lib.h"

typedef struct pcl_input {
  PyArrayObject *array; /* owned: the caller's memory (for packed types: its bytes, 1-D) */
  pcl_type type;
  int is_object; /* an object array of str (the library's variable-length strings) */
  int packed;    /* a packed sub-byte type given by dtype= */
  size_t rank;   /* the logical shape (the array's, or shape= for packed types) */
  int64_t shape[PCL_MAX_RANK];
  PyObject *from_dlpack; /* owned: how to hand outputs back (torch.from_dlpack), or NULL */
  int dl_code;           /* the DLPack dtype outputs are exported with */
  int dl_bits;
} pcl_input;

/* Fills `in` from `obj` with the optional dtype= and shape= (NULL when not given). TypeError for
 * objects that are none of the accepted kinds and for dtypes the binding cannot map. */
int pcl_input_acquire(PyObject *obj, PyObject *dtype, PyObject *shape, pcl_input *in);
void pcl_input_release(pcl_input *in);

/* Maps a NumPy dtype to the library's type (storage mapping for dtypes the library lacks). */
int pcl_type_from_descr(PyArray_Descr *descr, pcl_type *type, int *is_object);

/* Parses a dtype= given to infer/Plan: a cleave type name (str) or anything np.dtype accepts. On
 * success *descr is a new reference to the NumPy storage dtype (uint8 for packed types). */
int pcl_type_from_object(PyObject *obj, pcl_type *type, PyArray_Descr **descr, int *packed);

/* --- DLPack (dlpack.c) --- */

/* Wraps a __dlpack__ producer's tensor as a NumPy array (storage dtype; bfloat16 as uint16),
 * keeping the producer's memory alive. Sets dl_code/dl_bits and the type. */
int pcl_dlpack_import(PyObject *obj, pcl_input *in);

/* Hands a NumPy array (storage dtype) back as `in`'s kind through DLPack, without a copy. Steals
 * the reference to `array`. */
PyObject *pcl_dlpack_export(const pcl_input *in, PyObject *array);

#endif
