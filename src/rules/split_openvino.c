/*
 * OpenVINO Split-1 and VariadicSplit-1 (docs/operators.md section 2 and 3), on an axis dimension
 * interval.
 */
#include "rules/rules.h"

cleave_status cleave_split_1_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                cleave_split_hull *hull, cleave_error *err) {
  int64_t n = prep->op->num_splits;
  if (n < 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "num_splits is %" PRId64 " but must be >= 1", n);
  }
  if (!cleave_equal_parts(n, d, hull)) {
    if (d.lo == d.hi) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "data.shape[%" PRId64 "] = %" PRId64
                         " is not divisible by num_splits = %" PRId64,
                         axis, d.lo, n);
    }
    char dim_text[CLEAVE_DIM_TEXT_SIZE];
    cleave_dim_text(dim_text, sizeof dim_text, d);
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "data.shape[%" PRId64 "] = %s holds no multiple of num_splits = %" PRId64,
                       axis, dim_text, n);
  }
  return CLEAVE_OK;
}

cleave_status cleave_variadic_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                       cleave_split_hull *hull, cleave_error *err) {
  const cleave_values *list = &prep->op->lengths;
  if (cleave_values_absent(list)) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "VariadicSplit-1 needs split_lengths");
  }
  bool known = !prep->lengths_unknown;
  cleave_status st =
      cleave_values_check_known(list, "split_lengths", CLEAVE_ERROR_INVALID_SPLIT, known, err);
  if (st == CLEAVE_OK) {
    st = cleave_require_1d(list, "split_lengths", "VariadicSplit-1", err);
  }
  if (st == CLEAVE_OK) {
    st = cleave_resolve_list(list, "split_lengths", true, known, axis, d, hull, err);
  }
  return st;
}
