/*
 * The concatenating family's rules on the dimensions (docs/operators.md section 8), on intervals:
 * off the axis the inputs' dims must have a common value (their intersection; for static shapes,
 * equal dims), on the axis the output's dim is their sum; stacking (ConcatFromSequence with
 * new_axis 1) needs every dim in common and inserts the input count at the axis. An input of
 * dynamic rank has every dim unknown: it leaves an intersection as it is and makes a sum
 * unbounded. Static shapes are the case where every interval is a point.
 */
#include "rules/rules.h"

/* Whether every dim of inputs [0, i] at position j is a point (then messages name values). */
static bool points_up_to(const cleave_concat_prepared *prep, size_t i, int64_t j) {
  for (size_t k = 0; k <= i; k++) {
    cleave_shape_view view = cleave_concat_view(prep->inputs, k);
    if (view.rank == CLEAVE_VIEW_RANK_DYNAMIC) {
      return false;
    }
    cleave_dim d = cleave_view_dim(&view, j);
    if (d.lo != d.hi) {
      return false;
    }
  }
  return true;
}

/* Whether every input of static rank in [first, end) has a point dim at position j. */
static bool points_between(const cleave_concat_prepared *prep, size_t first, size_t end,
                           int64_t j) {
  for (size_t k = first; k < end; k++) {
    cleave_shape_view view = cleave_concat_view(prep->inputs, k);
    if (view.rank != CLEAVE_VIEW_RANK_DYNAMIC) {
      cleave_dim d = cleave_view_dim(&view, j);
      if (d.lo != d.hi) {
        return false;
      }
    }
  }
  return true;
}

/* The rule an empty intersection breaks, for messages. */
static void common_rule(const cleave_concat_prepared *prep, int64_t axis, char *buf, size_t size) {
  if (prep->stack) {
    snprintf(buf, size, "%s with new_axis = 1 needs inputs of one shape", prep->op_name);
  } else {
    snprintf(buf, size, "the inputs of %s must have equal dims except on axis %" PRId64,
             prep->op_name, axis);
  }
}

cleave_status cleave_concat_common(const cleave_concat_prepared *prep, int64_t j, int64_t axis,
                                   cleave_dim *dim, cleave_error *err) {
  const cleave_concat_inputs *in = prep->inputs;
  cleave_dim acc = cleave_dim_any();
  size_t first = 0, seen = 0; /* the first input of static rank, and how many so far */
  for (size_t i = 0; i < in->count; i++) {
    cleave_shape_view view = cleave_concat_view(in, i);
    if (view.rank == CLEAVE_VIEW_RANK_DYNAMIC) {
      continue;
    }
    cleave_dim d = cleave_view_dim(&view, j);
    if (seen++ == 0) {
      acc = d;
      first = i;
      continue;
    }
    cleave_dim common = {cleave_max64(acc.lo, d.lo), CLEAVE_DIM_UNBOUNDED};
    if (cleave_dim_bounded(acc) || cleave_dim_bounded(d)) {
      common.hi = !cleave_dim_bounded(acc) ? d.hi
                  : !cleave_dim_bounded(d) ? acc.hi
                                           : cleave_min64(acc.hi, d.hi);
    }
    if (cleave_dim_bounded(common) && common.lo > common.hi) {
      char got[CLEAVE_DIM_TEXT_SIZE], want[CLEAVE_DIM_TEXT_SIZE], rule[160], before[96];
      cleave_dim_text(got, sizeof got, d);
      cleave_dim_text(want, sizeof want, acc);
      common_rule(prep, axis, rule, sizeof rule);
      /* When the inputs before have one value there (static shapes), the first of them names
       * it; otherwise it is the values they still have in common. */
      if (seen == 2 || points_between(prep, first, i, j)) {
        snprintf(before, sizeof before, "inputs[%zu].shape[%" PRId64 "] is", first, j);
      } else {
        snprintf(before, sizeof before, "inputs[%zu..%zu].shape[%" PRId64 "] can only be", first,
                 i - 1, j);
      }
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                         "inputs[%zu].shape[%" PRId64 "] is %s but %s %s: %s", i, j, got, before,
                         want, rule);
    }
    acc = common;
  }
  *dim = acc;
  return CLEAVE_OK;
}

cleave_status cleave_concat_sum(const cleave_concat_prepared *prep, int64_t j, cleave_dim *dim,
                                cleave_error *err) {
  const cleave_concat_inputs *in = prep->inputs;
  cleave_dim sum = cleave_dim_point(0);
  for (size_t i = 0; i < in->count; i++) {
    cleave_shape_view view = cleave_concat_view(in, i);
    if (view.rank == CLEAVE_VIEW_RANK_DYNAMIC) {
      sum.hi = CLEAVE_DIM_UNBOUNDED;
      continue;
    }
    cleave_dim d = cleave_view_dim(&view, j);
    if (cleave_add_overflows(sum.lo, d.lo, &sum.lo)) {
      bool points = points_up_to(prep, i, j);
      return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                         "inputs[0..%zu].shape[%" PRId64 "] sum above 2^63-1%s", i, j,
                         points ? "" : " even at their lower bounds");
    }
    if (!cleave_dim_bounded(d)) {
      sum.hi = CLEAVE_DIM_UNBOUNDED;
    } else if (cleave_dim_bounded(sum) && cleave_add_overflows(sum.hi, d.hi, &sum.hi)) {
      /* No dimension exceeds INT64_MAX: the inputs whose dims sum above it are not valid. */
      sum.hi = INT64_MAX;
    }
  }
  *dim = sum;
  return CLEAVE_OK;
}

cleave_status cleave_concat_dim(const cleave_concat_prepared *prep, int64_t axis, int64_t p,
                                cleave_dim *dim, cleave_error *err) {
  if (prep->stack) {
    if (p == axis) {
      *dim = cleave_dim_point((int64_t)prep->inputs->count);
      return CLEAVE_OK;
    }
    return cleave_concat_common(prep, p < axis ? p : p - 1, axis, dim, err);
  }
  if (p == axis) {
    return cleave_concat_sum(prep, p, dim, err);
  }
  return cleave_concat_common(prep, p, axis, dim, err);
}

cleave_status cleave_concat_at(const cleave_concat_prepared *prep, int64_t axis, cleave_dim *dims,
                               cleave_error *err) {
  for (int64_t p = 0; p < prep->output_rank; p++) {
    cleave_dim d;
    cleave_status st = cleave_concat_dim(prep, axis, p, &d, err);
    if (st != CLEAVE_OK) {
      return st;
    }
    if (dims != NULL) {
      dims[p] = d;
    }
  }
  return CLEAVE_OK;
}

cleave_status cleave_concat_check_output_size(const cleave_concat_prepared *prep, int64_t axis,
                                              cleave_error *err) {
  /* Static shapes whose dims were checked: every dim is a point, and an empty output has byte
   * size 0 whatever its other dims. */
  int64_t r = prep->output_rank;
  for (int64_t p = 0; p < r; p++) {
    cleave_dim d;
    cleave_concat_dim(prep, axis, p, &d, NULL);
    if (d.lo == 0) {
      return CLEAVE_OK;
    }
  }
  bool packed = cleave_is_packed(prep->type.dtype);
  int64_t bytes = packed ? 1 : prep->element_size;
  for (int64_t p = 0; p < r; p++) {
    cleave_dim d;
    cleave_concat_dim(prep, axis, p, &d, NULL);
    if (!cleave_mul_overflows(bytes, d.lo, &bytes)) {
      continue;
    }
    /* The output's shape as text, "..." when it does not fit (as cleave_format_shape). */
    char dims[160], name[CLEAVE_TYPE_TEXT];
    size_t at = (size_t)snprintf(dims, sizeof dims, "[");
    for (int64_t q = 0; q < r && at < sizeof dims; q++) {
      cleave_concat_dim(prep, axis, q, &d, NULL);
      at += (size_t)snprintf(dims + at, sizeof dims - at, "%s%" PRId64, q > 0 ? "," : "", d.lo);
    }
    if (at + 2 > sizeof dims) {
      snprintf(dims + sizeof dims - 5, 5, "...]");
    } else {
      snprintf(dims + at, sizeof dims - at, "]");
    }
    cleave_format_type(name, sizeof name, prep->type);
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW, "the output of shape %s and type %s has %s",
                       dims, name,
                       packed ? "more than 2^63-1 elements" : "a byte size above 2^63-1");
  }
  return CLEAVE_OK;
}
