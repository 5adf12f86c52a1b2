/* Argument parsing for the module's functions (see args.h). */
#include "args.h"

#include <string.h>

static int intern_names(pcl_params *p) {
  for (int i = 0; i < p->count; i++) {
    p->interned[i] = PyUnicode_InternFromString(p->names[i]);
    if (p->interned[i] == NULL) {
      return -1;
    }
  }
  return 0;
}

static int keyword_index(pcl_params *p, PyObject *key) {
  for (int i = 0; i < p->count; i++) {
    if (key == p->interned[i]) {
      return i;
    }
  }
  for (int i = 0; i < p->count; i++) {
    if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, p->names[i]) == 0) {
      return i;
    }
  }
  return -1;
}

int pcl_parse_args(pcl_params *p, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                   PyObject **slots) {
  if (p->interned[0] == NULL && intern_names(p) < 0) {
    return -1;
  }
  if (nargs > p->max_positional) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)",
                 p->function, p->max_positional, nargs);
    return -1;
  }
  memset(slots, 0, (size_t)p->count * sizeof *slots);
  for (Py_ssize_t i = 0; i < nargs; i++) {
    slots[i] = args[i];
  }
  Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; k++) {
    PyObject *key = PyTuple_GET_ITEM(kwnames, k);
    int i = keyword_index(p, key);
    if (i < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", p->function,
                   key);
      return -1;
    }
    if (slots[i] != NULL) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", p->function,
                   p->names[i]);
      return -1;
    }
    slots[i] = args[nargs + k];
  }
  for (int i = 0; i < p->required; i++) {
    if (slots[i] == NULL) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", p->function,
                   p->names[i], i + 1);
      return -1;
    }
  }
  return 0;
}

int pcl_int64(PyObject *obj, const char *name, int64_t *value) {
  if (PyLong_CheckExact(obj)) {
    long long v = PyLong_AsLongLong(obj);
    if (v == -1 && PyErr_Occurred()) {
      return -1;
    }
    *value = (int64_t)v;
    return 0;
  }
  if (PyBool_Check(obj) || PyFloat_Check(obj) || !PyIndex_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(obj)->tp_name);
    return -1;
  }
  PyObject *index = PyNumber_Index(obj);
  if (index == NULL) {
    return -1;
  }
  long long v = PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (v == -1 && PyErr_Occurred()) {
    return -1;
  }
  *value = (int64_t)v;
  return 0;
}

int pcl_flag(PyObject *obj, const char *name, int64_t *value) {
  if (PyBool_Check(obj) || PyArray_IsScalar(obj, Bool)) {
    int truth = PyObject_IsTrue(obj);
    if (truth < 0) {
      return -1;
    }
    *value = truth;
    return 0;
  }
  if (pcl_int64(obj, name, value) < 0) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s must be a bool or an int, not %.100s", name,
                   Py_TYPE(obj)->tp_name);
    }
    return -1;
  }
  return 0;
}

int pcl_shape(PyObject *obj, Py_ssize_t index, int max_rank, int64_t *dims, size_t *rank) {
  PyObject *seq = PySequence_Fast(obj, index < 0 ? "shape must be a sequence of ints"
                                                 : "each shape must be a sequence of ints");
  if (seq == NULL) {
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > max_rank) {
    Py_DECREF(seq);
    if (index < 0) {
      PyErr_Format(PyExc_ValueError, "shape has %zd dimensions; at most %d are supported", n,
                   max_rank);
    } else {
      PyErr_Format(PyExc_ValueError, "shapes[%zd] has %zd dimensions; at most %d are supported",
                   index, n, max_rank);
    }
    return -1;
  }
  for (Py_ssize_t k = 0; k < n; k++) {
    if (pcl_int64(PySequence_Fast_GET_ITEM(seq, k), index < 0 ? "shape" : "shapes", &dims[k]) < 0) {
      Py_DECREF(seq);
      return -1;
    }
  }
  Py_DECREF(seq);
  *rank = (size_t)n;
  return 0;
}

int pcl_copy_mode(PyObject *obj, int *mode) {
  if (obj == NULL || obj == Py_None) {
    *mode = PCL_COPY_IF_NEEDED;
  } else if (obj == Py_True) {
    *mode = PCL_COPY_ALWAYS;
  } else if (obj == Py_False) {
    *mode = PCL_COPY_NEVER;
  } else {
    PyErr_Format(PyExc_TypeError, "copy must be None, True or False, not %.100s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  return 0;
}

int pcl_threads(PyObject *obj, int *threads) {
  if (obj == NULL || obj == Py_None) {
    *threads = 1;
    return 0;
  }
  int64_t v;
  if (pcl_int64(obj, "threads", &v) < 0) {
    return -1;
  }
  if (v < 1 || v > 1024) {
    PyErr_Format(PyExc_ValueError, "threads must be between 1 and 1024, not %lld", (long long)v);
    return -1;
  }
  *threads = (int)v;
  return 0;
}
