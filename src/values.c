/* Reading the integer values of axis and split inputs, whatever their integer type. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

/* Reads entry `at` of an array of T at `p` into r.value (memcpy: the caller's array need not be
 * aligned for its type). */
#define READ_AS(T)                                                                                 \
  do {                                                                                             \
    T v_;                                                                                          \
    memcpy(&v_, p + at * sizeof v_, sizeof v_);                                                    \
    r.value = (int64_t)v_;                                                                         \
  } while (0)

cleave_int cleave_values_get(const cleave_values *values, int64_t i) {
  cleave_int r = {0, 0, true};
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
  if (values->count < 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%s has count %" PRId64 " but a count must be >= 0", name, values->count);
  }
  if (values->rank == 0 && values->count != 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%s is a scalar but has count %" PRId64 " (a scalar holds 1 value)", name,
                       values->count);
  }
  if (values->count > 0 && values->data == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "%s has %" PRId64 " values but its data pointer is NULL", name,
                       values->count);
  }
  return CLEAVE_OK;
}
