/* Element types: NumPy dtypes and the dtype= argument to the library's cleave_type. Functions
 * return 0, or -1 with an exception set. */
#ifndef PCL_DTYPES_H
#define PCL_DTYPES_H

#include "state.h"

/* Maps a NumPy dtype to the library's type; dtypes the library lacks (long double, void,
 * structured, datetime) map to a type of the same size that moves their bytes. Sets *is_object
 * for object arrays (the library's variable-length strings). TypeError for dtypes holding
 * references other than object. */
int pcl_type_from_descr(PyArray_Descr *descr, cleave_type *type, int *is_object);

/*
 * Parses a dtype= value: one of cleave's ElementType constants (element_types.h), anything
 * np.dtype reads (meaning NumPy's type: 'u4' is uint32), or a str NumPy does not read that names
 * one of cleave's types ('bf16', 'uint4'). On success *descr is a new reference to the NumPy
 * dtype the elements are held in (uint8 for packed types) and *packed is set for packed sub-byte
 * types. TypeError for an unknown name or an unsized dtype ('S'), ValueError for an ambiguous
 * name ('i16').
 */
int pcl_type_from_object(PyObject *obj, cleave_type *type, PyArray_Descr **descr, int *packed);

#endif
