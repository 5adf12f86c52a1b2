/*
 * The library's vocabulary (internal, never installed): statuses and messages, overflow-checked
 * arithmetic, element types, the integer values of axis and split inputs, and the text of a
 * dimension. Every other folder of src/ uses it; it uses only the public header.
 */
#ifndef CLEAVE_CORE_H
#define CLEAVE_CORE_H

#include "cleave.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CLEAVE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLEAVE_PRINTF(f, a)
#endif

/* ---- status.c ---------------------------------------------------------------------------- */

/** Records `status` and a formatted message in `err` (if not NULL) and returns `status`. */
cleave_status cleave_fail(cleave_error *err, cleave_status status, const char *fmt, ...)
    CLEAVE_PRINTF(3, 4);

/** Records success in `err` (if not NULL) and returns CLEAVE_OK. */
cleave_status cleave_succeed(cleave_error *err);

/** Writes `[d0,d1,...]` for a shape into buf (truncated with "..." if it does not fit). */
void cleave_format_shape(char *buf, size_t size, const int64_t *shape, size_t rank);

/* ---- arithmetic -------------------------------------------------------------------------- */

/* Overflow-checked int64 arithmetic: return true on overflow. */
static inline bool cleave_mul_overflows(int64_t a, int64_t b, int64_t *out) {
  return __builtin_mul_overflow(a, b, out);
}
static inline bool cleave_add_overflows(int64_t a, int64_t b, int64_t *out) {
  return __builtin_add_overflow(a, b, out);
}

/** The byte size of `count` packed elements of `bits` (1..8) each: ceil(count * bits / 8), exact
 * for every count >= 0 (no overflow). */
static inline int64_t cleave_packed_bytes(int64_t count, int64_t bits) {
  return count / 8 * bits + (count % 8 * bits + 7) / 8;
}

/** The smaller of two int64 values. */
static inline int64_t cleave_min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

/** The larger of two int64 values. */
static inline int64_t cleave_max64(int64_t a, int64_t b) {
  return a > b ? a : b;
}

/** ceil(a / b) for a >= 0, b >= 1, without overflow. */
static inline int64_t cleave_ceil_div(int64_t a, int64_t b) {
  return a / b + (a % b != 0);
}

/* Text buffer sizes for messages: a value read from an input, a type's name, a range a..b. */
enum { CLEAVE_VALUE_TEXT = 32, CLEAVE_TYPE_TEXT = 48, CLEAVE_RANGE_TEXT = 48 };

/* ---- types.c ----------------------------------------------------------------------------- */

/** True for CLEAVE_I8 .. CLEAVE_U64. */
bool cleave_is_integer(cleave_dtype dtype);

/** True for the packed sub-byte types (CLEAVE_U1 .. CLEAVE_FLOAT4E2M1, u3 and u6 included). */
bool cleave_is_packed(cleave_dtype dtype);

/** Checks that `type` is valid (a known dtype, a width where one is needed and none elsewhere;
 * u3 and u6 are refused) without computing its size. */
cleave_status cleave_type_check(cleave_type type, cleave_error *err);

/** Writes a type's display name ("f32", "S5", "U3") into buf. */
void cleave_format_type(char *buf, size_t size, cleave_type type);

/* ---- values.c ---------------------------------------------------------------------------- */

/** One integer read from a `cleave_values`: its int64 value, or, when it is not an int64,
 * `fits` false and the value in `unsigned_value` (a u64 above INT64_MAX) or `real_value` (a
 * float that is not a whole number in int64's range: ONNX Split-1's `split` input). */
typedef struct cleave_int {
  int64_t value;
  uint64_t unsigned_value;
  double real_value;
  bool fits;
  bool real;
} cleave_int;

/** True for the float types ONNX Split-1's `split` input may have (its data type T). */
bool cleave_is_real_split_type(cleave_dtype dtype);

/** Reads entry i (no bounds check: the caller validated count) of a `cleave_values` of an
 * integer type, or of f16/f32/f64 (whole numbers). */
cleave_int cleave_values_get(const cleave_values *values, int64_t i);

/** The checks of `cleave_values_check` that do not involve the type: count, scalar count, data
 * present (CLEAVE_ERROR_INVALID_ARGUMENT: API misuse). */
cleave_status cleave_values_check_layout(const cleave_values *values, const char *name,
                                         cleave_error *err);

/** Whether `values` is absent (`cleave_values_none()`). */
static inline bool cleave_values_absent(const cleave_values *values) {
  return values->rank == CLEAVE_ABSENT;
}

/** Checks that `values` is a usable tensor of integers for parameter `name`: an integer dtype
 * (else `rule_status`, the operator rule's status), a non-negative count, data present when
 * count > 0, count 1 for a scalar (else CLEAVE_ERROR_INVALID_ARGUMENT: API misuse). */
cleave_status cleave_values_check(const cleave_values *values, const char *name,
                                  cleave_status rule_status, cleave_error *err);

/** `cleave_values_check`, except that unknown values (`known` false) need no data. */
cleave_status cleave_values_check_known(const cleave_values *values, const char *name,
                                        cleave_status rule_status, bool known, cleave_error *err);

/** `cleave_values_check_layout`, except that unknown values need no data. */
cleave_status cleave_values_check_layout_known(const cleave_values *values, const char *name,
                                               bool known, cleave_error *err);

/** Writes an integer read from values (a u64 above INT64_MAX as itself). */
void cleave_format_int(char *buf, size_t size, cleave_int v);

/** Writes "a" for a point, "a..b" otherwise: integer ranges in messages (possibly negative). */
void cleave_format_range(char *buf, size_t size, int64_t lo, int64_t hi);

/* ---- shape_text.c: dimensions as text ----------------------------------------------------- */

/** Writes a dimension's canonical text ("5", "?", "3..6", "4..") into buf (size >=
 * CLEAVE_DIM_TEXT_SIZE always suffices; shorter buffers truncate). */
void cleave_dim_text(char *buf, size_t size, cleave_dim dim);

/** Whether `dim` has a finite upper bound. */
static inline bool cleave_dim_bounded(cleave_dim dim) {
  return dim.hi != CLEAVE_DIM_UNBOUNDED;
}

/** The hull of two intervals (the smallest interval holding both). */
static inline cleave_dim cleave_dim_union(cleave_dim a, cleave_dim b) {
  cleave_dim u;
  u.lo = a.lo < b.lo ? a.lo : b.lo;
  if (!cleave_dim_bounded(a) || !cleave_dim_bounded(b)) {
    u.hi = CLEAVE_DIM_UNBOUNDED;
  } else {
    u.hi = a.hi > b.hi ? a.hi : b.hi;
  }
  return u;
}

#endif /* CLEAVE_CORE_H */
