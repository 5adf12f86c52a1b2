/* Operators with their values (see op.h). */
#include "op.h"

#include <string.h>

void pcl_op_init(pcl_op *op, const pcl_operator *row) {
  op->row = row;
  op->axis = 0;
  op->num_outputs = 0;
  op->has_opset = 0;
  op->lengths = op->inline_lengths;
  if (row->family == PCL_CONCAT) {
    op->c.concat = row->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE
                       ? cleave_op_concat_from_sequence(row->opset, &op->axis, 0)
                       : cleave_op_concat(&op->axis);
    return;
  }
  /* Every split initialiser, then the row's kind and opset: the fields they leave absent stay
   * absent, and the axis is given. */
  op->c.split = cleave_op_split_to_sequence(row->opset);
  op->c.split.kind = (cleave_op_kind)row->kind;
  op->c.split.axis = cleave_values_scalar(&op->axis);
}

int64_t *pcl_op_set_lengths(pcl_op *op, size_t count, size_t rank) {
  pcl_op_clear(op);
  if (count > PCL_INLINE_LENGTHS) {
    int64_t *heap = count > (size_t)PY_SSIZE_T_MAX / sizeof(int64_t)
                        ? NULL
                        : PyMem_Malloc(count * sizeof(int64_t));
    if (heap == NULL) {
      PyErr_NoMemory();
      return NULL;
    }
    op->lengths = heap;
  }
  op->c.split.lengths =
      rank == 0 ? cleave_values_scalar(op->lengths) : cleave_values_list(op->lengths, count);
  return op->lengths;
}

void pcl_op_set_num_outputs(pcl_op *op, int64_t num_outputs) {
  op->num_outputs = num_outputs;
  op->c.split.num_outputs = cleave_values_scalar(&op->num_outputs);
}

int pcl_op_copy(pcl_op *dst, const pcl_op *src) {
  *dst = *src;
  dst->lengths = dst->inline_lengths;
  if (src->row->family == PCL_CONCAT) {
    if (src->c.concat.axis.rank != CLEAVE_ABSENT) {
      dst->c.concat.axis.data = &dst->axis;
    }
    return 0;
  }
  const cleave_op *c = &src->c.split;
  if (c->axis.rank != CLEAVE_ABSENT) {
    dst->c.split.axis.data = &dst->axis;
  }
  if (c->num_outputs.rank != CLEAVE_ABSENT) {
    dst->c.split.num_outputs.data = &dst->num_outputs;
  }
  if (c->lengths.rank == CLEAVE_ABSENT) {
    return 0;
  }
  int64_t *lengths = pcl_op_set_lengths(dst, c->lengths.count, c->lengths.rank);
  if (lengths == NULL) {
    return -1;
  }
  memcpy(lengths, src->lengths, c->lengths.count * sizeof(int64_t));
  return 0;
}

/* The binding's values are all int64: equal when their shapes and integers are. */
static int values_equal(cleave_values a, cleave_values b) {
  if (a.rank != b.rank || a.count != b.count || a.dtype != b.dtype) {
    return 0;
  }
  return a.rank == CLEAVE_ABSENT || a.count == 0 ||
         memcmp(a.data, b.data, a.count * sizeof(int64_t)) == 0;
}

int pcl_op_equal(const pcl_op *a, const pcl_op *b) {
  if (a->row != b->row) {
    return 0;
  }
  if (a->row->family == PCL_CONCAT) {
    const cleave_concat_op *x = &a->c.concat, *y = &b->c.concat;
    int x_absent = x->axis.rank == CLEAVE_ABSENT, y_absent = y->axis.rank == CLEAVE_ABSENT;
    return x->kind == y->kind && x->opset == y->opset && x->new_axis == y->new_axis &&
           x_absent == y_absent && (x_absent || a->axis == b->axis);
  }
  const cleave_op *x = &a->c.split, *y = &b->c.split;
  return x->kind == y->kind && x->opset == y->opset && x->num_splits == y->num_splits &&
         x->keepdims == y->keepdims && values_equal(x->axis, y->axis) &&
         values_equal(x->lengths, y->lengths) && values_equal(x->num_outputs, y->num_outputs);
}

void pcl_op_clear(pcl_op *op) {
  if (op->lengths != op->inline_lengths) {
    PyMem_Free(op->lengths);
    op->lengths = op->inline_lengths;
  }
  if (op->row != NULL && op->row->family == PCL_SPLIT) {
    op->c.split.lengths = cleave_values_none();
  }
}

/* A split's lengths as Plan() takes them: None, an int, or a list. */
static PyObject *lengths_repr(const pcl_op *op) {
  const cleave_values *v = &op->c.split.lengths;
  if (v->rank == CLEAVE_ABSENT) {
    return PyUnicode_FromString("None");
  }
  if (v->rank == 0) {
    return PyUnicode_FromFormat("%lld", (long long)op->lengths[0]);
  }
  PyObject *list = PyList_New((Py_ssize_t)v->count);
  for (size_t i = 0; list != NULL && i < v->count; i++) {
    PyObject *item = PyLong_FromLongLong(op->lengths[i]);
    if (item == NULL) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, item);
  }
  PyObject *r = list == NULL ? NULL : PyObject_Repr(list);
  Py_XDECREF(list);
  return r;
}

static PyObject *split_params_repr(const pcl_op *op) {
  const cleave_op *c = &op->c.split;
  if (c->kind == CLEAVE_OP_SPLIT) {
    return PyUnicode_FromFormat("num_splits=%lld, axis=%lld", (long long)c->num_splits,
                                (long long)op->axis);
  }
  PyObject *lengths = lengths_repr(op);
  if (lengths == NULL) {
    return NULL;
  }
  PyObject *r;
  if (c->kind == CLEAVE_OP_VARIADIC_SPLIT) {
    r = PyUnicode_FromFormat("split_lengths=%U, axis=%lld", lengths, (long long)op->axis);
  } else if (c->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE) {
    r = PyUnicode_FromFormat("split=%U, axis=%lld, keepdims=%lld, opset=%lld", lengths,
                             (long long)op->axis, (long long)c->keepdims, (long long)c->opset);
  } else if (c->num_outputs.rank == CLEAVE_ABSENT) {
    r = PyUnicode_FromFormat("split=%U, axis=%lld, opset=%lld", lengths, (long long)op->axis,
                             (long long)c->opset);
  } else {
    r = PyUnicode_FromFormat("split=%U, axis=%lld, num_outputs=%lld, opset=%lld", lengths,
                             (long long)op->axis, (long long)op->num_outputs, (long long)c->opset);
  }
  Py_DECREF(lengths);
  return r;
}

static PyObject *concat_params_repr(const pcl_op *op) {
  const cleave_concat_op *c = &op->c.concat;
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

PyObject *pcl_op_params_repr(const pcl_op *op) {
  return op->row->family == PCL_CONCAT ? concat_params_repr(op) : split_params_repr(op);
}
