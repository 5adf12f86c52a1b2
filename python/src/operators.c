/* The table of operators and their parameters (see operators.h). */
#include "operators.h"

#include "args.h"

#include <string.h>

static int is_unknown(PyObject *obj) {
  return obj == pcl_module_state.unknown;
}

static int axis_param(PyObject *obj, pcl_op *op, unsigned *unknown) {
  if (unknown != NULL && is_unknown(obj)) {
    *unknown |= CLEAVE_UNKNOWN_AXIS;
    return 0;
  }
  return pcl_int64(obj, "axis", &op->axis);
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

/* The splits' parameters: (num_splits | split_lengths | split, axis, [keepdims | num_outputs,
 * opset]); the axis is p[1] for every one of them. */
static int build_split(const pcl_operator *row, PyObject *const *p, pcl_op *op, unsigned *unknown) {
  pcl_op_init(op, row);
  cleave_op *c = &op->c.split;
  if (unknown != NULL) {
    *unknown = 0;
  }
  if (p[1] != NULL && axis_param(p[1], op, unknown) < 0) {
    return -1;
  }
  switch (c->kind) {
  case CLEAVE_OP_SPLIT:
    return pcl_int64(p[0], "num_splits", &c->num_splits);
  case CLEAVE_OP_VARIADIC_SPLIT:
    return lengths_param(p[0], "split_lengths", op, unknown, 0);
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    if (p[2] != NULL && pcl_flag(p[2], "keepdims", &c->keepdims) < 0) {
      return -1;
    }
    if (p[3] != NULL && pcl_int64(p[3], "opset", &c->opset) < 0) {
      return -1;
    }
    if (p[0] != NULL && p[0] != Py_None) {
      return lengths_param(p[0], "split", op, unknown, 1);
    }
    return 0;
  default:
    if (p[3] != NULL && pcl_int64(p[3], "opset", &c->opset) < 0) {
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

/* ONNX Concat-1, whose axis attribute is optional (default 1), is in force below this opset,
 * where Concat-4 made the attribute required. */
#define ONNX_CONCAT_4_OPSET 4

/* The concats' parameters: concat's (axis, opset), concat_from_sequence's (axis, new_axis,
 * opset). concat without an opset is OpenVINO Concat-1, with one the ONNX Concat in force there.
 * An axis not given is 0 (np.concatenate's default), except for ONNX Concat-1 (opsets 1 to 3),
 * whose own default (1) applies, and for ConcatFromSequence, whose axis is required (the library
 * says so). An axis of None is refused: cleave does not flatten. */
static int build_concat(const pcl_operator *row, PyObject *const *p, pcl_op *op,
                        unsigned *unknown) {
  pcl_op_init(op, row);
  cleave_concat_op *c = &op->c.concat;
  if (unknown != NULL) {
    *unknown = 0;
  }
  int from_sequence = c->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE;
  PyObject *axis = p[0], *opset = from_sequence ? p[2] : p[1];
  if (opset != NULL && opset != Py_None) {
    int64_t version;
    if (pcl_int64(opset, "opset", &version) < 0) {
      return -1;
    }
    op->has_opset = 1;
    if (from_sequence) {
      c->opset = version;
    } else {
      *c = cleave_op_onnx_concat(version, &op->axis);
    }
  }
  if (from_sequence && p[1] != NULL && pcl_flag(p[1], "new_axis", &c->new_axis) < 0) {
    return -1;
  }
  if (axis == Py_None) {
    PyErr_SetString(PyExc_TypeError,
                    "axis must be an int, not None (cleave joins along an axis; it does not "
                    "flatten as np.concatenate(axis=None) does)");
    return -1;
  }
  if (axis != NULL) {
    return axis_param(axis, op, unknown);
  }
  if (from_sequence || (op->has_opset && c->opset < ONNX_CONCAT_4_OPSET)) {
    c->axis = cleave_values_none();
  }
  return 0;
}

/* ConcatFromSequence's only version so far, the binding's default opset for it. */
#define CONCAT_FROM_SEQUENCE_OPSET 11

const pcl_operator pcl_operators[PCL_OPERATOR_COUNT] = {
    {"split",
     PCL_SPLIT,
     CLEAVE_OP_SPLIT,
     1,
     PCL_RETURNS_TUPLE,
     {"num_splits", "axis"},
     2,
     2,
     1,
     1,
     build_split},
    {"variadic_split",
     PCL_SPLIT,
     CLEAVE_OP_VARIADIC_SPLIT,
     1,
     PCL_RETURNS_TUPLE,
     {"split_lengths", "axis"},
     2,
     2,
     1,
     1,
     build_split},
    {"split_to_sequence",
     PCL_SPLIT,
     CLEAVE_OP_SPLIT_TO_SEQUENCE,
     24,
     PCL_RETURNS_LIST,
     {"split", "axis", "keepdims", "opset"},
     4,
     4,
     0,
     0,
     build_split},
    {"onnx_split",
     PCL_SPLIT,
     CLEAVE_OP_ONNX_SPLIT,
     18,
     PCL_RETURNS_TUPLE,
     {"split", "axis", "num_outputs", "opset"},
     4,
     4,
     0,
     0,
     build_split},
    {"concat",
     PCL_CONCAT,
     CLEAVE_OP_CONCAT,
     1,
     PCL_RETURNS_ONE,
     {"axis", "opset"},
     2,
     1,
     0,
     0,
     build_concat},
    {"concat_from_sequence",
     PCL_CONCAT,
     CLEAVE_OP_CONCAT_FROM_SEQUENCE,
     CONCAT_FROM_SEQUENCE_OPSET,
     PCL_RETURNS_ONE,
     {"axis", "new_axis", "opset"},
     3,
     2,
     1,
     0,
     build_concat},
};

static int in_family(const pcl_operator *row, int family) {
  return family == PCL_ANY_FAMILY || (int)row->family == family;
}

/* "'split', 'variadic_split' or 'onnx_split'": the names of a family's rows, into buf. */
static void expected_names(int family, char *buf, size_t size) {
  int total = 0, k = 0;
  for (int i = 0; i < PCL_OPERATOR_COUNT; i++) {
    total += in_family(&pcl_operators[i], family);
  }
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < PCL_OPERATOR_COUNT && used < size; i++) {
    if (in_family(&pcl_operators[i], family)) {
      const char *sep = k == 0 ? "" : k == total - 1 ? " or " : ", ";
      used += (size_t)PyOS_snprintf(buf + used, size - used, "%s'%s'", sep, pcl_operators[i].name);
      k++;
    }
  }
}

const pcl_operator *pcl_operator_find(PyObject *name, int family) {
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "operator must be a str, not %.100s", Py_TYPE(name)->tp_name);
    return NULL;
  }
  for (int i = 0; i < PCL_OPERATOR_COUNT; i++) {
    const pcl_operator *row = &pcl_operators[i];
    if (in_family(row, family) && PyUnicode_CompareWithASCIIString(name, row->name) == 0) {
      return row;
    }
  }
  char expected[200];
  expected_names(family, expected, sizeof expected);
  PyErr_Format(PyExc_ValueError, "unknown operator %R: expected %s", name, expected);
  return NULL;
}

/* The index of the parameter `key` (a str) names among the row's, or -1. */
static int param_index(const pcl_operator *row, PyObject *key) {
  for (int i = 0; i < row->count; i++) {
    if (PyUnicode_CompareWithASCIIString(key, row->params[i]) == 0) {
      return i;
    }
  }
  return -1;
}

/* TypeError: `key` is not a parameter of the row's (named with those it takes). */
static int not_a_parameter(const pcl_operator *row, PyObject *key) {
  char takes[200];
  size_t used = 0;
  takes[0] = '\0';
  for (int i = 0; i < row->count && used < sizeof takes; i++) {
    used += (size_t)PyOS_snprintf(takes + used, sizeof takes - used, "%s%s", i > 0 ? ", " : "",
                                  row->params[i]);
  }
  PyErr_Format(PyExc_TypeError, "%R is not a parameter of %s (it takes %s)", key, row->name, takes);
  return -1;
}

int pcl_operator_params(const pcl_operator *row, PyObject *params, int strict, const char *caller,
                        PyObject **p) {
  memset(p, 0, PCL_MAX_OP_PARAMS * sizeof *p);
  if (params != NULL && strict) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(params, &pos, &key, &value)) {
      int i = param_index(row, key);
      if (i < 0) {
        return not_a_parameter(row, key);
      }
      p[i] = value;
    }
  } else if (params != NULL) {
    for (int i = 0; i < row->count; i++) {
      p[i] = PyDict_GetItemString(params, row->params[i]);
    }
  }
  for (int i = 0; i < row->needed; i++) {
    if (p[i] == NULL) {
      PyErr_Format(PyExc_TypeError, "%s of %s needs %s=", caller, row->name, row->params[i]);
      return -1;
    }
  }
  return 0;
}
