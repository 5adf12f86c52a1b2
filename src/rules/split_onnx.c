/*
 * ONNX SplitToSequence-11/-24 and Split-1/2/11/13/18 (docs/operators.md sections 4 and 5), on an
 * axis dimension interval.
 */
#include "rules/rules.h"

/*
 * SplitToSequence with a known scalar split s >= 1: ceil(d/s) elements, all s but the last,
 * which is d - (count-1)*s. When every d gives the same count C, d lies in ((C-1)s, Cs] and the
 * last element is d - (C-1)s. When the count varies, d takes m+1 for the smallest multiple m of s
 * in d (count varies, so m < hi), whose last element is 1; the longest element is s once d >= s,
 * else d itself: the hull is [1, min(s, hi)].
 */
static void sequence_chunks(int64_t s, cleave_dim d, cleave_split_hull *hull) {
  int64_t c_lo = cleave_ceil_div(d.lo, s);
  if (cleave_dim_bounded(d) && cleave_ceil_div(d.hi, s) == c_lo) {
    /* (c_lo - 1) * s < lo, so this cannot overflow. */
    int64_t full = c_lo > 0 ? (c_lo - 1) * s : 0;
    cleave_hull_uniform(hull, cleave_dim_point(c_lo), cleave_dim_point(s),
                        cleave_dim_range(d.lo - full, d.hi - full));
    return;
  }
  cleave_dim count = cleave_dim_range(c_lo, cleave_dim_bounded(d) ? cleave_ceil_div(d.hi, s)
                                                                  : CLEAVE_DIM_UNBOUNDED);
  cleave_dim element = cleave_dim_range(1, cleave_dim_bounded(d) ? cleave_min64(s, d.hi) : s);
  cleave_hull_uniform(hull, count, element, element);
}

/*
 * SplitToSequence with an unknown scalar split s >= 1: d = 0 gives no element; d >= 1 gives from
 * 1 (s >= d) to d (s = 1) elements, and any length in [1, d] (s = that length).
 */
static void sequence_unknown_chunks(cleave_dim d, cleave_split_hull *hull) {
  cleave_dim count = cleave_dim_range(d.lo == 0 ? 0 : 1, d.hi);
  cleave_dim element = cleave_dim_range(1, d.hi);
  if (count.lo == count.hi) {
    /* d = [0, 0] (empty) or [1, 1] (one element of 1). */
    element = cleave_dim_point(1);
  }
  cleave_hull_uniform(hull, count, element, element);
}

cleave_status cleave_sequence_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                 cleave_split_hull *hull, cleave_error *err) {
  const cleave_op *op = prep->op;
  const cleave_values *split = &op->lengths;
  bool known = !prep->lengths_unknown;
  if (op->keepdims != 0 && op->keepdims != 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ATTRIBUTE,
                       "keepdims is %" PRId64 " but must be 0 or 1", op->keepdims);
  }
  if (cleave_values_absent(split)) {
    cleave_hull_uniform(hull, d, cleave_dim_point(1), cleave_dim_point(1));
    hull->axis_removed = op->keepdims == 0;
    return CLEAVE_OK;
  }
  cleave_status st =
      cleave_values_check_known(split, "split", CLEAVE_ERROR_INVALID_SPLIT, known, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (split->dtype != CLEAVE_I32 && split->dtype != CLEAVE_I64) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "split must be int32 or int64, got %s",
                       cleave_dtype_name(split->dtype));
  }
  if (split->rank >= 2) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "split has rank %zu but must be a scalar or 1-D", split->rank);
  }
  if (split->rank == 1) {
    return cleave_resolve_list(split, "split", false, known, axis, d, hull, err);
  }
  if (!known) {
    sequence_unknown_chunks(d, hull);
    return CLEAVE_OK;
  }
  int64_t s = cleave_values_get(split, 0).value;
  if (s < 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "split is %" PRId64 " but a scalar split must be >= 1", s);
  }
  sequence_chunks(s, d, hull);
  return CLEAVE_OK;
}

/* ONNX Split's output count: a scalar of an integer type whose value fits in int64. */
static cleave_status read_num_outputs(const cleave_values *v, const char *op_name, int64_t *n,
                                      cleave_error *err) {
  cleave_status st =
      cleave_values_check_known(v, "num_outputs", CLEAVE_ERROR_INVALID_SPLIT, true, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (v->rank != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "num_outputs must be a scalar for %s, got rank %zu", op_name, v->rank);
  }
  cleave_int value = cleave_values_get(v, 0);
  if (!value.fits) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "num_outputs is %" PRIu64 ", which does not fit in int64",
                       value.unsigned_value);
  }
  *n = value.value;
  return CLEAVE_OK;
}

cleave_status cleave_onnx_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                   cleave_split_hull *hull, cleave_error *err) {
  const cleave_op *op = prep->op;
  const char *op_name = prep->op_name;
  const cleave_values *split = &op->lengths;
  bool has_split = !cleave_values_absent(split), has_n = !cleave_values_absent(&op->num_outputs);
  bool known = !prep->lengths_unknown;
  int64_t n = 0;
  /* Filled only on the failing paths below: this runs for every static inference. */
  char dim_text[CLEAVE_DIM_TEXT_SIZE];
  if (has_n) {
    cleave_status st = read_num_outputs(&op->num_outputs, op_name, &n, err);
    if (st != CLEAVE_OK) {
      return st;
    }
  }
  if (has_split) {
    /* Split-1's `split` is the int64 attribute or the input, which has the data's type T (a
     * float type) and whole-number values (docs/operators.md section 5); later versions take int64
     * only. */
    bool real = cleave_is_real_split_type(split->dtype);
    cleave_status st =
        real ? cleave_values_check_layout_known(split, "split", known, err)
             : cleave_values_check_known(split, "split", CLEAVE_ERROR_INVALID_SPLIT, known, err);
    if (st != CLEAVE_OK) {
      return st;
    }
    char type_text[CLEAVE_TYPE_TEXT];
    if (prep->version == 1 && (split->dtype != CLEAVE_I64 && split->dtype != prep->data_dtype)) {
      cleave_format_type(type_text, sizeof type_text, cleave_type_of(split->dtype));
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "split must be the int64 attribute or an input of the data's type T "
                         "(%s) for %s, got %s",
                         cleave_dtype_name(prep->data_dtype), op_name, type_text);
    }
    if (prep->version > 1 && split->dtype != CLEAVE_I64) {
      cleave_format_type(type_text, sizeof type_text, cleave_type_of(split->dtype));
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "split must be int64 for %s, got %s",
                         op_name, type_text);
    }
    st = cleave_require_1d(split, "split", op_name, err);
    if (st != CLEAVE_OK) {
      return st;
    }
  }
  if (prep->version >= 18) {
    if (has_split == has_n) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s takes exactly one of split and num_outputs, got %s", op_name,
                         has_split ? "both" : "neither");
    }
    if (has_split) {
      return cleave_resolve_list(split, "split", false, known, axis, d, hull, err);
    }
    if (n < 1) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "num_outputs is %" PRId64 " but must be >= 1", n);
    }
    if (!cleave_ceil_parts(n, d, hull)) {
      if (d.lo == d.hi) {
        return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                           "%s with num_outputs = %" PRId64 " cannot split data.shape[%" PRId64
                           "] = %" PRId64 ": %" PRId64 " chunks of %" PRId64
                           " leave a negative length for the last output",
                           op_name, n, axis, d.lo, n - 1, cleave_ceil_div(d.lo, n));
      }
      cleave_dim_text(dim_text, sizeof dim_text, d);
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "%s with num_outputs = %" PRId64 " cannot split data.shape[%" PRId64
                         "] = %s: for every value d in that range, %" PRId64
                         " chunks of ceil(d/%" PRId64 ") leave a negative length for the last "
                         "output",
                         op_name, n, axis, dim_text, n - 1, n);
    }
    return CLEAVE_OK;
  }
  if (has_n && n < 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "the node's output count num_outputs is %" PRId64 " but must be >= 1", n);
  }
  if (has_split) {
    if (has_n && (int64_t)split->count != n) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "split has %zu %s but the node has %" PRId64 " %s", split->count,
                         split->count == 1 ? "entry" : "entries", n, n == 1 ? "output" : "outputs");
    }
    return cleave_resolve_list(split, "split", false, known, axis, d, hull, err);
  }
  if (!has_n) {
    /* The same fault as Split-18's "neither" below: the same status. */
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "%s without split needs the node's number of outputs (num_outputs)",
                       op_name);
  }
  if (!cleave_equal_parts(n, d, hull)) {
    if (d.lo == d.hi) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "data.shape[%" PRId64 "] = %" PRId64 " is not divisible into the %" PRId64
                         " equal outputs of %s",
                         axis, d.lo, n, op_name);
    }
    cleave_dim_text(dim_text, sizeof dim_text, d);
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "data.shape[%" PRId64 "] = %s holds no value divisible into the %" PRId64
                       " equal outputs of %s",
                       axis, dim_text, n, op_name);
  }
  return CLEAVE_OK;
}
