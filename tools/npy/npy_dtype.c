/* Mapping .npy dtype descrs to cleave types. */
#include "npy.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static int unsupported(tool_error *err, const char *path, const char *descr, const char *why) {
  return tool_fail(err, CLI_EXIT_DATA, "'%s' has dtype '%s': %s", path, descr, why);
}

/* Parses the decimal item size after the kind letter; returns -1 when malformed. */
static int64_t descr_size(const char *digits) {
  if (digits[0] < '0' || digits[0] > '9' || (digits[0] == '0' && digits[1] != '\0')) {
    return -1;
  }
  int64_t n = 0;
  for (const char *c = digits; *c != '\0'; c++) {
    if (*c < '0' || *c > '9' || n > (INT64_MAX - (*c - '0')) / 10) {
      return -1;
    }
    n = n * 10 + (*c - '0');
  }
  return n;
}

/* The fixed-size numeric descrs: kind letter and item size, and the cleave type they hold. One
 * table for both directions (reading a descr, writing one). */
static const struct {
  char kind;
  int64_t size;
  cleave_dtype dtype;
} numeric[] = {
    {'b', 1, CLEAVE_BOOLEAN}, {'i', 1, CLEAVE_I8},    {'i', 2, CLEAVE_I16}, {'i', 4, CLEAVE_I32},
    {'i', 8, CLEAVE_I64},     {'u', 1, CLEAVE_U8},    {'u', 2, CLEAVE_U16}, {'u', 4, CLEAVE_U32},
    {'u', 8, CLEAVE_U64},     {'f', 2, CLEAVE_F16},   {'f', 4, CLEAVE_F32}, {'f', 8, CLEAVE_F64},
    {'c', 8, CLEAVE_C64},     {'c', 16, CLEAVE_C128},
};
#define NUMERIC_COUNT (sizeof numeric / sizeof numeric[0])

/* The dtype of a fixed-size numeric descr kind and size, or 0 when there is none. */
static cleave_dtype numeric_dtype(char kind, int64_t size) {
  for (size_t i = 0; i < NUMERIC_COUNT; i++) {
    if (numeric[i].kind == kind && numeric[i].size == size) {
      return numeric[i].dtype;
    }
  }
  return (cleave_dtype)0;
}

static const char *type_label(cleave_type t, char *buf, size_t size) {
  if (t.dtype == CLEAVE_BYTES || t.dtype == CLEAVE_UNICODE) {
    snprintf(buf, size, "%s%" PRId64, t.dtype == CLEAVE_BYTES ? "S" : "U", t.width);
  } else {
    const char *name = cleave_dtype_name(t.dtype);
    snprintf(buf, size, "%s", name != NULL ? name : "?");
  }
  return buf;
}

/* Applies --dtype to raw "V<n>" data: any fixed-size type of n bytes gives the bytes a meaning. */
static int reinterpret_void(const char *descr, int64_t size, const cleave_type *forced,
                            const char *path, npy_dtype *out, tool_error *err) {
  char label[32];
  if (forced == NULL) {
    return unsupported(err, path, descr,
                       "raw void data needs --dtype to say what it holds (bf16 for V2 as saved "
                       "by ml_dtypes, an 8-bit float name for V1)");
  }
  int64_t forced_size = 0;
  if (forced->dtype == CLEAVE_STRING || forced->dtype == CLEAVE_BYTES ||
      forced->dtype == CLEAVE_UNICODE ||
      cleave_type_size(*forced, &forced_size, NULL) != CLEAVE_OK || forced_size != size) {
    char why[160];
    snprintf(why, sizeof why, "--dtype %s does not describe %" PRId64 "-byte raw elements",
             type_label(*forced, label, sizeof label), size);
    return unsupported(err, path, descr, why);
  }
  out->type = *forced;
  out->item_size = size;
  return 0;
}

int npy_descr_to_dtype(const char *descr, const cleave_type *forced, const char *path,
                       npy_dtype *out, tool_error *err) {
  int64_t bits = 0;
  if (forced != NULL && cleave_type_bits(*forced, &bits, NULL, NULL) == CLEAVE_OK && bits < 8) {
    char label[32], why[160];
    snprintf(why, sizeof why,
             "--dtype %s is a packed sub-byte type, and .npy files hold whole-byte elements",
             type_label(*forced, label, sizeof label));
    return unsupported(err, path, descr, why);
  }
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    return unsupported(err, path, descr,
                       "a descr starts with a byte-order character (<, >, | or =)");
  }
  char kind = descr[1];
  switch (kind) {
  case 'O':
    return unsupported(err, path, descr,
                       "object arrays (pickled Python objects) are not supported");
  case 'M':
  case 'm':
    return unsupported(err, path, descr, "datetime and timedelta arrays are not supported");
  default:
    break;
  }
  int64_t size = kind == '\0' ? -1 : descr_size(descr + 2);
  if (size < 0) {
    return unsupported(err, path, descr, "this descr is not supported");
  }
  npy_dtype found;
  found.item_size = size;
  found.type = cleave_type_of(numeric_dtype(kind, size));
  if (kind == 'S' || kind == 'U') {
    if (size == 0) {
      return unsupported(err, path, descr, "zero-width strings are not supported");
    }
    found.type.dtype = kind == 'S' ? CLEAVE_BYTES : CLEAVE_UNICODE;
    found.type.width = size;
    if (cleave_type_size(found.type, &found.item_size, NULL) != CLEAVE_OK) {
      return unsupported(err, path, descr, "the string width overflows the element size");
    }
  } else if (kind == 'V') {
    if (size == 0) {
      return unsupported(err, path, descr, "zero-size void elements are not supported");
    }
    return reinterpret_void(descr, size, forced, path, out, err);
  } else if (found.type.dtype == 0) {
    return unsupported(err, path, descr,
                       kind == 'f' || kind == 'c'
                           ? "extended-precision floats are not supported"
                           : "this descr is not supported (supported: b1, i1-i8, u1-u8, f2, f4, "
                             "f8, c8, c16, S<n>, U<n>, and V<n> with --dtype)");
  }
  /* The width counts too: --dtype S3 on "|S5" data contradicts it as much as --dtype i32 does. */
  if (forced != NULL && (forced->dtype != found.type.dtype || forced->width != found.type.width)) {
    char label[32], why[160];
    snprintf(why, sizeof why, "--dtype %s contradicts the file's type (%s)",
             type_label(*forced, label, sizeof label), descr);
    return unsupported(err, path, descr, why);
  }
  *out = found;
  return 0;
}

int npy_descr_for(cleave_type type, char *buf, size_t size) {
  for (size_t i = 0; i < NUMERIC_COUNT; i++) {
    if (numeric[i].dtype == type.dtype) {
      /* Little-endian, and "|" where one byte has no order, as numpy.save writes them. */
      snprintf(buf, size, "%c%c%" PRId64, numeric[i].size == 1 ? '|' : '<', numeric[i].kind,
               numeric[i].size);
      return 0;
    }
  }
  int64_t bits = 0, bytes = 0;
  if (type.dtype == CLEAVE_STRING || type.dtype == CLEAVE_BYTES || type.dtype == CLEAVE_UNICODE ||
      cleave_type_bits(type, &bits, NULL, NULL) != CLEAVE_OK || bits < 8 ||
      cleave_type_size(type, &bytes, NULL) != CLEAVE_OK) {
    return -1;
  }
  /* bfloat16 and the 8-bit floats: raw void elements, as ml_dtypes saves them. */
  snprintf(buf, size, "|V%" PRId64, bytes);
  return 0;
}
