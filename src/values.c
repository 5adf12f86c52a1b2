/* Reading the integer values of axis and split inputs, whatever their integer type. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

cleave_int cleave_values_get(const cleave_values *values, int64_t i) {
  cleave_int r = {0, 0, true};
  const unsigned char *p = values->data;
  size_t at = (size_t)i;
  /* memcpy: the caller's array need not be aligned for its type. */
  switch (values->dtype) {
  case CLEAVE_I8: {
    int8_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
    r.value = v;
    break;
  }
  case CLEAVE_I16: {
    int16_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
    r.value = v;
    break;
  }
  case CLEAVE_I32: {
    int32_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
    r.value = v;
    break;
  }
  case CLEAVE_I64: {
    int64_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
    r.value = v;
    break;
  }
  case CLEAVE_U8: {
    uint8_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
    r.value = v;
    break;
  }
  case CLEAVE_U16: {
    uint16_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
    r.value = v;
    break;
  }
  case CLEAVE_U32: {
    uint32_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
    r.value = v;
    break;
  }
  case CLEAVE_U64: {
    uint64_t v;
    memcpy(&v, p + at * sizeof v, sizeof v);
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
