/* Element types: names and sizes. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct type_entry {
  const char *name;
  int64_t size; /* bytes per element; 0 for the types whose size comes from the width */
} type_entry;

/* Indexed by cleave_dtype; entry 0 is unused. */
static const type_entry type_table[] = {
    {NULL, 0},     {"boolean", 1}, {"i8", 1},         {"i16", 2},
    {"i32", 4},    {"i64", 8},     {"u8", 1},         {"u16", 2},
    {"u32", 4},    {"u64", 8},     {"f16", 2},        {"bf16", 2},
    {"f32", 4},    {"f64", 8},     {"c64", 8},        {"c128", 16},
    {"f8e4m3", 1}, {"f8e5m2", 1},  {"f8e4m3fnuz", 1}, {"f8e5m2fnuz", 1},
    {"f8e8m0", 1}, {"bytes", 0},   {"unicode", 0},    {"string", sizeof(cleave_string)},
};

#define TYPE_COUNT ((int)(sizeof type_table / sizeof type_table[0]))

static bool dtype_known(cleave_dtype dtype) {
  return (int)dtype >= 1 && (int)dtype < TYPE_COUNT;
}

bool cleave_is_integer(cleave_dtype dtype) {
  return dtype >= CLEAVE_I8 && dtype <= CLEAVE_U64;
}

const char *cleave_dtype_name(cleave_dtype dtype) {
  return dtype_known(dtype) ? type_table[dtype].name : NULL;
}

cleave_status cleave_dtype_from_name(const char *name, cleave_dtype *dtype, cleave_error *err) {
  if (name == NULL || dtype == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_dtype_from_name needs a name and a place for the result");
  }
  for (int i = 1; i < TYPE_COUNT; i++) {
    if (strcmp(type_table[i].name, name) == 0) {
      *dtype = (cleave_dtype)i;
      return cleave_succeed(err);
    }
  }
  return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "unknown element type name '%s'", name);
}

void cleave_format_type(char *buf, size_t size, cleave_type type) {
  if (type.dtype == CLEAVE_BYTES || type.dtype == CLEAVE_UNICODE) {
    snprintf(buf, size, "%s%" PRId64, type.dtype == CLEAVE_BYTES ? "S" : "U", type.width);
  } else if (dtype_known(type.dtype)) {
    snprintf(buf, size, "%s", type_table[type.dtype].name);
  } else {
    snprintf(buf, size, "unknown type %d", (int)type.dtype);
  }
}

cleave_status cleave_type_size(cleave_type type, int64_t *bytes, cleave_error *err) {
  if (bytes == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "cleave_type_size needs a result");
  }
  if (!dtype_known(type.dtype)) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "element type %d is not a cleave_dtype",
                       (int)type.dtype);
  }
  bool has_width = type.dtype == CLEAVE_BYTES || type.dtype == CLEAVE_UNICODE;
  if (!has_width) {
    if (type.width != 0) {
      return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                         "width is %" PRId64 " but %s takes no width (it must be 0)", type.width,
                         type_table[type.dtype].name);
    }
    *bytes = type_table[type.dtype].size;
    return cleave_succeed(err);
  }
  if (type.width < 1) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                       "width is %" PRId64 " but %s elements need a width >= 1", type.width,
                       type_table[type.dtype].name);
  }
  int64_t size = type.width;
  if (type.dtype == CLEAVE_UNICODE && cleave_mul_overflows(type.width, 4, &size)) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                       "unicode width %" PRId64 " times 4 bytes overflows int64", type.width);
  }
  *bytes = size;
  return cleave_succeed(err);
}
