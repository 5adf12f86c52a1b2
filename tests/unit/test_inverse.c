/*
 * The inverse property (docs/operators.md section 8): the outputs of every valid split the unit
 * tests check, joined again along the split's axis, give the input back byte for byte. OpenVINO
 * Concat-1 undoes every split; ONNX Concat at the split's opset undoes ONNX Split where it takes
 * the type; ConcatFromSequence undoes SplitToSequence, with new_axis 1 where keepdims 0 removed
 * the axis.
 */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

/* Joins `parts` with `op` (one-shot and through a plan) and compares with the input. */
static void check_join(const cleave_concat_op *op, const cleave_tensor *parts, size_t n,
                       const tu_input *in, const char *what) {
  unsigned char *back = malloc(in->nbytes + TU_GUARD);
  assert_non_null(back);
  for (int pass = 0; pass < 2; pass++) {
    memset(back, TU_SENTINEL, in->nbytes + TU_GUARD);
    cleave_error err;
    cleave_status st;
    if (pass == 0) {
      st = cleave_concat_run(op, parts, n, back, &err);
    } else {
      cleave_concat_plan *plan = NULL;
      st = cleave_concat_plan_create(op, parts, n, NULL, &plan, &err);
      const void **ptrs = calloc(n, sizeof *ptrs);
      assert_non_null(ptrs);
      for (size_t i = 0; i < n; i++) {
        ptrs[i] = parts[i].data;
      }
      if (st == CLEAVE_OK) {
        st = cleave_concat_plan_run(plan, ptrs, back, NULL, &err);
      }
      free(ptrs);
      cleave_concat_plan_destroy(plan);
    }
    if (st != CLEAVE_OK) {
      print_error("inverse by %s: status %d, message \"%s\"\n", what, (int)st, err.message);
    }
    TU_CHECK(st == CLEAVE_OK);
    int same = memcmp(back, in->bytes, in->nbytes) == 0;
    if (!same) {
      print_error("inverse by %s (pass %d): the joined outputs differ from the input\n", what,
                  pass);
    }
    TU_CHECK(same);
    for (size_t g = 0; g < TU_GUARD; g++) {
      TU_CHECK(back[in->nbytes + g] == TU_SENTINEL);
    }
  }
  free(back);
}

void tu_check_inverse(const cleave_op *op, const tu_input *in, const tu_expect *ex,
                      unsigned char *const *outputs) {
  size_t n = ex->num_outputs;
  if (n == 0) {
    return; /* an empty sequence has nothing to join */
  }
  cleave_tensor *parts = calloc(n, sizeof *parts);
  int64_t(*shapes)[TU_MAX_RANK] = calloc(n, sizeof *shapes);
  assert_non_null(parts);
  assert_non_null(shapes);
  for (size_t i = 0; i < n; i++) {
    size_t r = 0;
    for (size_t d = 0; d < in->tensor.rank; d++) {
      if (d != ex->axis) {
        shapes[i][r++] = in->shape[d];
      } else if (!ex->axis_removed) {
        shapes[i][r++] = ex->lengths[i];
      }
    }
    parts[i] = (cleave_tensor){outputs[i], in->tensor.type, r, shapes[i]};
  }
  int64_t axis = (int64_t)ex->axis;
  cleave_dtype dtype = in->tensor.type.dtype;
  if (!ex->axis_removed) {
    cleave_concat_op concat = cleave_op_concat(&axis);
    check_join(&concat, parts, n, in, "OpenVINO Concat-1");
  }
  /* ConcatFromSequence-11 takes the fifteen ONNX types (SplitToSequence-11's). */
  if (op->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE && tu_sequence_accepts(11, dtype)) {
    cleave_concat_op sequence = cleave_op_concat_from_sequence(11, &axis, ex->axis_removed);
    check_join(&sequence, parts, n, in, "ConcatFromSequence-11");
  }
  /* ONNX Concat at the split's opset: version 1 below 4 (floats), 13 from 13 (bf16). */
  if (op->kind == CLEAVE_OP_ONNX_SPLIT) {
    int floats = dtype == CLEAVE_F16 || dtype == CLEAVE_F32 || dtype == CLEAVE_F64;
    int takes = op->opset < 4 ? floats : tu_onnx_split_accepts(op->opset < 13 ? 11 : 13, dtype);
    if (takes) {
      cleave_concat_op concat = cleave_op_onnx_concat(op->opset, &axis);
      check_join(&concat, parts, n, in, "ONNX Concat");
    }
  }
  free(parts);
  free(shapes);
}
