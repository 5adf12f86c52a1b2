/* The extension module's shared state and the functions each file contributes to it. */
#ifndef PCL_MODULE_H
#define PCL_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* NumPy's C API: module.c imports it; the other files see it through this unique symbol. */
#define PY_ARRAY_UNIQUE_SYMBOL pcl_numpy_api
#ifndef PCL_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

/* NumPy 2 reads a dtype's item size through this accessor; NumPy 1 has only the field. */
#ifndef PyDataType_ELSIZE
#define PyDataType_ELSIZE(descr) ((descr)->elsize)
#endif

/* Objects the module creates once. The module is single-phase and has one instance per process,
 * as NumPy's own extensions do. */
typedef struct pcl_state {
  PyObject *error_type; /* cleave.Error */
  PyObject *unknown;    /* cleave.UNKNOWN: a value known only to exist (partial inference) */
  PyObject *str_dlpack; /* "__dlpack__" */
} pcl_state;

extern pcl_state pcl_module_state;

/* The functions of each file (for the module's method table). */
PyObject *pcl_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *pcl_variadic_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames);
PyObject *pcl_split_to_sequence(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames);
PyObject *pcl_onnx_split(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames);
PyObject *pcl_infer_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

extern const char pcl_split_doc[];
extern const char pcl_variadic_split_doc[];
extern const char pcl_split_to_sequence_doc[];
extern const char pcl_onnx_split_doc[];
extern const char pcl_infer_doc[];

/* arena.c */
PyObject *pcl_set_arena_limit_fn(PyObject *self, PyObject *arg);
PyObject *pcl_arena_limit_fn(PyObject *self, PyObject *unused);
PyObject *pcl_trim_arena_fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *pcl_arena_stats_fn(PyObject *self, PyObject *unused);
extern const char pcl_set_arena_limit_doc[];
extern const char pcl_arena_limit_doc[];
extern const char pcl_trim_arena_doc[];
extern const char pcl_arena_stats_doc[];

/* Types, readied by module.c. */
extern PyTypeObject pcl_PlanType;
extern PyTypeObject pcl_DLPackExporterType;

#endif
