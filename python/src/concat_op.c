/* Concatenating operators from Python parameters (see concat_op.h). */
#include "concat_op.h"

#include "args.h"

#include <string.h>

const char *const pcl_concat_params[2][PCL_CONCAT_MAX_PARAMS] = {
    {"axis", "opset"},
    {"axis", "new_axis", "opset"},
};
const int pcl_concat_param_count[2] = {2, 3};

/* ONNX Concat-1, whose axis attribute is optional (default 1), is in force below this opset,
 * where Concat-4 made the attribute required. */
#define ONNX_CONCAT_4_OPSET 4

/* ConcatFromSequence's only version so far, the binding's default opset for it. */
#define CONCAT_FROM_SEQUENCE_OPSET 11

const char *pcl_concat_kind_name(cleave_concat_kind kind) {
  return kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE ? "concat_from_sequence" : "concat";
}

int pcl_concat_kind_from_name(PyObject *name, cleave_concat_kind *kind) {
  if (!PyUnicode_Check(name)) {
    PyErr_Format(PyExc_TypeError, "operator must be a str, not %.100s", Py_TYPE(name)->tp_name);
    return -1;
  }
  if (PyUnicode_CompareWithASCIIString(name, "concat") == 0) {
    *kind = CLEAVE_OP_CONCAT;
    return 0;
  }
  if (PyUnicode_CompareWithASCIIString(name, "concat_from_sequence") == 0) {
    *kind = CLEAVE_OP_CONCAT_FROM_SEQUENCE;
    return 0;
  }
  return 1;
}

static int axis_param(PyObject *obj, pcl_concat_op *op, unsigned *unknown) {
  if (unknown != NULL && obj == pcl_module_state.unknown) {
    *unknown |= CLEAVE_UNKNOWN_AXIS;
    return 0;
  }
  if (obj == Py_None) {
    PyErr_SetString(PyExc_TypeError,
                    "axis must be an int, not None (cleave joins along an axis; it does not "
                    "flatten as np.concatenate(axis=None) does)");
    return -1;
  }
  return pcl_int64(obj, "axis", &op->axis);
}

int pcl_concat_build_op(cleave_concat_kind kind, PyObject *const *p, pcl_concat_op *op,
                        unsigned *unknown) {
  memset(op, 0, sizeof *op);
  if (unknown != NULL) {
    *unknown = 0;
  }
  PyObject *axis = p[0];
  PyObject *opset = kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE ? p[2] : p[1];
  int64_t version = CONCAT_FROM_SEQUENCE_OPSET;
  if (opset != NULL && opset != Py_None) {
    if (pcl_int64(opset, "opset", &version) < 0) {
      return -1;
    }
    op->has_opset = 1;
  }
  if (kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
    op->c = cleave_op_concat_from_sequence(version, &op->axis, 0);
    if (p[1] != NULL && pcl_flag(p[1], "new_axis", &op->c.new_axis) < 0) {
      return -1;
    }
  } else if (op->has_opset) {
    op->c = cleave_op_onnx_concat(version, &op->axis);
  } else {
    op->c = cleave_op_concat(&op->axis);
  }
  if (axis != NULL) {
    return axis_param(axis, op, unknown);
  }
  /* Not given: NumPy's default 0, except where the operator has a default of its own (ONNX
   * Concat-1), and except ConcatFromSequence, whose axis is required (the library says so). */
  if (kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE ||
      (op->has_opset && op->c.opset < ONNX_CONCAT_4_OPSET)) {
    op->c.axis = cleave_values_none();
  }
  return 0;
}

void pcl_concat_op_copy(pcl_concat_op *dst, const pcl_concat_op *src) {
  *dst = *src;
  if (src->c.axis.rank != CLEAVE_ABSENT) {
    dst->c.axis.data = &dst->axis;
  }
}

int pcl_concat_op_equal(const pcl_concat_op *a, const pcl_concat_op *b) {
  const cleave_concat_op *x = &a->c, *y = &b->c;
  int x_absent = x->axis.rank == CLEAVE_ABSENT, y_absent = y->axis.rank == CLEAVE_ABSENT;
  return x->kind == y->kind && x->opset == y->opset && x->new_axis == y->new_axis &&
         x_absent == y_absent && (x_absent || a->axis == b->axis);
}

PyObject *pcl_concat_params_repr(const pcl_concat_op *op) {
  const cleave_concat_op *c = &op->c;
  PyObject *axis = c->axis.rank == CLEAVE_ABSENT
                       ? PyUnicode_FromString("")
                       : PyUnicode_FromFormat("axis=%lld, ", (long long)op->axis);
  if (axis == NULL) {
    return NULL;
  }
  PyObject *r;
  if (c->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
    r = PyUnicode_FromFormat("%Unew_axis=%lld, opset=%lld", axis, (long long)c->new_axis,
                             (long long)c->opset);
  } else if (op->has_opset) {
    r = PyUnicode_FromFormat("%Uopset=%lld", axis, (long long)c->opset);
  } else {
    r = PyUnicode_FromFormat("%Uopset=None", axis);
  }
  Py_DECREF(axis);
  return r;
}
