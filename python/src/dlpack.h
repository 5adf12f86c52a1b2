/* DLPack in both directions (dlpack.c): tensors of any producer with __dlpack__ in CPU memory
 * come in as NumPy arrays over the producer's memory, and outputs go back as the producer's kind,
 * neither direction copying. */
#ifndef PCL_DLPACK_H
#define PCL_DLPACK_H

#include "input.h"

/* Wraps obj's tensor (obj has __dlpack__) as in->array (a new reference), a NumPy array of the
 * storage dtype (bfloat16 as uint16) that keeps the producer's memory alive; sets in->type,
 * dl_code and dl_bits. Returns 0, or -1 with an exception set (the producer's refusal, TypeError
 * for other devices and unsupported dtypes). */
int pcl_dlpack_import(PyObject *obj, pcl_input *in);

/* Hands a NumPy array (storage dtype) back through in->from_dlpack with `in`'s DLPack dtype,
 * without a copy (as the array itself when from_dlpack is NULL). Steals the reference to
 * `array`; returns a new reference, or NULL with an exception set. */
PyObject *pcl_dlpack_export(const pcl_input *in, PyObject *array);

/* The type of the objects pcl_dlpack_export offers through __dlpack__ (readied by the module). */
extern PyTypeObject pcl_DLPackExporterType;

#endif
