/* The module's operator functions (METH_FASTCALL | METH_KEYWORDS): cleave.split, variadic_split,
 * split_to_sequence, onnx_split, concat and concat_from_sequence, one per row of the operator
 * table, with their docstrings, for the module's method table. */
#ifndef PCL_FUNCTIONS_H
#define PCL_FUNCTIONS_H

#include "state.h"

PyObject *pcl_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *pcl_variadic_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames);
PyObject *pcl_split_to_sequence(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames);
PyObject *pcl_onnx_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames);
PyObject *pcl_concat(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *pcl_concat_from_sequence(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames);

extern const char pcl_split_doc[];
extern const char pcl_variadic_split_doc[];
extern const char pcl_split_to_sequence_doc[];
extern const char pcl_onnx_split_doc[];
extern const char pcl_concat_doc[];
extern const char pcl_concat_from_sequence_doc[];

#endif
