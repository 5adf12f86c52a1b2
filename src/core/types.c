/* Element types: names and sizes. */
#include "core/core.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct type_entry {
  const char *name;
  int64_t size;           /* bytes per element; 0 when the width or the bits decide */
  int64_t bits;           /* bits per packed element; 0 for byte-sized types */
  cleave_bit_order order; /* packed types only */
} type_entry;

#define LSB CLEAVE_BIT_ORDER_LSB_FIRST
#define MSB CLEAVE_BIT_ORDER_MSB_FIRST

/* Indexed by cleave_dtype; entry 0 is unused. u3 and u6 have bits 0: not supported. */
static const type_entry type_table[] = {
    {NULL, 0, 0, CLEAVE_BIT_ORDER_NONE},
    {"boolean", 1, 0, CLEAVE_BIT_ORDER_NONE},
    {"i8", 1, 0, CLEAVE_BIT_ORDER_NONE},
    {"i16", 2, 0, CLEAVE_BIT_ORDER_NONE},
    {"i32", 4, 0, CLEAVE_BIT_ORDER_NONE},
    {"i64", 8, 0, CLEAVE_BIT_ORDER_NONE},
    {"u8", 1, 0, CLEAVE_BIT_ORDER_NONE},
    {"u16", 2, 0, CLEAVE_BIT_ORDER_NONE},
    {"u32", 4, 0, CLEAVE_BIT_ORDER_NONE},
    {"u64", 8, 0, CLEAVE_BIT_ORDER_NONE},
    {"f16", 2, 0, CLEAVE_BIT_ORDER_NONE},
    {"bf16", 2, 0, CLEAVE_BIT_ORDER_NONE},
    {"f32", 4, 0, CLEAVE_BIT_ORDER_NONE},
    {"f64", 8, 0, CLEAVE_BIT_ORDER_NONE},
    {"c64", 8, 0, CLEAVE_BIT_ORDER_NONE},
    {"c128", 16, 0, CLEAVE_BIT_ORDER_NONE},
    {"f8e4m3", 1, 0, CLEAVE_BIT_ORDER_NONE},
    {"f8e5m2", 1, 0, CLEAVE_BIT_ORDER_NONE},
    {"f8e4m3fnuz", 1, 0, CLEAVE_BIT_ORDER_NONE},
    {"f8e5m2fnuz", 1, 0, CLEAVE_BIT_ORDER_NONE},
    {"f8e8m0", 1, 0, CLEAVE_BIT_ORDER_NONE},
    {"bytes", 0, 0, CLEAVE_BIT_ORDER_NONE},
    {"unicode", 0, 0, CLEAVE_BIT_ORDER_NONE},
    {"string", sizeof(cleave_string), 0, CLEAVE_BIT_ORDER_NONE},
    {"u1", 0, 1, MSB},
    {"u2", 0, 2, MSB},
    {"u3", 0, 0, CLEAVE_BIT_ORDER_NONE},
    {"u4", 0, 4, LSB},
    {"i4", 0, 4, LSB},
    {"u6", 0, 0, CLEAVE_BIT_ORDER_NONE},
    {"nf4", 0, 4, LSB},
    {"f4e2m1", 0, 4, LSB},
    {"int4", 0, 4, LSB},
    {"uint4", 0, 4, LSB},
    {"int2", 0, 2, LSB},
    {"uint2", 0, 2, LSB},
    {"float4e2m1", 0, 4, LSB},
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

cleave_status cleave_type_check(cleave_type type, cleave_error *err) {
  if (!dtype_known(type.dtype)) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "element type %d is not a cleave_dtype",
                       (int)type.dtype);
  }
  if (cleave_is_packed(type.dtype)) {
    int64_t bits = 0;
    return cleave_type_bits(type, &bits, NULL, err);
  }
  bool has_width = type.dtype == CLEAVE_BYTES || type.dtype == CLEAVE_UNICODE;
  if (!has_width && type.width != 0) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                       "width is %" PRId64 " but %s takes no width (it must be 0)", type.width,
                       type_table[type.dtype].name);
  }
  if (has_width && type.width < 1) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                       "width is %" PRId64 " but %s elements need a width >= 1", type.width,
                       type_table[type.dtype].name);
  }
  return CLEAVE_OK;
}

cleave_status cleave_type_size(cleave_type type, int64_t *bytes, cleave_error *err) {
  if (bytes == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "cleave_type_size needs a result");
  }
  if (!dtype_known(type.dtype)) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "element type %d is not a cleave_dtype",
                       (int)type.dtype);
  }
  if (cleave_is_packed(type.dtype)) {
    cleave_status st = cleave_type_bits(type, bytes, NULL, err);
    return st != CLEAVE_OK ? st
                           : cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                                         "%s packs %" PRId64 " bits per element: it has no byte "
                                         "size per element (see cleave_type_bits)",
                                         type_table[type.dtype].name, *bytes);
  }
  cleave_status st = cleave_type_check(type, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (type.dtype != CLEAVE_BYTES && type.dtype != CLEAVE_UNICODE) {
    *bytes = type_table[type.dtype].size;
    return cleave_succeed(err);
  }
  int64_t size = type.width;
  if (type.dtype == CLEAVE_UNICODE && cleave_mul_overflows(type.width, 4, &size)) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                       "unicode width %" PRId64 " times 4 bytes overflows int64", type.width);
  }
  *bytes = size;
  return cleave_succeed(err);
}

bool cleave_is_packed(cleave_dtype dtype) {
  return dtype >= CLEAVE_U1 && dtype <= CLEAVE_FLOAT4E2M1;
}

cleave_status cleave_type_bits(cleave_type type, int64_t *bits, cleave_bit_order *order,
                               cleave_error *err) {
  if (bits == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "cleave_type_bits needs a result");
  }
  if (!cleave_is_packed(type.dtype)) {
    int64_t size = 0;
    cleave_status st = cleave_type_size(type, &size, err);
    if (st != CLEAVE_OK) {
      return st;
    }
    if (cleave_mul_overflows(size, 8, bits)) {
      return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                         "%" PRId64 " bytes per element overflow int64 "
                         "in bits",
                         size);
    }
    if (order != NULL) {
      *order = CLEAVE_BIT_ORDER_NONE;
    }
    return cleave_succeed(err);
  }
  const type_entry *t = &type_table[type.dtype];
  if (t->bits == 0) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                       "%s is not supported: OpenVINO packs it in 3-byte groups, which cleave "
                       "does not split",
                       t->name);
  }
  if (type.width != 0) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                       "width is %" PRId64 " but %s takes no width (it must be 0)", type.width,
                       t->name);
  }
  *bits = t->bits;
  if (order != NULL) {
    *order = t->order;
  }
  return cleave_succeed(err);
}
