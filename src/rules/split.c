/*
 * The split family's entry for one axis dimension: which operator's rules apply. It sits above the
 * operators' files (split_openvino.c, split_onnx.c), which never call back into it.
 */
#include "rules/rules.h"

cleave_status cleave_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim dim,
                              cleave_split_hull *hull, cleave_error *err) {
  *hull = (cleave_split_hull){.minus_one = -1};
  switch (prep->op->kind) {
  case CLEAVE_OP_SPLIT:
    return cleave_split_1_at(prep, axis, dim, hull, err);
  case CLEAVE_OP_VARIADIC_SPLIT:
    return cleave_variadic_split_at(prep, axis, dim, hull, err);
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    return cleave_sequence_at(prep, axis, dim, hull, err);
  default:
    return cleave_onnx_split_at(prep, axis, dim, hull, err);
  }
}
