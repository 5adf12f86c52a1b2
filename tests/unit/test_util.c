/* Shared helpers of the unit tests (the checkers are in test_checks.c); see test_util.h. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const tu_type_case tu_types[] = {
    {"boolean", {CLEAVE_BOOLEAN, 0}},
    {"i8", {CLEAVE_I8, 0}},
    {"i16", {CLEAVE_I16, 0}},
    {"i32", {CLEAVE_I32, 0}},
    {"i64", {CLEAVE_I64, 0}},
    {"u8", {CLEAVE_U8, 0}},
    {"u16", {CLEAVE_U16, 0}},
    {"u32", {CLEAVE_U32, 0}},
    {"u64", {CLEAVE_U64, 0}},
    {"f16", {CLEAVE_F16, 0}},
    {"bf16", {CLEAVE_BF16, 0}},
    {"f32", {CLEAVE_F32, 0}},
    {"f64", {CLEAVE_F64, 0}},
    {"c64", {CLEAVE_C64, 0}},
    {"c128", {CLEAVE_C128, 0}},
    {"f8e4m3", {CLEAVE_F8E4M3, 0}},
    {"f8e5m2", {CLEAVE_F8E5M2, 0}},
    {"f8e4m3fnuz", {CLEAVE_F8E4M3FNUZ, 0}},
    {"f8e5m2fnuz", {CLEAVE_F8E5M2FNUZ, 0}},
    {"f8e8m0", {CLEAVE_F8E8M0, 0}},
    {"bytes1", {CLEAVE_BYTES, 1}},
    {"bytes3", {CLEAVE_BYTES, 3}},
    {"bytes7", {CLEAVE_BYTES, 7}},
    {"unicode1", {CLEAVE_UNICODE, 1}},
    {"unicode5", {CLEAVE_UNICODE, 5}},
    {"string", {CLEAVE_STRING, 0}},
};
const size_t tu_num_types = sizeof tu_types / sizeof tu_types[0];

size_t tu_elem_size(cleave_type type) {
  switch (type.dtype) {
  case CLEAVE_BOOLEAN:
  case CLEAVE_I8:
  case CLEAVE_U8:
  case CLEAVE_F8E4M3:
  case CLEAVE_F8E5M2:
  case CLEAVE_F8E4M3FNUZ:
  case CLEAVE_F8E5M2FNUZ:
  case CLEAVE_F8E8M0:
    return 1;
  case CLEAVE_I16:
  case CLEAVE_U16:
  case CLEAVE_F16:
  case CLEAVE_BF16:
    return 2;
  case CLEAVE_I32:
  case CLEAVE_U32:
  case CLEAVE_F32:
    return 4;
  case CLEAVE_I64:
  case CLEAVE_U64:
  case CLEAVE_F64:
  case CLEAVE_C64:
    return 8;
  case CLEAVE_C128:
    return 16;
  case CLEAVE_BYTES:
    return type.width > 0 && type.width < 4096 ? (size_t)type.width : 0;
  case CLEAVE_UNICODE:
    return type.width > 0 && type.width < 4096 ? (size_t)type.width * 4 : 0;
  case CLEAVE_STRING:
    return sizeof(cleave_string);
  default: /* packed sub-byte types have no byte size per element */
    return 0;
  }
}

/* The fifteen ONNX tensor types of Split-2/11 and SplitToSequence-11, with NumPy S<n>/U<n>
 * counting as string. */
static int is_onnx_fifteen(cleave_dtype dtype) {
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
    return 1;
  default:
    return 0;
  }
}

int tu_onnx_split_accepts(int64_t version, cleave_dtype dtype) {
  if (version < 2) {
    return dtype == CLEAVE_F16 || dtype == CLEAVE_F32 || dtype == CLEAVE_F64;
  }
  if (version < 13) {
    return is_onnx_fifteen(dtype);
  }
  return is_onnx_fifteen(dtype) || dtype == CLEAVE_BF16;
}

int tu_sequence_accepts(int64_t version, cleave_dtype dtype) {
  if (version < 24) {
    return is_onnx_fifteen(dtype);
  }
  return is_onnx_fifteen(dtype) || dtype == CLEAVE_BF16;
}

const char *tu_type_text(cleave_type type, char *buf, size_t size) {
  if (type.dtype == CLEAVE_BYTES) {
    snprintf(buf, size, "S%lld", (long long)type.width);
    return buf;
  }
  if (type.dtype == CLEAVE_UNICODE) {
    snprintf(buf, size, "U%lld", (long long)type.width);
    return buf;
  }
  for (size_t i = 0; i < tu_num_types; ++i) {
    if (tu_types[i].type.dtype == type.dtype) {
      snprintf(buf, size, "%s", tu_types[i].label);
      return buf;
    }
  }
  snprintf(buf, size, "?");
  return buf;
}

int64_t tu_count(const int64_t *shape, size_t rank) {
  int64_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    n *= shape[i];
  }
  return n;
}

const char *tu_shape_text(const int64_t *shape, size_t rank, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  used += (size_t)snprintf(buf + used, size - used, "[");
  for (size_t i = 0; i < rank && used < size; ++i) {
    used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? "," : "", (long long)shape[i]);
  }
  if (used < size) {
    snprintf(buf + used, size - used, "]");
  }
  return buf;
}

static char tu_ctx[1024];

void tu_context(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tu_ctx, sizeof tu_ctx, fmt, ap);
  va_end(ap);
}

void tu_fail(const char *what, const char *file, int line) {
  print_error("check failed: %s\n  context: %s\n", what, tu_ctx);
  _fail(file, line);
}

void tu_input_make(tu_input *in, cleave_type type, const int64_t *shape, size_t rank,
                   unsigned seed) {
  memset(in, 0, sizeof *in);
  for (size_t i = 0; i < rank; ++i) {
    in->shape[i] = shape[i];
  }
  size_t esize = tu_elem_size(type);
  size_t count = (size_t)tu_count(shape, rank);
  in->nbytes = count * esize;
  /* malloc(0) may return NULL; keep a real address so that "data non-NULL" always holds. */
  in->bytes = malloc(in->nbytes + 1);
  assert_non_null(in->bytes);
  if (type.dtype == CLEAVE_STRING) {
    /* Every handle gets its own slot in the pool and a size that varies with the index. */
    in->pool = malloc(count * 8 + 1);
    assert_non_null(in->pool);
    for (size_t e = 0; e < count; ++e) {
      cleave_string s;
      for (size_t b = 0; b < 8; ++b) {
        in->pool[e * 8 + b] = (char)('a' + (e + b + seed) % 26);
      }
      s.data = in->pool + e * 8;
      s.size = (e + seed) % 8;
      memcpy(in->bytes + e * esize, &s, sizeof s);
    }
  } else {
    /* Byte b of element e carries byte (b mod 8) of e, so leading bytes differ between elements;
     * the b * 29 term keeps the bytes of one element apart from each other. */
    for (size_t e = 0; e < count; ++e) {
      for (size_t b = 0; b < esize; ++b) {
        uint64_t v = ((uint64_t)e >> (8 * (b % 8))) + (uint64_t)b * 29u + seed;
        in->bytes[e * esize + b] = (unsigned char)(v & 0xFFu);
      }
    }
  }
  in->tensor.data = in->bytes;
  in->tensor.type = type;
  in->tensor.rank = rank;
  in->tensor.shape = in->shape;
}

void tu_input_free(tu_input *in) {
  free(in->bytes);
  free(in->pool);
  memset(in, 0, sizeof *in);
}

void tu_outputs_make(tu_outputs *out, size_t count, const size_t *sizes, size_t each) {
  out->count = count;
  out->buffers = calloc(count + 1, sizeof *out->buffers);
  out->sizes = calloc(count + 1, sizeof *out->sizes);
  assert_non_null(out->buffers);
  assert_non_null(out->sizes);
  for (size_t i = 0; i < count; ++i) {
    out->sizes[i] = sizes ? sizes[i] : each;
    out->buffers[i] = malloc(out->sizes[i] + TU_GUARD);
    assert_non_null(out->buffers[i]);
    memset(out->buffers[i], TU_SENTINEL, out->sizes[i] + TU_GUARD);
  }
}

int tu_outputs_untouched(const tu_outputs *out) {
  for (size_t i = 0; i < out->count; ++i) {
    for (size_t b = 0; b < out->sizes[i] + TU_GUARD; ++b) {
      if (out->buffers[i][b] != TU_SENTINEL) {
        return 0;
      }
    }
  }
  return 1;
}

void tu_outputs_free(tu_outputs *out) {
  for (size_t i = 0; i < out->count; ++i) {
    free(out->buffers[i]);
  }
  free(out->buffers);
  free(out->sizes);
  memset(out, 0, sizeof *out);
}

void tu_reference_chunk(const unsigned char *in, const int64_t *shape, size_t rank, size_t axis,
                        int64_t offset, int64_t len, size_t esize, unsigned char *out) {
  int64_t oshape[TU_MAX_RANK];
  int64_t idx[TU_MAX_RANK] = {0};
  for (size_t d = 0; d < rank; ++d) {
    oshape[d] = d == axis ? len : shape[d];
  }
  int64_t total = tu_count(oshape, rank);
  for (int64_t o = 0; o < total; ++o) {
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) {
      flat = flat * shape[d] + idx[d] + (d == axis ? offset : 0);
    }
    memcpy(out + (size_t)o * esize, in + (size_t)flat * esize, esize);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < oshape[d]) {
        break;
      }
      idx[d] = 0;
    }
  }
}

int tu_message_has(const char *message, const char *needle) {
  size_t n = strlen(needle);
  int numeric = (needle[0] >= '0' && needle[0] <= '9') || needle[0] == '-';
  for (const char *p = strstr(message, needle); p; p = strstr(p + 1, needle)) {
    if (!numeric) {
      return 1;
    }
    char before = p == message ? ' ' : p[-1];
    char after = p[n];
    int ok = !(before >= '0' && before <= '9') && !(after >= '0' && after <= '9');
    if (needle[0] != '-' && before == '-') {
      ok = 0;
    }
    if (ok) {
      return 1;
    }
  }
  return 0;
}

size_t tu_int_size(cleave_dtype dtype) {
  switch (dtype) {
  case CLEAVE_I8:
  case CLEAVE_U8:
    return 1;
  case CLEAVE_I16:
  case CLEAVE_U16:
    return 2;
  case CLEAVE_I32:
  case CLEAVE_U32:
    return 4;
  default:
    return 8;
  }
}

/* Stores `value` converted to T at `dst` (which need not be aligned for T). */
#define TU_STORE_AS(T)                                                                             \
  do {                                                                                             \
    T v_ = (T)value;                                                                               \
    memcpy(dst, &v_, sizeof v_);                                                                   \
  } while (0)

void tu_store_int(cleave_dtype dtype, int64_t value, void *dst) {
  switch (dtype) {
  case CLEAVE_I8:
    TU_STORE_AS(int8_t);
    break;
  case CLEAVE_U8:
    TU_STORE_AS(uint8_t);
    break;
  case CLEAVE_I16:
    TU_STORE_AS(int16_t);
    break;
  case CLEAVE_U16:
    TU_STORE_AS(uint16_t);
    break;
  case CLEAVE_I32:
    TU_STORE_AS(int32_t);
    break;
  case CLEAVE_U32:
    TU_STORE_AS(uint32_t);
    break;
  case CLEAVE_U64:
    TU_STORE_AS(uint64_t);
    break;
  default:
    TU_STORE_AS(int64_t);
    break;
  }
}

cleave_values tu_count_value(int64_t n) {
  enum { LOW = -64, HIGH = 4096 };
  static int64_t table[HIGH - LOW + 1];
  if (n < LOW || n > HIGH) {
    tu_fail("tu_count_value: n out of range", __FILE__, __LINE__);
    n = 0;
  }
  table[n - LOW] = n;
  return cleave_values_scalar(&table[n - LOW]);
}

int tu_run_group(const char *name, const struct CMUnitTest *tests, size_t count) {
  return _cmocka_run_group_tests(name, tests, count, NULL, NULL);
}
