/*
 * The checks before the split description, in the order of docs/operators.md: the operator and its
 * version, the element type, the data shape (and, for static shapes, its byte size), then the
 * axis. `cleave_prepare` runs them once per inference; `cleave_split_at` (split.c) then
 * applies the split rules to one axis dimension.
 */
#include "rules/rules.h"

cleave_status cleave_check_dim(const cleave_shape_view *shape, int64_t i, const char *tensor,
                               cleave_error *err) {
  if (shape->points != NULL) {
    if (shape->points[i] < 0) {
      return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                         "%s.shape[%" PRId64 "] is %" PRId64 " but dimensions must be >= 0", tensor,
                         i, shape->points[i]);
    }
    return CLEAVE_OK;
  }
  /* A partial dimension must be an interval of non-negative integers. */
  cleave_dim d = shape->dims[i];
  if (d.lo < 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                       "%s.shape[%" PRId64 "] has lower bound %" PRId64
                       " but dimensions must be >= 0",
                       tensor, i, d.lo);
  }
  if (d.hi != CLEAVE_DIM_UNBOUNDED && d.hi < d.lo) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                       "%s.shape[%" PRId64 "] is [%" PRId64 ", %" PRId64
                       "]: the upper bound must be >= the lower bound (or unbounded)",
                       tensor, i, d.lo, d.hi);
  }
  return CLEAVE_OK;
}

cleave_status cleave_element_size(cleave_type type, int64_t *size, int64_t *bits,
                                  cleave_bit_order *order, cleave_error *err) {
  if (cleave_is_packed(type.dtype)) {
    *size = 0;
    return cleave_type_bits(type, bits, order, err);
  }
  cleave_status st = cleave_type_size(type, size, err);
  /* 8 * the byte size, or 0 when that exceeds int64 (elements above 2^60 bytes). */
  if (st == CLEAVE_OK && cleave_mul_overflows(*size, 8, bits)) {
    *bits = 0;
  }
  *order = CLEAVE_BIT_ORDER_NONE;
  return st;
}

cleave_status cleave_check_byte_size(const int64_t *shape, int64_t rank, cleave_type type,
                                     int64_t element_size, const char *tensor, cleave_error *err) {
  /* An empty tensor has byte size 0 whatever its other dims, so only a non-empty one can
   * overflow; and then every partial product is bounded by the total. */
  for (int64_t i = 0; i < rank; i++) {
    if (shape[i] == 0) {
      return CLEAVE_OK;
    }
  }
  /* Packed types count elements first: their byte size is rounded up per tensor. */
  bool packed = cleave_is_packed(type.dtype);
  int64_t bytes = packed ? 1 : element_size;
  for (int64_t i = 0; i < rank; i++) {
    if (cleave_mul_overflows(bytes, shape[i], &bytes)) {
      char dims[160], name[CLEAVE_TYPE_TEXT];
      cleave_format_shape(dims, sizeof dims, shape, (size_t)rank);
      cleave_format_type(name, sizeof name, type);
      return cleave_fail(err, CLEAVE_ERROR_OVERFLOW, "%s of shape %s and type %s has %s", tensor,
                         dims, name,
                         packed ? "more than 2^63-1 elements" : "a byte size above 2^63-1");
    }
  }
  return CLEAVE_OK;
}

static cleave_status check_shape(cleave_type type, const cleave_shape_view *shape, bool static_mode,
                                 cleave_prepared *prep, cleave_error *err) {
  /* Byte-sized types are sized in bytes, packed ones in bits: a byte size in bits would refuse
   * elements of more than 2^60 bytes whose shapes' byte sizes fit. Partial inference does not
   * depend on the size at all (docs/operators.md section 1): it only checks that the type is valid.
   */
  bool packed = cleave_is_packed(type.dtype);
  cleave_status st = static_mode || packed
                         ? cleave_element_size(type, &prep->element_size, &prep->element_bits,
                                               &prep->bit_order, err)
                         : cleave_type_check(type, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  int64_t rank = shape->rank;
  if (rank == CLEAVE_VIEW_RANK_DYNAMIC) {
    return CLEAVE_OK;
  }
  /* Ranks are the caller's size_t, which may not fit in int64 (`rank` is clamped). */
  char rank_text[CLEAVE_VALUE_TEXT];
  snprintf(rank_text, sizeof rank_text, "%zu", shape->static_rank);
  if (rank > 0 && shape->points == NULL && shape->dims == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the data shape is NULL but its rank is %s", rank_text);
  }
  if (rank > INT32_MAX) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE, "rank %s is too large", rank_text);
  }
  for (int64_t i = 0; i < rank; i++) {
    st = cleave_check_dim(shape, i, "data", err);
    if (st != CLEAVE_OK) {
      return st;
    }
  }
  /* Only static shapes have a byte size (docs/operators.md section 1). */
  if (static_mode) {
    return cleave_check_byte_size(shape->points, rank, type, prep->element_size, "data", err);
  }
  return CLEAVE_OK;
}

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
    cleave_status st =
        cleave_values_check_known(v, "axis", CLEAVE_ERROR_INVALID_AXIS, !unknown, err);
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
  char text[CLEAVE_VALUE_TEXT];
  cleave_format_int(text, sizeof text, value);
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
  cleave_status st =
      cleave_resolve_version(op, &prep->version, prep->op_name, sizeof prep->op_name, err);
  if (st == CLEAVE_OK) {
    st = check_shape(type, shape, static_mode, prep, err);
  }
  if (st == CLEAVE_OK) {
    st = cleave_check_op_type(prep, type, err);
  }
  if (st != CLEAVE_OK) {
    return st;
  }
  return resolve_axis(op, prep->op_name, shape->rank, (unknown & CLEAVE_UNKNOWN_AXIS) != 0,
                      &prep->axis, err);
}
