/* cleave.split, variadic_split, split_to_sequence and onnx_split. */
#include "ops.h"

#include "args.h"
#include "module.h"
#include "outputs.h"

#include <string.h>

const char *const pcl_op_params[5][4] = {
    {NULL},
    {"num_splits", "axis"},
    {"split_lengths", "axis"},
    {"split", "axis", "keepdims", "opset"},
    {"split", "axis", "num_outputs", "opset"},
};
const int pcl_op_param_count[5] = {0, 2, 2, 4, 4};

int pcl_kind_from_name(PyObject *name, pcl_kind *kind) {
  static const char *const names[] = {"split", "variadic_split", "split_to_sequence", "onnx_split"};
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "operator must be a str, not %.100s", Py_TYPE(name)->tp_name);
    return -1;
  }
  for (int i = 0; i < 4; i++) {
    if (PyUnicode_CompareWithASCIIString(name, names[i]) == 0) {
      *kind = (pcl_kind)(i + 1);
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

/* A split list in which every item is cleave.UNKNOWN: only its count is known. */
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
  if (pcl_op_reserve(op, n) < 0) {
    return -1;
  }
  memset(op->lengths, 0, (size_t)n * sizeof(int64_t));
  op->count = n;
  return 1;
}

static int lengths_param(PyObject *obj, const char *name, pcl_op *op, int *unknown, int scalar_ok) {
  op->has_lengths = 1;
  if (unknown != NULL) {
    int r = unknown_list(obj, op);
    if (r != 0) {
      *unknown |= 2;
      return r < 0 ? -1 : 0;
    }
  }
  if (scalar_ok && (PyLong_Check(obj) || (PyArray_IsScalar(obj, Integer)) ||
                    (PyArray_Check(obj) && PyArray_NDIM((PyArrayObject *)obj) == 0))) {
    op->lengths_rank = 0;
    op->count = 1;
    return pcl_int64(obj, name, &op->lengths[0]);
  }
  return pcl_int64_list(obj, name, op);
}

int pcl_build_op(pcl_kind kind, PyObject *const *p, pcl_op *op, int *unknown) {
  pcl_op_init(op, kind, kind == PCL_SPLIT_TO_SEQUENCE ? 24 : 18);
  if (unknown != NULL) {
    *unknown = 0;
  }
  /* The axis is p[1] for every kind; absent means 0 (the ONNX default, NumPy's too). */
  op->has_axis = 1;
  if (p[1] != NULL && unknown != NULL && is_unknown(p[1])) {
    *unknown |= 1;
  } else if (p[1] != NULL && pcl_int64(p[1], "axis", &op->axis) < 0) {
    return -1;
  }
  switch (kind) {
  case PCL_SPLIT:
    op->has_num_splits = 1;
    return pcl_int64(p[0], "num_splits", &op->num_splits);
  case PCL_VARIADIC_SPLIT:
    return lengths_param(p[0], "split_lengths", op, unknown, 0);
  case PCL_SPLIT_TO_SEQUENCE:
    if (p[2] != NULL && pcl_int64(p[2], "keepdims", &op->keepdims) < 0) {
      return -1;
    }
    if (p[3] != NULL && pcl_int64(p[3], "opset", &op->opset) < 0) {
      return -1;
    }
    if (p[0] != NULL && p[0] != Py_None) {
      return lengths_param(p[0], "split", op, unknown, 1);
    }
    return 0;
  default:
    if (p[3] != NULL && pcl_int64(p[3], "opset", &op->opset) < 0) {
      return -1;
    }
    if (p[2] != NULL && p[2] != Py_None) {
      op->has_num_splits = 1;
      if (pcl_int64(p[2], "num_outputs", &op->num_splits) < 0) {
        return -1;
      }
    }
    if (p[0] != NULL && p[0] != Py_None) {
      return lengths_param(p[0], "split", op, unknown, 0);
    }
    return 0;
  }
}

/* The keywords every operator function takes after its own. */
#define COMMON_NAMES "copy", "out", "threads", "dtype", "shape"
#define COMMON_COUNT 5

static PyObject *run(pcl_kind kind, pcl_params *params, PyObject *const *args, Py_ssize_t nargs,
                     PyObject *kwnames) {
  PyObject *slots[1 + 4 + COMMON_COUNT];
  if (pcl_parse_args(params, args, nargs, kwnames, slots) < 0) {
    return NULL;
  }
  int np = pcl_op_param_count[kind];
  PyObject **common = slots + 1 + np;
  pcl_request req;
  req.out = common[1];
  req.as_list = kind == PCL_SPLIT_TO_SEQUENCE;
  if (pcl_copy_mode(common[0], &req.copy) < 0 || pcl_threads(common[2], &req.threads) < 0) {
    return NULL;
  }
  pcl_op op;
  if (pcl_build_op(kind, slots + 1, &op, NULL) < 0) {
    pcl_op_clear(&op);
    return NULL;
  }
  pcl_input in;
  if (pcl_input_acquire(slots[0], common[3], common[4], &in) < 0) {
    pcl_op_clear(&op);
    return NULL;
  }
  PyObject *result = pcl_execute(&op, NULL, &in, &req);
  pcl_input_release(&in);
  pcl_op_clear(&op);
  return result;
}

#define DEFINE_OP(fn, kind, pyname, required, ...)                                                 \
  PyObject *fn(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {       \
    (void)self;                                                                                    \
    static const char *const names[] = {"x", __VA_ARGS__, COMMON_NAMES};                           \
    static PyObject *interned[sizeof names / sizeof names[0]];                                     \
    static pcl_params params = {                                                                   \
        pyname,   names,   (int)(sizeof names / sizeof names[0]), 1 + pcl_op_param_count_##kind,   \
        required, interned};                                                                       \
    return run(kind, &params, args, nargs, kwnames);                                               \
  }

enum {
  pcl_op_param_count_PCL_SPLIT = 2,
  pcl_op_param_count_PCL_VARIADIC_SPLIT = 2,
  pcl_op_param_count_PCL_SPLIT_TO_SEQUENCE = 4,
  pcl_op_param_count_PCL_ONNX_SPLIT = 4
};

DEFINE_OP(pcl_split, PCL_SPLIT, "split", 2, "num_splits", "axis")
DEFINE_OP(pcl_variadic_split, PCL_VARIADIC_SPLIT, "variadic_split", 2, "split_lengths", "axis")
DEFINE_OP(pcl_split_to_sequence, PCL_SPLIT_TO_SEQUENCE, "split_to_sequence", 1, "split", "axis",
          "keepdims", "opset")
DEFINE_OP(pcl_onnx_split, PCL_ONNX_SPLIT, "onnx_split", 1, "split", "axis", "num_outputs", "opset")
