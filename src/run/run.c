/* One-shot execution: validate through cleave_resolve, then copy with no allocation. */
#include "run/run.h"

#include <inttypes.h>

/* Copies every output of `geom`, in order, on the calling thread. No validation. */
static void copy_all(const cleave_geometry *geom, const void *input, void *const *outputs) {
  /* One-shot runs use the same engine as plans, with the default tuning, on this thread. */
  if (!geom->bytes_aligned) {
    cleave_copy_packed(geom, input, outputs, NULL, 0);
    return;
  }
  cleave_plan_options options = cleave_plan_options_default();
  const cleave_kernels *kernels = &cleave_kernels_portable;
  cleave_kernels_pick(CLEAVE_KERNELS_AUTO, &kernels, NULL);
  cleave_engine_run_geometry(geom, &options, kernels, input, outputs, NULL);
}

cleave_status cleave_run(const cleave_op *op, const cleave_tensor *input, void *const *outputs,
                         size_t num_outputs, cleave_error *err) {
  if (input == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the input tensor is NULL");
  }
  cleave_geometry geom;
  cleave_status st = cleave_resolve(op, input->type, input->shape, input->rank, &geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if ((uint64_t)num_outputs != (uint64_t)geom.info.num_outputs) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%zu output buffers were given but the operator produces %" PRId64
                       " outputs",
                       num_outputs, geom.info.num_outputs);
  }
  st = cleave_check_buffers(&geom, input->data, outputs, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  copy_all(&geom, input->data, outputs);
  return cleave_succeed(err);
}

cleave_status cleave_split(const cleave_tensor *input, int64_t axis, int64_t num_splits,
                           void *const *outputs, size_t num_outputs, cleave_error *err) {
  cleave_op op = cleave_op_split(&axis, num_splits);
  return cleave_run(&op, input, outputs, num_outputs, err);
}

cleave_status cleave_variadic_split(const cleave_tensor *input, int64_t axis,
                                    cleave_values split_lengths, void *const *outputs,
                                    size_t num_outputs, cleave_error *err) {
  cleave_op op = cleave_op_split(&axis, 0);
  op.kind = CLEAVE_OP_VARIADIC_SPLIT;
  op.lengths = split_lengths;
  return cleave_run(&op, input, outputs, num_outputs, err);
}

cleave_status cleave_split_to_sequence(const cleave_tensor *input, int64_t opset, int64_t axis,
                                       cleave_values split, int64_t keepdims, void *const *outputs,
                                       size_t num_outputs, cleave_error *err) {
  cleave_op op = cleave_op_split_to_sequence(opset);
  op.axis = cleave_values_scalar(&axis);
  op.lengths = split;
  op.keepdims = keepdims;
  return cleave_run(&op, input, outputs, num_outputs, err);
}

cleave_status cleave_onnx_split(const cleave_tensor *input, int64_t opset, int64_t axis,
                                cleave_values split, void *const *outputs, size_t num_outputs,
                                cleave_error *err) {
  if (num_outputs > (size_t)INT64_MAX) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "num_outputs %zu is too large",
                       num_outputs);
  }
  /* The node has num_outputs outputs. Without split that is the output count (below 18) or
   * the num_outputs attribute (18); with split, below 18 it is checked against the lengths,
   * and at 18 the attribute is absent (exactly one of the two is given). */
  int64_t n = (int64_t)num_outputs;
  cleave_op op = cleave_op_onnx_split(opset);
  op.axis = cleave_values_scalar(&axis);
  op.lengths = split;
  if (cleave_values_absent(&split) || opset < 18) {
    op.num_outputs = cleave_values_scalar(&n);
  }
  return cleave_run(&op, input, outputs, num_outputs, err);
}
