/*
 * cleave's element types that NumPy lacks, as Python sees them: the cleave.ElementType constants
 * (cleave.bf16, cleave.u4, cleave.uint4, ...), the str names a dtype= may use for them, and the
 * NumPy dtype their elements are held in. Functions returning int return -1 with an exception
 * set on failure.
 */
#ifndef PCL_ELEMENT_TYPES_H
#define PCL_ELEMENT_TYPES_H

#include "state.h"

/* The type of the constants (readied and added by pcl_add_element_types). */
extern PyTypeObject pcl_ElementTypeType;

/* Readies the type and adds it and every constant to the module `m`. Returns 0 or -1. */
int pcl_add_element_types(PyObject *m);

/* Returns 1 and sets *dtype when obj is one of the constants; 0 otherwise. */
int pcl_element_type_of(PyObject *obj, cleave_dtype *dtype);

/* The constant for `dtype` (a borrowed reference), or NULL when there is none (a type NumPy has,
 * or one cleave does not split). */
PyObject *pcl_element_type_object(cleave_dtype dtype);

/*
 * Looks up a str that NumPy does not read as a dtype: returns 1 and sets *dtype for the name of a
 * constant ('bf16', 'uint4', 'nf4', 'string', ...) or an unambiguous alias ('bfloat16',
 * 'float8_e4m3fn', ... as PyTorch spells them; 'boolean'); 0 for a name cleave does not know;
 * -1 with ValueError for one of cleave's names that NumPy's spelling would read otherwise ('i16',
 * 'f32': NumPy counts those digits in bytes), naming it and what to write instead.
 */
int pcl_element_type_named(const char *name, cleave_dtype *dtype);

/* The NumPy dtype elements of `type` are held in (a new reference): NumPy's own type where it has
 * one, uint8 for packed and 8-bit float types, uint16 for bf16, object for string. *packed is set
 * for packed sub-byte types. Returns 0, or -1 (the library's error for types it does not split). */
int pcl_storage_descr(cleave_type type, PyArray_Descr **descr, int *packed);

#endif
