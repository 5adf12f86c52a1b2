/* Operators from Python parameters (see op_params.h). */
#include "op_params.h"

#include "args.h"

#include <string.h>

const char *const pcl_op_params[5][PCL_MAX_OP_PARAMS] = {
    {NULL},
    {"num_splits", "axis"},
    {"split_lengths", "axis"},
    {"split", "axis", "keepdims", "opset"},
    {"split", "axis", "num_outputs", "opset"},
};
const int pcl_op_param_count[5] = {0, 2, 2, 4, 4};

static const char *const kind_names[5] = {NULL, "split", "variadic_split", "split_to_sequence",
                                          "onnx_split"};

const char *pcl_kind_name(cleave_op_kind kind) {
  return kind >= CLEAVE_OP_SPLIT && kind <= CLEAVE_OP_ONNX_SPLIT ? kind_names[kind] : "?";
}

int pcl_kind_from_name(PyObject *name, cleave_op_kind *kind) {
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "operator must be a str, not %.100s", Py_TYPE(name)->tp_name);
    return -1;
  }
  for (int k = CLEAVE_OP_SPLIT; k <= CLEAVE_OP_ONNX_SPLIT; k++) {
    if (PyUnicode_CompareWithASCIIString(name, kind_names[k]) == 0) {
      *kind = (cleave_op_kind)k;
      return 0;
    }
  }
  PyErr_Format(PyExc_ValueError,
               "unknown operator %R: expected 'split', 'variadic_split', 'split_to_sequence' or "
               "'onnx_split'",
               name);
  return -1;
}

static int is_unknown(PyObject *obj) {
  return obj == pcl_module_state.unknown;
}

/* A sequence of ints (list, tuple, 1-D NumPy integer array, or any sequence) as op's lengths.
 * TypeError for a str, bytes or a non-sequence, or non-int items. */
static int int64_list(PyObject *obj, const char *name, pcl_op *op) {
  if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s must be a sequence of ints, not %.100s", name,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  if (PyArray_Check(obj)) {
    PyArrayObject *a = (PyArrayObject *)obj;
    if (!PyArray_ISINTEGER(a) || PyArray_NDIM(a) != 1) {
      PyErr_Format(PyExc_TypeError, "%s must be a 1-D integer array or a sequence of ints", name);
      return -1;
    }
  }
  PyObject *seq = PySequence_Fast(obj, "");
  if (seq == NULL) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s must be a sequence of ints, not %.100s", name,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int64_t *lengths = pcl_op_set_lengths(op, (size_t)n, 1);
  if (lengths == NULL) {
    Py_DECREF(seq);
    return -1;
  }
  PyObject **items = PySequence_Fast_ITEMS(seq);
  for (Py_ssize_t i = 0; i < n; i++) {
    if (pcl_int64(items[i], name, &lengths[i]) < 0) {
      if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s[%zd] must be an int, not %.100s", name, i,
                     Py_TYPE(items[i])->tp_name);
      }
      Py_DECREF(seq);
      return -1;
    }
  }
  Py_DECREF(seq);
  return 0;
}

/* A split list in which every item is cleave.UNKNOWN: only its count is known. Returns 1 when
 * obj is one (op's lengths are that many zeros), 0 when it is not. */
static int unknown_list(PyObject *obj, pcl_op *op) {
  if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
    return 0;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
  Py_ssize_t k = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    k += is_unknown(PySequence_Fast_GET_ITEM(obj, i));
  }
  if (k == 0) {
    return 0;
  }
  if (k != n) {
    PyErr_SetString(PyExc_ValueError,
                    "split lengths are all known or all cleave.UNKNOWN, not a mixture");
    return -1;
  }
  int64_t *lengths = pcl_op_set_lengths(op, (size_t)n, 1);
  if (lengths == NULL) {
    return -1;
  }
  memset(lengths, 0, (size_t)n * sizeof(int64_t));
  return 1;
}

static int lengths_param(PyObject *obj, const char *name, pcl_op *op, unsigned *unknown,
                         int scalar_ok) {
  if (unknown != NULL) {
    int r = unknown_list(obj, op);
    if (r != 0) {
      *unknown |= CLEAVE_UNKNOWN_LENGTHS;
      return r < 0 ? -1 : 0;
    }
  }
  if (scalar_ok && (PyLong_Check(obj) || (PyArray_IsScalar(obj, Integer)) ||
                    (PyArray_Check(obj) && PyArray_NDIM((PyArrayObject *)obj) == 0))) {
    int64_t *value = pcl_op_set_lengths(op, 1, 0);
    return value == NULL ? -1 : pcl_int64(obj, name, value);
  }
  return int64_list(obj, name, op);
}

int pcl_build_op(cleave_op_kind kind, PyObject *const *p, pcl_op *op, unsigned *unknown) {
  pcl_op_init(op, kind, kind == CLEAVE_OP_SPLIT_TO_SEQUENCE ? 24 : 18);
  if (unknown != NULL) {
    *unknown = 0;
  }
  /* The axis is p[1] for every kind. */
  if (p[1] != NULL && unknown != NULL && is_unknown(p[1])) {
    *unknown |= CLEAVE_UNKNOWN_AXIS;
  } else if (p[1] != NULL && pcl_int64(p[1], "axis", &op->axis) < 0) {
    return -1;
  }
  switch (kind) {
  case CLEAVE_OP_SPLIT:
    return pcl_int64(p[0], "num_splits", &op->c.num_splits);
  case CLEAVE_OP_VARIADIC_SPLIT:
    return lengths_param(p[0], "split_lengths", op, unknown, 0);
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    if (p[2] != NULL && pcl_flag(p[2], "keepdims", &op->c.keepdims) < 0) {
      return -1;
    }
    if (p[3] != NULL && pcl_int64(p[3], "opset", &op->c.opset) < 0) {
      return -1;
    }
    if (p[0] != NULL && p[0] != Py_None) {
      return lengths_param(p[0], "split", op, unknown, 1);
    }
    return 0;
  default:
    if (p[3] != NULL && pcl_int64(p[3], "opset", &op->c.opset) < 0) {
      return -1;
    }
    if (p[2] != NULL && p[2] != Py_None) {
      int64_t n;
      if (pcl_int64(p[2], "num_outputs", &n) < 0) {
        return -1;
      }
      pcl_op_set_num_outputs(op, n);
    }
    if (p[0] != NULL && p[0] != Py_None) {
      return lengths_param(p[0], "split", op, unknown, 0);
    }
    return 0;
  }
}
