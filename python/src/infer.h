/* cleave._infer: static and partial shape inference (cleave.infer in __init__.py wraps it). */
#ifndef PCL_INFER_H
#define PCL_INFER_H

#include "state.h"

/* _infer(operator, shape, dtype, params) -> ((count, count_varies, shapes, axis, axis_removed),
 * texts) (METH_FASTCALL | METH_KEYWORDS), with its docstring. */
PyObject *pcl_infer_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
extern const char pcl_infer_doc[];

#endif
