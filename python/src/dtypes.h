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

/* Parses a dtype= value: a cleave type name (str) or anything np.dtype accepts. On success
 * *descr is a new reference to the NumPy storage dtype (uint8 for packed types) and *packed is
 * set for packed sub-byte types. */
int pcl_type_from_object(PyObject *obj, cleave_type *type, PyArray_Descr **descr, int *packed);

#endif
