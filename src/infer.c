/*
 * Shape inference: the one set of rules that every entry point uses, so that partial-shape
 * inference, static inference, one-shot runs and plans cannot drift apart (SEMANTICS.md 1-6).
 *
 * The rules work on intervals: a static shape is a partial shape whose dimensions are points, and
 * then every interval below is a point and every message is the static one. `cleave_prepare`
 * runs the checks that do not depend on the axis position; `cleave_split_at` applies the split
 * rules to one axis dimension; `cleave_resolve` is the static case of both.
 *
 * The checks run in a fixed order, and the first broken rule is reported: the operator and its
 * version, the element type, the data shape and its byte size, the axis, the attributes, then the
 * split description. Within a split description the checks that do not involve the axis
 * dimension come first.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

/* Text buffer sizes for messages. */
enum { VALUE_SIZE = 32, TYPE_SIZE = 48, RANGE_SIZE = 48 };

static int64_t min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b) {
  return a > b ? a : b;
}

/* ceil(a / b) for a >= 0, b >= 1, without overflow. */
static int64_t ceil_div(int64_t a, int64_t b) {
  return a / b + (a % b != 0);
}

/* ---- operator versions and element types ------------------------------------------------- */

static const int64_t split_versions[] = {1, 2, 11, 13, 18};
static const int64_t sequence_versions[] = {11, 24};

/* The operator version in force at `opset`: the largest listed version not above it. */
static cleave_status resolve_version(const char *op_name, const int64_t *versions, size_t count,
                                     int64_t opset, int64_t *version, cleave_error *err) {
  if (opset < versions[0]) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_VERSION,
                       "opset %" PRId64 " is below %s's first version %" PRId64, opset, op_name,
                       versions[0]);
  }
  for (size_t i = count; i-- > 0;) {
    if (versions[i] <= opset) {
      *version = versions[i];
      break;
    }
  }
  return CLEAVE_OK;
}

/* The fifteen ONNX tensor types; NumPy's fixed-width strings count as `string`. */
static bool onnx_common_type(cleave_dtype dtype) {
  switch (dtype) {
  case CLEAVE_BOOLEAN:
  case CLEAVE_I8:
  case CLEAVE_I16:
  case CLEAVE_I32:
  case CLEAVE_I64:
  case CLEAVE_U8:
  case CLEAVE_U16:
  case CLEAVE_U32:
  case CLEAVE_U64:
  case CLEAVE_F16:
  case CLEAVE_F32:
  case CLEAVE_F64:
  case CLEAVE_C64:
  case CLEAVE_C128:
  case CLEAVE_STRING:
  case CLEAVE_BYTES:
  case CLEAVE_UNICODE:
    return true;
  default:
    return false;
  }
}

/* Whether an ONNX operator version accepts the element type (SEMANTICS.md 4 and 5). */
static bool onnx_accepts(cleave_op_kind kind, int64_t version, cleave_dtype dtype) {
  if (kind == CLEAVE_OP_ONNX_SPLIT && version == 1) {
    return dtype == CLEAVE_F16 || dtype == CLEAVE_F32 || dtype == CLEAVE_F64;
  }
  if (dtype == CLEAVE_BF16) {
    return kind == CLEAVE_OP_ONNX_SPLIT ? version >= 13 : version >= 24;
  }
  return onnx_common_type(dtype);
}

/* ---- the data shape ---------------------------------------------------------------------- */

/* A partial dimension must be an interval of non-negative integers. */
static cleave_status check_partial_dim(cleave_dim d, int64_t i, cleave_error *err) {
  if (d.lo < 0) {
    return cleave_fail(
        err, CLEAVE_ERROR_INVALID_SHAPE,
        "data.shape[%" PRId64 "] has lower bound %" PRId64 " but dimensions must be >= 0", i, d.lo);
  }
  if (d.hi != CLEAVE_DIM_UNBOUNDED && d.hi < d.lo) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                       "data.shape[%" PRId64 "] is [%" PRId64 ", %" PRId64
                       "]: the upper bound must be >= the lower bound (or unbounded)",
                       i, d.lo, d.hi);
  }
  return CLEAVE_OK;
}

/* Fills the element size (bytes for byte-sized types, bits for packed ones) and bit order. */
static cleave_status element_size_of(cleave_type type, cleave_prepared *prep, cleave_error *err) {
  if (cleave_is_packed(type.dtype)) {
    prep->element_size = 0;
    return cleave_type_bits(type, &prep->element_bits, &prep->bit_order, err);
  }
  cleave_status st = cleave_type_size(type, &prep->element_size, err);
  /* 8 * the byte size, or 0 when that exceeds int64 (elements above 2^60 bytes). */
  if (st == CLEAVE_OK && cleave_mul_overflows(prep->element_size, 8, &prep->element_bits)) {
    prep->element_bits = 0;
  }
  prep->bit_order = CLEAVE_BIT_ORDER_NONE;
  return st;
}

static cleave_status check_shape(cleave_type type, const cleave_shape_view *shape, bool static_mode,
                                 cleave_prepared *prep, cleave_error *err) {
  /* Byte-sized types are sized in bytes, packed ones in bits: a byte size in bits would refuse
   * elements of more than 2^60 bytes whose shapes' byte sizes fit. Partial inference does not
   * depend on the size at all (SEMANTICS.md 1): it only checks that the type is valid. */
  bool packed = cleave_is_packed(type.dtype);
  cleave_status st =
      static_mode || packed ? element_size_of(type, prep, err) : cleave_type_check(type, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  int64_t rank = shape->rank;
  if (rank == CLEAVE_VIEW_RANK_DYNAMIC) {
    return CLEAVE_OK;
  }
  /* Ranks are the caller's size_t, which may not fit in int64 (`rank` is clamped). */
  char rank_text[VALUE_SIZE];
  snprintf(rank_text, sizeof rank_text, "%zu", shape->static_rank);
  if (rank > 0 && shape->points == NULL && shape->dims == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the data shape is NULL but its rank is %s", rank_text);
  }
  if (rank > INT32_MAX) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE, "rank %s is too large", rank_text);
  }
  bool empty = false;
  for (int64_t i = 0; i < rank; i++) {
    if (shape->points != NULL) {
      if (shape->points[i] < 0) {
        return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                           "data.shape[%" PRId64 "] is %" PRId64 " but dimensions must be >= 0", i,
                           shape->points[i]);
      }
    } else {
      st = check_partial_dim(shape->dims[i], i, err);
      if (st != CLEAVE_OK) {
        return st;
      }
    }
    empty = empty || cleave_view_dim(shape, i).hi == 0;
  }
  /* Only static shapes have a byte size (SEMANTICS.md 1). An empty tensor has byte size 0
   * whatever its other dims, so only a non-empty one can overflow; and then every partial product
   * is bounded by the total. */
  if (static_mode && !empty) {
    /* Packed types count elements first: their byte size is rounded up per tensor. */
    int64_t bytes = packed ? 1 : prep->element_size;
    for (int64_t i = 0; i < rank; i++) {
      if (cleave_mul_overflows(bytes, shape->points[i], &bytes)) {
        char dims[160], name[TYPE_SIZE];
        cleave_format_shape(dims, sizeof dims, shape->points, (size_t)rank);
        cleave_format_type(name, sizeof name, type);
        return cleave_fail(err, CLEAVE_ERROR_OVERFLOW, "data of shape %s and type %s has %s", dims,
                           name, packed ? "more than 2^63-1 elements" : "a byte size above 2^63-1");
      }
    }
  }
  return CLEAVE_OK;
}

/* ---- values ------------------------------------------------------------------------------ */

/* cleave_values_check, except that unknown values need no data. */
static cleave_status check_values(const cleave_values *values, const char *name,
                                  cleave_status rule_status, bool known, cleave_error *err) {
  static const int64_t placeholder = 0;
  cleave_values checked = *values;
  if (!known) {
    checked.data = &placeholder;
  }
  return cleave_values_check(&checked, name, rule_status, err);
}

/* check_values without the type check (ONNX Split-1's float `split` input). */
static cleave_status check_values_layout(const cleave_values *values, const char *name, bool known,
                                         cleave_error *err) {
  static const int64_t placeholder = 0;
  cleave_values checked = *values;
  if (!known) {
    checked.data = &placeholder;
  }
  return cleave_values_check_layout(&checked, name, err);
}

static void format_int(char *buf, size_t size, cleave_int v) {
  if (v.fits) {
    snprintf(buf, size, "%" PRId64, v.value);
  } else {
    snprintf(buf, size, "%" PRIu64, v.unsigned_value);
  }
}

/* "a" for a point, "a..b" otherwise: integer ranges in messages (which may be negative). */
static void format_range(char *buf, size_t size, int64_t lo, int64_t hi) {
  if (lo == hi) {
    snprintf(buf, size, "%" PRId64, lo);
  } else {
    snprintf(buf, size, "%" PRId64 "..%" PRId64, lo, hi);
  }
}

/* ---- the axis ---------------------------------------------------------------------------- */

/*
 * Reads the axis per the operator's rules on its rank, then normalises it against `rank`.
 * `*axis` is -1 when the position is unknown: an unknown value, or a dynamic rank.
 */
static cleave_status resolve_axis(const cleave_op *op, const char *op_name, int64_t rank,
                                  bool unknown, int64_t *axis, cleave_error *err) {
  const cleave_values *v = &op->axis;
  cleave_int value = {0, 0, 0.0, true, false};
  bool onnx = op->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE || op->kind == CLEAVE_OP_ONNX_SPLIT;
  if (cleave_values_absent(v)) {
    if (!onnx) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS, "%s needs an axis input", op_name);
    }
  } else {
    cleave_status st = check_values(v, "axis", CLEAVE_ERROR_INVALID_AXIS, !unknown, err);
    if (st != CLEAVE_OK) {
      return st;
    }
    /* VariadicSplit alone also takes a 1-element 1-D axis. */
    bool shape_ok =
        v->rank == 0 || (op->kind == CLEAVE_OP_VARIADIC_SPLIT && v->rank == 1 && v->count == 1);
    if (!shape_ok) {
      if (v->rank == 1) {
        return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                           "axis must be a scalar for %s, got a 1-D tensor of %zu"
                           " value(s)%s",
                           op_name, v->count,
                           op->kind == CLEAVE_OP_VARIADIC_SPLIT ? ""
                                                                : " (only VariadicSplit "
                                                                  "accepts shape [1])");
      }
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "axis must be a scalar for %s, got a tensor of rank %zu", op_name,
                         v->rank);
    }
    if (!unknown) {
      value = cleave_values_get(v, 0);
    }
  }
  *axis = -1;
  if (unknown) {
    if (rank == 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "no axis is valid for data of rank 0 (a scalar cannot be split)");
    }
    return CLEAVE_OK;
  }
  char text[VALUE_SIZE];
  format_int(text, sizeof text, value);
  if (rank == CLEAVE_VIEW_RANK_DYNAMIC) {
    /* Some rank fits any axis, but ranks are at most INT32_MAX (see check_shape). */
    if (!value.fits || value.value < -(int64_t)INT32_MAX || value.value >= INT32_MAX) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "axis %s is out of range for data of any rank (ranks are at most %d)",
                         text, INT32_MAX);
    }
    return CLEAVE_OK;
  }
  int64_t r = rank;
  if (!value.fits || value.value < -r || value.value >= r) {
    if (r == 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                         "axis %s is out of range for data of rank 0 (a scalar cannot be split)",
                         text);
    }
    return cleave_fail(err, CLEAVE_ERROR_INVALID_AXIS,
                       "axis %s is out of range [%" PRId64 ", %" PRId64
                       "] for data of rank %" PRId64,
                       text, -r, r - 1, r);
  }
  *axis = value.value < 0 ? value.value + r : value.value;
  return CLEAVE_OK;
}

cleave_status cleave_prepare(const cleave_op *op, unsigned unknown, cleave_type type,
                             const cleave_shape_view *shape, bool static_mode,
                             cleave_prepared *prep, cleave_error *err) {
  if (op == NULL || prep == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the operator description is NULL");
  }
  *prep = (cleave_prepared){
      .op = op, .version = 1, .data_dtype = type.dtype, .shape = *shape, .axis = -1};
  prep->lengths_unknown = (unknown & CLEAVE_UNKNOWN_LENGTHS) != 0;
  cleave_status st = CLEAVE_OK;
  switch (op->kind) {
  case CLEAVE_OP_SPLIT:
    snprintf(prep->op_name, sizeof prep->op_name, "OpenVINO Split-1");
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    snprintf(prep->op_name, sizeof prep->op_name, "VariadicSplit-1");
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    st = resolve_version("SplitToSequence", sequence_versions,
                         sizeof sequence_versions / sizeof sequence_versions[0], op->opset,
                         &prep->version, err);
    snprintf(prep->op_name, sizeof prep->op_name, "SplitToSequence-%" PRId64, prep->version);
    break;
  case CLEAVE_OP_ONNX_SPLIT:
    st = resolve_version("ONNX Split", split_versions,
                         sizeof split_versions / sizeof split_versions[0], op->opset,
                         &prep->version, err);
    snprintf(prep->op_name, sizeof prep->op_name, "ONNX Split-%" PRId64, prep->version);
    break;
  default:
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "operator kind %d is not a cleave_op_kind", (int)op->kind);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  bool onnx = op->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE || op->kind == CLEAVE_OP_ONNX_SPLIT;
  st = check_shape(type, shape, static_mode, prep, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (onnx && !onnx_accepts(op->kind, prep->version, type.dtype)) {
    char name[TYPE_SIZE];
    cleave_format_type(name, sizeof name, type);
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "%s does not accept %s data%s",
                       prep->op_name, name,
                       type.dtype == CLEAVE_BF16 && op->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE
                           ? " (bf16 needs opset 24)"
                       : type.dtype == CLEAVE_BF16 && prep->version > 1 ? " (bf16 needs opset 13)"
                                                                        : "");
  }
  return resolve_axis(op, prep->op_name, shape->rank, (unknown & CLEAVE_UNKNOWN_AXIS) != 0,
                      &prep->axis, err);
}

/* ---- split descriptions ------------------------------------------------------------------ */

/* Everything below works on the axis dimension d = [lo, hi] (hi possibly unbounded) and gives
 * each output's length as the tightest interval over the values of d (and of unknown lengths)
 * for which the operator is valid. */

static void set_uniform(cleave_split_hull *hull, cleave_dim count, cleave_dim chunk,
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
static cleave_status resolve_list(const cleave_values *list, const char *name, bool allow_minus_one,
                                  bool known, int64_t axis, cleave_dim d, cleave_split_hull *hull,
                                  cleave_error *err) {
  int64_t sum = 0, minus_one = -1;
  if (list->count == 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "%s is empty: it needs at least one entry",
                       name);
  }
  if (!known) {
    cleave_dim each = list->count == 1 ? d : cleave_dim_range(0, d.hi);
    set_uniform(hull, cleave_dim_point((int64_t)list->count), each, each);
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
      char rest[RANGE_SIZE];
      format_range(rest, sizeof rest, d.lo - sum, d.hi - sum);
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
    hull->resolved = cleave_dim_range(max64(d.lo, sum) - sum,
                                      cleave_dim_bounded(d) ? d.hi - sum : CLEAVE_DIM_UNBOUNDED);
  }
  return CLEAVE_OK;
}

/* Checks the rank of a list of lengths: 1-D only. */
static cleave_status require_1d(const cleave_values *list, const char *name, const char *op_name,
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
static bool equal_parts(int64_t n, cleave_dim d, cleave_split_hull *hull) {
  cleave_dim part = cleave_dim_range(ceil_div(d.lo, n), CLEAVE_DIM_UNBOUNDED);
  if (cleave_dim_bounded(d)) {
    part.hi = d.hi / n;
    if (part.lo > part.hi) {
      return false;
    }
  }
  set_uniform(hull, cleave_dim_point(n), part, part);
  return true;
}

static cleave_status resolve_split_1(const cleave_op *op, int64_t axis, cleave_dim d,
                                     cleave_split_hull *hull, cleave_error *err) {
  int64_t n = op->num_splits;
  if (n < 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                       "num_splits is %" PRId64 " but must be >= 1", n);
  }
  if (!equal_parts(n, d, hull)) {
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

static cleave_status resolve_variadic(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                      cleave_split_hull *hull, cleave_error *err) {
  const cleave_values *list = &prep->op->lengths;
  if (cleave_values_absent(list)) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT, "VariadicSplit-1 needs split_lengths");
  }
  bool known = !prep->lengths_unknown;
  cleave_status st = check_values(list, "split_lengths", CLEAVE_ERROR_INVALID_SPLIT, known, err);
  if (st == CLEAVE_OK) {
    st = require_1d(list, "split_lengths", "VariadicSplit-1", err);
  }
  if (st == CLEAVE_OK) {
    st = resolve_list(list, "split_lengths", true, known, axis, d, hull, err);
  }
  return st;
}

/*
 * SplitToSequence with a known scalar split s >= 1: ceil(d/s) elements, all s but the last,
 * which is d - (count-1)*s. When every d gives the same count C, d lies in ((C-1)s, Cs] and the
 * last element is d - (C-1)s. When the count varies, d takes m+1 for the smallest multiple m of s
 * in d (count varies, so m < hi), whose last element is 1; the longest element is s once d >= s,
 * else d itself: the hull is [1, min(s, hi)].
 */
static void sequence_chunks(int64_t s, cleave_dim d, cleave_split_hull *hull) {
  int64_t c_lo = ceil_div(d.lo, s);
  if (cleave_dim_bounded(d) && ceil_div(d.hi, s) == c_lo) {
    /* (c_lo - 1) * s < lo, so this cannot overflow. */
    int64_t full = c_lo > 0 ? (c_lo - 1) * s : 0;
    set_uniform(hull, cleave_dim_point(c_lo), cleave_dim_point(s),
                cleave_dim_range(d.lo - full, d.hi - full));
    return;
  }
  cleave_dim count =
      cleave_dim_range(c_lo, cleave_dim_bounded(d) ? ceil_div(d.hi, s) : CLEAVE_DIM_UNBOUNDED);
  cleave_dim element = cleave_dim_range(1, cleave_dim_bounded(d) ? min64(s, d.hi) : s);
  set_uniform(hull, count, element, element);
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
  set_uniform(hull, count, element, element);
}

static cleave_status resolve_sequence(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                      cleave_split_hull *hull, cleave_error *err) {
  const cleave_op *op = prep->op;
  const cleave_values *split = &op->lengths;
  bool known = !prep->lengths_unknown;
  if (op->keepdims != 0 && op->keepdims != 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ATTRIBUTE,
                       "keepdims is %" PRId64 " but must be 0 or 1", op->keepdims);
  }
  if (cleave_values_absent(split)) {
    set_uniform(hull, d, cleave_dim_point(1), cleave_dim_point(1));
    hull->axis_removed = op->keepdims == 0;
    return CLEAVE_OK;
  }
  cleave_status st = check_values(split, "split", CLEAVE_ERROR_INVALID_SPLIT, known, err);
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
    return resolve_list(split, "split", false, known, axis, d, hull, err);
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

/*
 * Split-18 with num_outputs = n >= 2 on d: the first n-1 outputs get c = ceil(d/n), the last
 * gets d - c(n-1), and d is valid when that is >= 0. Write d = qn + r with 0 <= r < n: r = 0 gives
 * c = q and last = q; r >= 1 gives c = q+1 and last = q + r - (n-1), so r is valid when
 * r >= n-1-q. Within block q the valid residues r >= 1 form a run [max(1, n-1-q), n-1] on which
 * last rises to q, and r = 0 gives q too.
 *
 * Hence over d in [lo, hi]: c is monotone in d, so its bounds come from the first and last
 * valid d; the smallest last lies in the first two blocks (the minimum of a full block,
 * max(0, q-n+2), never falls as q grows), and the largest in the last block (from the second
 * block on it holds r = 0, whose last q is above every earlier block's). Everything is computed
 * from (q, r), never from d itself, so nothing overflows.
 */
typedef struct block_acc {
  bool any;
  int64_t c_lo, c_hi, last_lo, last_hi;
} block_acc;

/* Folds the valid residues [ra, rb] of block q into `acc`. */
static void fold_block(int64_t n, int64_t q, int64_t ra, int64_t rb, block_acc *acc) {
  int64_t first_pos = max64(max64(1, ra), n - 1 - q < 1 ? 1 : n - 1 - q);
  bool has_pos = first_pos <= rb, has_zero = ra == 0;
  if (!has_pos && !has_zero) {
    return;
  }
  int64_t c_lo = has_zero ? q : q + 1, c_hi = has_pos ? q + 1 : q;
  /* At a valid residue r >= 1, last = q - (n-1-r) >= 0, and last <= q. */
  int64_t last_lo = has_pos ? q - (n - 1 - first_pos) : q;
  int64_t last_hi = has_zero ? q : q - (n - 1 - rb);
  if (!acc->any) {
    *acc = (block_acc){true, c_lo, c_hi, last_lo, last_hi};
    return;
  }
  acc->c_lo = min64(acc->c_lo, c_lo);
  acc->c_hi = max64(acc->c_hi, c_hi);
  acc->last_lo = min64(acc->last_lo, last_lo);
  acc->last_hi = max64(acc->last_hi, last_hi);
}

/* Sets chunk (c) and last for Split-18 with num_outputs n. Returns false when no d is valid. */
static bool ceil_parts(int64_t n, cleave_dim d, cleave_split_hull *hull) {
  if (n == 1) {
    set_uniform(hull, cleave_dim_point(1), d, d);
    return true;
  }
  bool bounded = cleave_dim_bounded(d);
  int64_t q0 = d.lo / n, r0 = d.lo % n;
  int64_t q1 = bounded ? d.hi / n : INT64_MAX, r1 = bounded ? d.hi % n : n - 1;
  block_acc acc = {false, 0, 0, 0, 0};
  fold_block(n, q0, r0, q1 == q0 ? r1 : n - 1, &acc);
  /* n >= 2, so q <= INT64_MAX / 2 and q + 1, q + 2 do not overflow. */
  if (q1 >= q0 + 1) {
    fold_block(n, q0 + 1, 0, q1 == q0 + 1 ? r1 : n - 1, &acc);
  }
  if (bounded && q1 >= q0 + 2) {
    fold_block(n, q1, 0, r1, &acc);
  }
  if (!acc.any) {
    return false;
  }
  cleave_dim chunk = cleave_dim_range(acc.c_lo, bounded ? acc.c_hi : CLEAVE_DIM_UNBOUNDED);
  cleave_dim last = cleave_dim_range(acc.last_lo, bounded ? acc.last_hi : CLEAVE_DIM_UNBOUNDED);
  set_uniform(hull, cleave_dim_point(n), chunk, last);
  return true;
}

/* ONNX Split's output count: a scalar of an integer type whose value fits in int64. */
static cleave_status read_num_outputs(const cleave_values *v, const char *op_name, int64_t *n,
                                      cleave_error *err) {
  cleave_status st = check_values(v, "num_outputs", CLEAVE_ERROR_INVALID_SPLIT, true, err);
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

static cleave_status resolve_onnx_split(const cleave_prepared *prep, int64_t axis, cleave_dim d,
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
     * float type) and whole-number values (SEMANTICS.md 5); later versions take int64 only. */
    bool real = cleave_is_real_split_type(split->dtype);
    cleave_status st = real ? check_values_layout(split, "split", known, err)
                            : check_values(split, "split", CLEAVE_ERROR_INVALID_SPLIT, known, err);
    if (st != CLEAVE_OK) {
      return st;
    }
    char type_text[TYPE_SIZE];
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
    st = require_1d(split, "split", op_name, err);
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
      return resolve_list(split, "split", false, known, axis, d, hull, err);
    }
    if (n < 1) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                         "num_outputs is %" PRId64 " but must be >= 1", n);
    }
    if (!ceil_parts(n, d, hull)) {
      if (d.lo == d.hi) {
        return cleave_fail(err, CLEAVE_ERROR_INVALID_SPLIT,
                           "%s with num_outputs = %" PRId64 " cannot split data.shape[%" PRId64
                           "] = %" PRId64 ": %" PRId64 " chunks of %" PRId64
                           " leave a negative length for the last output",
                           op_name, n, axis, d.lo, n - 1, ceil_div(d.lo, n));
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
                         "split has %zu entries but the node has %" PRId64 " outputs", split->count,
                         n);
    }
    return resolve_list(split, "split", false, known, axis, d, hull, err);
  }
  if (!has_n) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%s without split needs the node's number of outputs (num_outputs)",
                       op_name);
  }
  if (!equal_parts(n, d, hull)) {
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

cleave_status cleave_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim dim,
                              cleave_split_hull *hull, cleave_error *err) {
  *hull = (cleave_split_hull){.minus_one = -1};
  switch (prep->op->kind) {
  case CLEAVE_OP_SPLIT:
    return resolve_split_1(prep->op, axis, dim, hull, err);
  case CLEAVE_OP_VARIADIC_SPLIT:
    return resolve_variadic(prep, axis, dim, hull, err);
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    return resolve_sequence(prep, axis, dim, hull, err);
  default:
    return resolve_onnx_split(prep, axis, dim, hull, err);
  }
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

/* ---- static shapes ----------------------------------------------------------------------- */

cleave_status cleave_resolve(const cleave_op *op, cleave_type type, const int64_t *shape,
                             size_t rank, cleave_geometry *geom, cleave_error *err) {
  if (op == NULL || geom == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the operator description is NULL");
  }
  *geom = (cleave_geometry){.minus_one = -1};
  /* Ranks above INT32_MAX are rejected by check_shape; clamp so that the conversion is exact
   * for every rank it lets through. */
  int64_t view_rank = rank > (size_t)INT64_MAX ? INT64_MAX : (int64_t)rank;
  cleave_shape_view view = {view_rank, shape, NULL, rank};
  cleave_prepared prep;
  cleave_status st = cleave_prepare(op, CLEAVE_UNKNOWN_NONE, type, &view, true, &prep, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  int64_t axis = prep.axis, d = shape[axis];
  cleave_split_hull hull;
  st = cleave_split_at(&prep, axis, cleave_dim_point(d), &hull, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  /* A point dimension and known values make every interval of the hull a point. */
  geom->info.axis = axis;
  geom->info.axis_dim = d;
  geom->info.element_size = prep.element_size;
  geom->info.element_bits = prep.element_bits;
  geom->info.num_outputs = hull.count.lo;
  geom->info.axis_removed = hull.axis_removed;
  geom->uniform = hull.uniform;
  geom->chunk = hull.chunk.lo;
  geom->last = hull.last.lo;
  geom->list = hull.list;
  geom->minus_one = hull.minus_one;
  geom->resolved = hull.resolved.lo;
  int64_t outer = 1, inner = prep.element_size == 0 ? 1 : prep.element_size;
  bool empty = false;
  for (size_t i = 0; i < rank; i++) {
    empty = empty || shape[i] == 0;
  }
  if (!empty) {
    /* check_shape proved the total fits, so these partial products do. */
    for (int64_t i = 0; i < axis; i++) {
      outer *= shape[i];
    }
    for (size_t i = (size_t)axis + 1; i < rank; i++) {
      inner *= shape[i];
    }
  }
  geom->outer = empty ? 0 : outer;
  geom->inner_bytes = empty ? 0 : inner;
  geom->bits_fit = true;
  geom->bytes_aligned = true;
  if (prep.element_size == 0) {
    /* Packed: inner counted elements (from 1); count the bits, which may not fit in int64 for
     * tensors of more than 2^60 bytes. */
    geom->packed = true;
    geom->msb_first = prep.bit_order == CLEAVE_BIT_ORDER_MSB_FIRST;
    geom->inner_bytes = 0;
    int64_t total = 0;
    geom->bits_fit = !empty && !cleave_mul_overflows(inner, prep.element_bits, &geom->inner_bits) &&
                     !cleave_mul_overflows(outer, d, &total) &&
                     !cleave_mul_overflows(total, geom->inner_bits, &geom->input_bits);
    if (empty) {
      geom->bits_fit = true;
      geom->inner_bits = geom->input_bits = 0;
    }
    /* Byte-aligned when a whole axis row and every output's share of it are whole bytes; then
     * every block starts and ends on a byte boundary. */
    if (geom->bits_fit && !empty) {
      int64_t rest = 0;
      geom->bytes_aligned = d * geom->inner_bits % 8 == 0;
      for (int64_t i = 0; geom->bytes_aligned && i < geom->info.num_outputs; i++) {
        rest = cleave_geometry_length(geom, i) * geom->inner_bits % 8;
        geom->bytes_aligned = rest == 0;
        /* A uniform split has at most two distinct lengths. */
        if (geom->uniform && i == 0 && geom->info.num_outputs > 2) {
          i = geom->info.num_outputs - 2;
        }
      }
    }
  }
  geom->info.output_rank = (int64_t)rank - (geom->info.axis_removed ? 1 : 0);
  return cleave_succeed(err);
}

int64_t cleave_geometry_length(const cleave_geometry *geom, int64_t i) {
  if (geom->uniform) {
    return i == geom->info.num_outputs - 1 ? geom->last : geom->chunk;
  }
  if (i == geom->minus_one) {
    return geom->resolved;
  }
  return cleave_values_get(geom->list, i).value;
}

cleave_status cleave_infer(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                           cleave_split_info *info, int64_t *lengths, size_t capacity,
                           cleave_error *err) {
  if (info == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "cleave_infer needs an info result");
  }
  cleave_geometry geom;
  cleave_status st = cleave_resolve(op, type, shape, rank, &geom, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  *info = cleave_split_info_of(&geom.info);
  if (lengths != NULL) {
    if ((uint64_t)capacity < (uint64_t)geom.info.num_outputs) {
      return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                         "lengths holds %zu entries but the operator has %" PRId64 " outputs",
                         capacity, geom.info.num_outputs);
    }
    for (int64_t i = 0; i < geom.info.num_outputs; i++) {
      lengths[i] = cleave_geometry_length(&geom, i);
    }
  }
  return cleave_succeed(err);
}
