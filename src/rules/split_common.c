/*
 * What the split family's operators share: lists of lengths, equal parts, and the hull's lengths.
 * Each operator's file uses these; the choice of operator is made above them, in split.c.
 */
#include "rules/rules.h"

/* Everything below works on the axis dimension d = [lo, hi] (hi possibly unbounded) and gives
 * each output's length as the tightest interval over the values of d (and of unknown lengths)
 * for which the operator is valid. */

void cleave_hull_uniform(cleave_split_hull *hull, cleave_dim count, cleave_dim chunk,
                         cleave_dim last) {
  hull->uniform = true;
  hull->count = count;
  hull->chunk = chunk;
  hull->last = last;
}

/*
 * Validates a list of lengths (`name` in messages) and sets the hull from it. `allow_minus_one`:
 * VariadicSplit's single -1 entry. Entries must otherwise be >= 0 and sum to d. When the values
 * are unknown, some values fit every d: one entry takes all of d (or is the -1), so an entry is
 * anything in [0, hi], or d itself when it is the only one.
 */
cleave_status cleave_resolve_list(const cleave_values *list, const char *name, bool allow_minus_one,
                                  bool known, int64_t axis, cleave_dim d, cleave_split_hull *hull,
                                  cleave_error *err) {
  int64_t sum = 0, minus_one = -1;
  if (list->count == 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "%s is empty: it needs at least one entry",
                       name);
  }
  if (!known) {
    cleave_dim each = list->count == 1 ? d : cleave_dim_range(0, d.hi);
    cleave_hull_uniform(hull, cleave_dim_point((int64_t)list->count), each, each);
    return CLEAVE_OK;
  }
  for (int64_t i = 0; i < (int64_t)list->count; i++) {
    cleave_int v = cleave_values_get(list, i);
    if (!v.fits && v.real) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s[%" PRId64 "] is %.17g but a length must be a whole number that fits "
                         "in int64",
                         name, i, v.real_value);
    }
    if (!v.fits) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s[%" PRId64 "] is %" PRIu64 ", which does not fit in int64", name, i,
                         v.unsigned_value);
    }
    if (allow_minus_one && v.value == -1) {
      if (minus_one >= 0) {
        return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                           "%s has -1 at index %" PRId64 " and at index %" PRId64
                           "; at most one entry may be -1",
                           name, minus_one, i);
      }
      minus_one = i;
      continue;
    }
    if (v.value < 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s[%" PRId64 "] is %" PRId64 " but entries must be >= %d", name, i,
                         v.value, allow_minus_one ? -1 : 0);
    }
    if (cleave_add_overflows(sum, v.value, &sum)) {
      return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                         "%s overflows int64 when summed up to index %" PRId64, name, i);
    }
  }
  char dim_text[CLEAVE_DIM_TEXT_SIZE];
  bool above_hi = cleave_dim_bounded(d) && sum > d.hi;
  if (above_hi || (minus_one < 0 && sum < d.lo)) {
    cleave_dim_text(dim_text, sizeof dim_text, d);
  }
  if (minus_one >= 0) {
    if (above_hi) {
      char rest[CLEAVE_RANGE_TEXT];
      cleave_format_range(rest, sizeof rest, d.lo - sum, d.hi - sum);
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s other than the -1 sum to %" PRId64 " but data.shape[%" PRId64
                         "] is %s, so the -1 would be %s",
                         name, sum, axis, dim_text, rest);
    }
  } else if (above_hi || sum < d.lo) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "%s sum to %" PRId64 " but data.shape[%" PRId64 "] is %s", name, sum, axis,
                       dim_text);
  }
  hull->uniform = false;
  hull->list = list;
  hull->minus_one = minus_one;
  hull->count = cleave_dim_point((int64_t)list->count);
  if (minus_one >= 0) {
    hull->resolved = cleave_dim_range(cleave_max64(d.lo, sum) - sum,
                                      cleave_dim_bounded(d) ? d.hi - sum : CLEAVE_DIM_UNBOUNDED);
  }
  return CLEAVE_OK;
}

/* Checks the rank of a list of lengths: 1-D only. */
cleave_status cleave_require_1d(const cleave_values *list, const char *name, const char *op_name,
                                cleave_error *err) {
  if (list->rank == 1) {
    return CLEAVE_OK;
  }
  if (list->rank == 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "%s must be 1-D for %s, got a scalar", name,
                       op_name);
  }
  return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "%s must be 1-D for %s, got rank %zu", name,
                     op_name, list->rank);
}

/*
 * n equal parts: the multiples of n in d are [n * ceil(lo/n), n * floor(hi/n)], so each part is in
 * [ceil(lo/n), floor(hi/n)]. Returns false when d holds no multiple of n.
 */
bool cleave_equal_parts(int64_t n, cleave_dim d, cleave_split_hull *hull) {
  cleave_dim part = cleave_dim_range(cleave_ceil_div(d.lo, n), CLEAVE_DIM_UNBOUNDED);
  if (cleave_dim_bounded(d)) {
    part.hi = d.hi / n;
    if (part.lo > part.hi) {
      return false;
    }
  }
  cleave_hull_uniform(hull, cleave_dim_point(n), part, part);
  return true;
}

cleave_dim cleave_split_hull_length(const cleave_split_hull *hull, int64_t i) {
  if (hull->uniform) {
    return i == hull->count.lo - 1 ? hull->last : hull->chunk;
  }
  if (i == hull->minus_one) {
    return hull->resolved;
  }
  return cleave_dim_point(cleave_values_get(hull->list, i).value);
}
