/* Operators with their values (see op.h). */
#include "op.h"

#include <string.h>

void pcl_op_init(pcl_op *op, cleave_op_kind kind, int64_t opset) {
  memset(op, 0, sizeof *op);
  op->lengths = op->inline_lengths;
  switch (kind) {
  case CLEAVE_OP_SPLIT:
    op->c = cleave_op_split(&op->axis, 0);
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    op->c = cleave_op_variadic_split(&op->axis, op->lengths, 0);
    op->c.lengths = cleave_values_none();
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    op->c = cleave_op_split_to_sequence(opset);
    break;
  default:
    op->c = cleave_op_onnx_split(opset);
    break;
  }
  op->c.kind = kind;
  op->c.opset = opset;
  op->c.axis = cleave_values_scalar(&op->axis);
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
  op->c.lengths =
      rank == 0 ? cleave_values_scalar(op->lengths) : cleave_values_list(op->lengths, count);
  return op->lengths;
}

void pcl_op_set_num_outputs(pcl_op *op, int64_t num_outputs) {
  op->num_outputs = num_outputs;
  op->c.num_outputs = cleave_values_scalar(&op->num_outputs);
}

int pcl_op_copy(pcl_op *dst, const pcl_op *src) {
  *dst = *src;
  dst->lengths = dst->inline_lengths;
  if (src->c.axis.rank != CLEAVE_ABSENT) {
    dst->c.axis.data = &dst->axis;
  }
  if (src->c.num_outputs.rank != CLEAVE_ABSENT) {
    dst->c.num_outputs.data = &dst->num_outputs;
  }
  if (src->c.lengths.rank == CLEAVE_ABSENT) {
    return 0;
  }
  int64_t *lengths = pcl_op_set_lengths(dst, src->c.lengths.count, src->c.lengths.rank);
  if (lengths == NULL) {
    return -1;
  }
  memcpy(lengths, src->lengths, src->c.lengths.count * sizeof(int64_t));
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
  const cleave_op *x = &a->c, *y = &b->c;
  return x->kind == y->kind && x->opset == y->opset && x->num_splits == y->num_splits &&
         x->keepdims == y->keepdims && values_equal(x->axis, y->axis) &&
         values_equal(x->lengths, y->lengths) && values_equal(x->num_outputs, y->num_outputs);
}

void pcl_op_clear(pcl_op *op) {
  if (op->lengths != op->inline_lengths) {
    PyMem_Free(op->lengths);
    op->lengths = op->inline_lengths;
  }
  op->c.lengths = cleave_values_none();
}
