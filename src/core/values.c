/* Reading the integer values of axis and split inputs, whatever their integer type. */
#include "core/core.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Reads entry `at` of an array of T at `p` into r.value (memcpy: the caller's array need not be
 * aligned for its type). */
#define READ_AS(T)                                                                                 \
  do {                                                                                             \
    T v_;                                                                                          \
    memcpy(&v_, p + at * sizeof v_, sizeof v_);                                                    \
    r.value = (int64_t)v_;                                                                         \
  } while (0)

bool cleave_is_real_split_type(cleave_dtype dtype) {
  return dtype == CLEAVE_F16 || dtype == CLEAVE_F32 || dtype == CLEAVE_F64;
}

/* IEEE 754 half precision to double (exact). */
static double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 0x1F;
  double mantissa = (double)(h & 0x3FF);
  double magnitude;
  if (exponent == 0x1F) {
    magnitude = mantissa == 0 ? HUGE_VAL : NAN;
  } else if (exponent == 0) {
    magnitude = mantissa / 16777216.0; /* subnormal: m * 2^-24 */
  } else {
    magnitude = (1024.0 + mantissa) * (double)((uint64_t)1 << exponent) / 33554432.0; /* 2^25 */
  }
  return (h & 0x8000) ? -magnitude : magnitude;
}

/* A whole number in [-2^63, 2^63) is its int64 value; anything else (fractions, NaN,
 * infinities, out of range) does not fit. NaN fails both comparisons. */
static void set_real(cleave_int *r, double x) {
  r->real = true;
  r->real_value = x;
  if (x >= -9223372036854775808.0 && x < 9223372036854775808.0 && (double)(int64_t)x == x) {
    r->value = (int64_t)x;
  } else {
    r->fits = false;
  }
}

cleave_int cleave_values_get(const cleave_values *values, int64_t i) {
  cleave_int r = {0, 0, 0.0, true, false};
  const unsigned char *p = values->data;
  size_t at = (size_t)i;
  switch (values->dtype) {
  case CLEAVE_I8:
    READ_AS(int8_t);
    break;
  case CLEAVE_I16:
    READ_AS(int16_t);
    break;
  case CLEAVE_I32:
    READ_AS(int32_t);
    break;
  case CLEAVE_I64:
    READ_AS(int64_t);
    break;
  case CLEAVE_U8:
    READ_AS(uint8_t);
    break;
  case CLEAVE_U16:
    READ_AS(uint16_t);
    break;
  case CLEAVE_U32:
    READ_AS(uint32_t);
    break;
  case CLEAVE_U64: {
    uint64_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
    /* Above INT64_MAX the value is kept as it is, never wrapped (to -1, say). */
    if (v > (uint64_t)INT64_MAX) {
      r.fits = false;
      r.unsigned_value = v;
    } else {
      r.value = (int64_t)v;
    }
    break;
  }
  case CLEAVE_F16: {
    uint16_t h;
    memcpy(&h, p + at * sizeof h, sizeof h);
    set_real(&r, half_to_double(h));
    break;
  }
  case CLEAVE_F32: {
    float f;
    memcpy(&f, p + at * sizeof f, sizeof f);
    set_real(&r, (double)f);
    break;
  }
  case CLEAVE_F64: {
    double d;
    memcpy(&d, p + at * sizeof d, sizeof d);
    set_real(&r, d);
    break;
  }
  default:
    break;
  }
  return r;
}

cleave_status cleave_values_check(const cleave_values *values, const char *name,
                                  cleave_status rule_status, cleave_error *err) {
  if (!cleave_is_integer(values->dtype)) {
    char type[48];
    cleave_format_type(type, sizeof type, cleave_type_of(values->dtype));
    return cleave_fail(err, rule_status, "%s must have an integer type, got %s", name, type);
  }
  return cleave_values_check_layout(values, name, err);
}

cleave_status cleave_values_check_layout(const cleave_values *values, const char *name,
                                         cleave_error *err) {
  /* No array of 8-byte values holds more than INT64_MAX entries. */
  if (values->count > (size_t)INT64_MAX) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%s has count %zu, more values than any array holds", name, values->count);
  }
  if (values->rank == 0 && values->count != 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%s is a scalar but has count %zu (a scalar holds 1 value)", name,
                       values->count);
  }
  if (values->count > 0 && values->data == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%s has %zu values but its data pointer is NULL", name, values->count);
  }
  return CLEAVE_OK;
}

/* ---- checks with unknown values, and message text ---------------------------------------- */

/* cleave_values_check, except that unknown values need no data. */
cleave_status cleave_values_check_known(const cleave_values *values, const char *name,
                                        cleave_status rule_status, bool known, cleave_error *err) {
  static const int64_t placeholder = 0;
  cleave_values checked = *values;
  if (!known) {
    checked.data = &placeholder;
  }
  return cleave_values_check(&checked, name, rule_status, err);
}

/* check_values without the type check (ONNX Split-1's float `split` input). */
cleave_status cleave_values_check_layout_known(const cleave_values *values, const char *name,
                                               bool known, cleave_error *err) {
  static const int64_t placeholder = 0;
  cleave_values checked = *values;
  if (!known) {
    checked.data = &placeholder;
  }
  return cleave_values_check_layout(&checked, name, err);
}

void cleave_format_int(char *buf, size_t size, cleave_int v) {
  if (v.fits) {
    snprintf(buf, size, "%" PRId64, v.value);
  } else {
    snprintf(buf, size, "%" PRIu64, v.unsigned_value);
  }
}

/* "a" for a point, "a..b" otherwise: integer ranges in messages (which may be negative). */
void cleave_format_range(char *buf, size_t size, int64_t lo, int64_t hi) {
  if (lo == hi) {
    snprintf(buf, size, "%" PRId64, lo);
  } else {
    snprintf(buf, size, "%" PRId64 "..%" PRId64, lo, hi);
  }
}
