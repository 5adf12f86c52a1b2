/* Element type names and dimension forms of OpenVINO IR. */
#include "ir_types.h"

#include <stdio.h>
#include <string.h>

/* OpenVINO's element_type names (ov::element::Type's to_string) and the legacy precision names
 * of IR ports (InferenceEngine::Precision), each with the cleave type it denotes. The two
 * spellings are separate tables: "u1" is not a precision and "BIN" is not an element_type, but
 * both are accepted wherever a type is read, as OpenVINO's own reader does. */
static const struct {
  const char *name;
  cleave_dtype dtype;
} type_names[] = {
    {"boolean", CLEAVE_BOOLEAN},
    {"bf16", CLEAVE_BF16},
    {"f16", CLEAVE_F16},
    {"f32", CLEAVE_F32},
    {"f64", CLEAVE_F64},
    {"i4", CLEAVE_I4},
    {"i8", CLEAVE_I8},
    {"i16", CLEAVE_I16},
    {"i32", CLEAVE_I32},
    {"i64", CLEAVE_I64},
    {"u1", CLEAVE_U1},
    {"u2", CLEAVE_U2},
    {"u3", CLEAVE_U3},
    {"u4", CLEAVE_U4},
    {"u6", CLEAVE_U6},
    {"u8", CLEAVE_U8},
    {"u16", CLEAVE_U16},
    {"u32", CLEAVE_U32},
    {"u64", CLEAVE_U64},
    {"nf4", CLEAVE_NF4},
    {"f8e4m3", CLEAVE_F8E4M3},
    {"f8e5m2", CLEAVE_F8E5M2},
    {"f8e8m0", CLEAVE_F8E8M0},
    {"f4e2m1", CLEAVE_F4E2M1},
    {"string", CLEAVE_STRING},
    /* Legacy port precisions. */
    {"BOOL", CLEAVE_BOOLEAN},
    {"BOOLEAN", CLEAVE_BOOLEAN},
    {"BF16", CLEAVE_BF16},
    {"FP16", CLEAVE_F16},
    {"FP32", CLEAVE_F32},
    {"FP64", CLEAVE_F64},
    {"I4", CLEAVE_I4},
    {"I8", CLEAVE_I8},
    {"I16", CLEAVE_I16},
    {"I32", CLEAVE_I32},
    {"I64", CLEAVE_I64},
    {"BIN", CLEAVE_U1},
    {"U1", CLEAVE_U1},
    {"U2", CLEAVE_U2},
    {"U3", CLEAVE_U3},
    {"U4", CLEAVE_U4},
    {"U6", CLEAVE_U6},
    {"U8", CLEAVE_U8},
    {"U16", CLEAVE_U16},
    {"U32", CLEAVE_U32},
    {"U64", CLEAVE_U64},
    {"NF4", CLEAVE_NF4},
    {"F8E4M3", CLEAVE_F8E4M3},
    {"F8E5M2", CLEAVE_F8E5M2},
    {"F8E8M0", CLEAVE_F8E8M0},
    {"F4E2M1", CLEAVE_F4E2M1},
    {"STRING", CLEAVE_STRING},
};

/* Names that say the type is not fixed in the file. */
static const char *const dynamic_names[] = {"dynamic",   "undefined",   "DYNAMIC",
                                            "UNDEFINED", "UNSPECIFIED", "MIXED"};

ir_type_kind ir_type_from_name(const char *name, cleave_type *type) {
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
    if (strcmp(name, type_names[i].name) == 0) {
      *type = cleave_type_of(type_names[i].dtype);
      return IR_TYPE_KNOWN;
    }
  }
  for (size_t i = 0; i < sizeof dynamic_names / sizeof dynamic_names[0]; i++) {
    if (strcmp(name, dynamic_names[i]) == 0) {
      return IR_TYPE_DYNAMIC;
    }
  }
  return IR_TYPE_UNKNOWN_NAME;
}

int ir_type_is_packed(cleave_type type) {
  int64_t bits = 0;
  return type.dtype != CLEAVE_STRING &&
         (cleave_type_bits(type, &bits, NULL, NULL) != CLEAVE_OK || bits < 8);
}

const char *ir_type_name(cleave_type type) {
  for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
    if (type_names[i].dtype == type.dtype) {
      return type_names[i].name; /* the lower-case entries come first */
    }
  }
  return "?";
}

/* Parses digits[0..len) as a decimal int64 (no sign). Returns 0, -1 (malformed) or -2 (above
 * INT64_MAX). */
static int parse_digits(const char *text, size_t len, int64_t *value) {
  if (len == 0) {
    return -1;
  }
  uint64_t v = 0;
  int too_big = 0;
  for (size_t i = 0; i < len; i++) {
    if (text[i] < '0' || text[i] > '9') {
      return -1;
    }
    unsigned d = (unsigned)(text[i] - '0');
    if (v > ((uint64_t)INT64_MAX - d) / 10) {
      too_big = 1;
    } else {
      v = v * 10 + d;
    }
  }
  if (too_big) {
    return -2;
  }
  *value = (int64_t)v;
  return 0;
}

int ir_parse_index(const char *text, int64_t *value) {
  return parse_digits(text, strlen(text), value) == 0 ? 0 : -1;
}

int ir_parse_int64(const char *text, int64_t *value) {
  if (text[0] != '-') {
    return ir_parse_index(text, value);
  }
  int64_t v = 0;
  size_t len = strlen(text + 1);
  if (len == 19 && strcmp(text + 1, "9223372036854775808") == 0) {
    *value = INT64_MIN;
    return 0;
  }
  if (parse_digits(text + 1, len, &v) != 0) {
    return -1;
  }
  *value = -v;
  return 0;
}

/* One bound of an interval: digits, with the reason for a failure. */
static int parse_bound(const char *text, size_t len, int64_t *value, const char *whole,
                       size_t whole_len, char *why, size_t why_size) {
  int rc = parse_digits(text, len, value);
  if (rc == -2) {
    snprintf(why, why_size, "dimension '%.*s' is above 2^63-1",
             (int)(whole_len > 64 ? 64 : whole_len), whole);
    return -1;
  }
  if (rc != 0) {
    snprintf(why, why_size, "'%.*s' is not a dimension (N, -1, ?, L..H, ..H or L..)",
             (int)(whole_len > 64 ? 64 : whole_len), whole);
    return -1;
  }
  return 0;
}

int ir_dim_parse(const char *text, size_t len, cleave_dim *dim, char *why, size_t why_size) {
  if ((len == 2 && memcmp(text, "-1", 2) == 0) || (len == 1 && text[0] == '?')) {
    *dim = cleave_dim_any();
    return 0;
  }
  const char *dots = NULL;
  for (size_t i = 0; i + 1 < len; i++) {
    if (text[i] == '.' && text[i + 1] == '.') {
      dots = text + i;
      break;
    }
  }
  if (dots == NULL) {
    int64_t v = 0;
    if (parse_bound(text, len, &v, text, len, why, why_size) != 0) {
      return -1;
    }
    *dim = cleave_dim_point(v);
    return 0;
  }
  size_t lo_len = (size_t)(dots - text);
  size_t hi_len = len - lo_len - 2;
  int64_t lo = 0, hi = CLEAVE_DIM_UNBOUNDED;
  if (lo_len == 0 && hi_len == 0) {
    snprintf(why, why_size, "'..' is not a dimension (an interval needs a bound)");
    return -1;
  }
  if (lo_len > 0 && parse_bound(text, lo_len, &lo, text, len, why, why_size) != 0) {
    return -1;
  }
  if (hi_len > 0 && parse_bound(dots + 2, hi_len, &hi, text, len, why, why_size) != 0) {
    return -1;
  }
  if (hi != CLEAVE_DIM_UNBOUNDED && lo > hi) {
    snprintf(why, why_size, "dimension '%.*s' has a lower bound above its upper bound",
             (int)(len > 64 ? 64 : len), text);
    return -1;
  }
  *dim = cleave_dim_range(lo, hi);
  return 0;
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int ir_shape_parse(const char *text, cleave_dim *dims, size_t capacity, size_t *rank, char *why,
                   size_t why_size) {
  size_t len = strlen(text);
  size_t b = 0, e = len;
  while (b < e && is_space(text[b])) {
    b++;
  }
  while (e > b && is_space(text[e - 1])) {
    e--;
  }
  if (b == e) {
    *rank = 0;
    return 0;
  }
  if (e - b == 3 && memcmp(text + b, "...", 3) == 0) {
    *rank = CLEAVE_RANK_DYNAMIC;
    return 0;
  }
  size_t n = 0;
  size_t pos = b;
  for (;;) {
    size_t end = pos;
    while (end < e && text[end] != ',') {
      end++;
    }
    size_t db = pos, de = end;
    while (db < de && is_space(text[db])) {
      db++;
    }
    while (de > db && is_space(text[de - 1])) {
      de--;
    }
    if (db == de) {
      snprintf(why, why_size, "shape '%.*s' has an empty dimension", (int)(len > 64 ? 64 : len),
               text);
      return -1;
    }
    if (n >= capacity) {
      snprintf(why, why_size, "shape has more than %zu dimensions", capacity);
      return -1;
    }
    if (ir_dim_parse(text + db, de - db, &dims[n], why, why_size) != 0) {
      return -1;
    }
    n++;
    if (end == e) {
      break;
    }
    pos = end + 1;
  }
  *rank = n;
  return 0;
}

int ir_dims_fit(const cleave_dim *dims, size_t rank, const int64_t *shape, size_t shape_rank) {
  if (rank == CLEAVE_RANK_DYNAMIC) {
    return 1;
  }
  if (rank != shape_rank) {
    return 0;
  }
  for (size_t i = 0; i < rank; i++) {
    if (shape[i] < dims[i].lo || (dims[i].hi != CLEAVE_DIM_UNBOUNDED && shape[i] > dims[i].hi)) {
      return 0;
    }
  }
  return 1;
}
