/* cleave.concat and cleave.concat_from_sequence (METH_FASTCALL | METH_KEYWORDS) with their
 * docstrings, for the module's method table. */
#ifndef PCL_CONCAT_FUNCTIONS_H
#define PCL_CONCAT_FUNCTIONS_H

#include "state.h"

PyObject *pcl_concat(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *pcl_concat_from_sequence(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames);

extern const char pcl_concat_doc[];
extern const char pcl_concat_from_sequence_doc[];

#endif
