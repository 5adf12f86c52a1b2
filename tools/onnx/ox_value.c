/* Tensors and sequences of the ONNX test runner: type mapping, life cycle and exact comparison. */
#include "ox_value.h"
#include "shape_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ox_type_entry {
  int32_t onnx_type;
  const char *name;
  /* 0 when cleave has no dtype for it (the packed sub-byte types). */
  cleave_dtype dtype;
} ox_type_entry;

static const ox_type_entry ox_types[] = {
    {OX_FLOAT, "FLOAT", CLEAVE_F32},
    {OX_UINT8, "UINT8", CLEAVE_U8},
    {OX_INT8, "INT8", CLEAVE_I8},
    {OX_UINT16, "UINT16", CLEAVE_U16},
    {OX_INT16, "INT16", CLEAVE_I16},
    {OX_INT32, "INT32", CLEAVE_I32},
    {OX_INT64, "INT64", CLEAVE_I64},
    {OX_STRING, "STRING", CLEAVE_STRING},
    {OX_BOOL, "BOOL", CLEAVE_BOOLEAN},
    {OX_FLOAT16, "FLOAT16", CLEAVE_F16},
    {OX_DOUBLE, "DOUBLE", CLEAVE_F64},
    {OX_UINT32, "UINT32", CLEAVE_U32},
    {OX_UINT64, "UINT64", CLEAVE_U64},
    {OX_COMPLEX64, "COMPLEX64", CLEAVE_C64},
    {OX_COMPLEX128, "COMPLEX128", CLEAVE_C128},
    {OX_BFLOAT16, "BFLOAT16", CLEAVE_BF16},
    {OX_FLOAT8E4M3FN, "FLOAT8E4M3FN", CLEAVE_F8E4M3},
    {OX_FLOAT8E4M3FNUZ, "FLOAT8E4M3FNUZ", CLEAVE_F8E4M3FNUZ},
    {OX_FLOAT8E5M2, "FLOAT8E5M2", CLEAVE_F8E5M2},
    {OX_FLOAT8E5M2FNUZ, "FLOAT8E5M2FNUZ", CLEAVE_F8E5M2FNUZ},
    {OX_UINT4, "UINT4", (cleave_dtype)0},
    {OX_INT4, "INT4", (cleave_dtype)0},
    {OX_FLOAT4E2M1, "FLOAT4E2M1", (cleave_dtype)0},
    {OX_FLOAT8E8M0, "FLOAT8E8M0", CLEAVE_F8E8M0},
    {OX_UINT2, "UINT2", (cleave_dtype)0},
    {OX_INT2, "INT2", (cleave_dtype)0},
};

static const ox_type_entry *ox_find_type(int32_t onnx_type) {
  for (size_t i = 0; i < sizeof ox_types / sizeof ox_types[0]; i++) {
    if (ox_types[i].onnx_type == onnx_type) {
      return &ox_types[i];
    }
  }
  return NULL;
}

const char *ox_type_name(int32_t onnx_type) {
  const ox_type_entry *e = ox_find_type(onnx_type);
  return e != NULL ? e->name : "UNKNOWN";
}

int ox_type_to_cleave(int32_t onnx_type, cleave_type *type, tool_error *err) {
  const ox_type_entry *e = ox_find_type(onnx_type);
  if (e == NULL) {
    return tool_fail(err, CLI_EXIT_FAIL, "unknown ONNX data type %" PRId32, onnx_type);
  }
  if (e->dtype == 0) {
    return tool_fail(err, CLI_EXIT_FAIL,
                     "data type %s (%" PRId32 ") is not supported: packed sub-byte "
                     "types are not Split or SplitToSequence types",
                     e->name, onnx_type);
  }
  *type = cleave_type_of(e->dtype);
  return CLI_EXIT_OK;
}

int ox_tensor_measure(int32_t onnx_type, size_t rank, const int64_t *dims, const char *what,
                      int64_t *count, size_t *nbytes, tool_error *err) {
  int64_t n = 1;
  int64_t elem = 0;
  int64_t bytes = 0;
  cleave_type type;
  cleave_error cerr;
  int st = ox_type_to_cleave(onnx_type, &type, err);
  if (st != CLI_EXIT_OK) {
    return tool_prefix(err, "%s", what);
  }
  for (size_t i = 0; i < rank; i++) {
    if (dims[i] < 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "malformed tensor %s: dims[%zu] is %" PRId64 ", a negative dimension", what,
                       i, dims[i]);
    }
    if (__builtin_mul_overflow(n, dims[i], &n)) {
      return tool_fail(err, CLI_EXIT_DATA, "malformed tensor %s: the element count overflows int64",
                       what);
    }
  }
  if (cleave_type_size(type, &elem, &cerr) != CLEAVE_OK) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "%s: %s", what, cerr.message);
  }
  if (__builtin_mul_overflow(n, elem, &bytes) || (uint64_t)bytes > SIZE_MAX / 2) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "malformed tensor %s: the byte size of %" PRId64 " elements overflows", what,
                     n);
  }
  *count = n;
  *nbytes = (size_t)bytes;
  return CLI_EXIT_OK;
}

int ox_tensor_init(ox_tensor *t, int32_t onnx_type, size_t rank, const int64_t *dims,
                   const char *what, tool_error *err) {
  int64_t count = 0;
  size_t bytes = 0;
  memset(t, 0, sizeof *t);
  int st = ox_tensor_measure(onnx_type, rank, dims, what, &count, &bytes, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  st = ox_type_to_cleave(onnx_type, &t->type, err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  t->onnx_type = onnx_type;
  t->rank = rank;
  t->count = count;
  t->nbytes = bytes;
  if (rank > 0) {
    t->dims = malloc(rank * sizeof *t->dims);
    if (t->dims == NULL) {
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", what);
    }
    memcpy(t->dims, dims, rank * sizeof *t->dims);
  }
  /* At least one byte so that even an empty tensor has a non-NULL data pointer. */
  t->data = calloc(t->nbytes > 0 ? t->nbytes : 1, 1);
  if (t->data == NULL) {
    free(t->dims);
    t->dims = NULL;
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", what);
  }
  return CLI_EXIT_OK;
}

void ox_tensor_free(ox_tensor *t) {
  if (t != NULL) {
    free(t->dims);
    free(t->data);
    memset(t, 0, sizeof *t);
  }
}

int ox_tensor_copy(ox_tensor *dst, const ox_tensor *src, tool_error *err) {
  int st = ox_tensor_init(dst, src->onnx_type, src->rank, src->dims, "copy", err);
  if (st != CLI_EXIT_OK) {
    return st;
  }
  memcpy(dst->data, src->data, src->nbytes);
  return CLI_EXIT_OK;
}

void ox_value_free(ox_value *v) {
  if (v == NULL) {
    return;
  }
  ox_tensor_free(&v->tensor);
  for (size_t i = 0; i < v->length; i++) {
    ox_tensor_free(&v->items[i]);
  }
  free(v->items);
  memset(v, 0, sizeof *v);
}

int ox_value_copy(ox_value *dst, const ox_value *src, tool_error *err) {
  memset(dst, 0, sizeof *dst);
  dst->kind = src->kind;
  if (src->kind == OX_KIND_TENSOR) {
    return ox_tensor_copy(&dst->tensor, &src->tensor, err);
  }
  if (src->length > 0) {
    dst->items = calloc(src->length, sizeof *dst->items);
    if (dst->items == NULL) {
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory (%s)", "sequence copy");
    }
  }
  for (size_t i = 0; i < src->length; i++) {
    int st = ox_tensor_copy(&dst->items[i], &src->items[i], err);
    if (st != CLI_EXIT_OK) {
      ox_value_free(dst);
      return st;
    }
    dst->length = i + 1;
  }
  return CLI_EXIT_OK;
}

/* Writes element i of t in a readable form: the number for the common types, the bytes of a
 * string, the bits otherwise. */
static void ox_format_element(char *buf, size_t size, const ox_tensor *t, int64_t i) {
  const unsigned char *p = (const unsigned char *)t->data;
  size_t n = t->count > 0 ? t->nbytes / (size_t)t->count : 0;
  const unsigned char *e = p + (size_t)i * n;
  union {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
  } u;
  memset(&u, 0, sizeof u);
  if (t->onnx_type != OX_STRING && n <= sizeof u) {
    memcpy(&u, e, n);
  }
  switch (t->onnx_type) {
  case OX_STRING: {
    const cleave_string *s = &((const cleave_string *)t->data)[i];
    int len = s->size > 64 ? 64 : (int)s->size;
    snprintf(buf, size, "\"%.*s\"%s", len, s->data != NULL ? s->data : "",
             s->size > 64 ? "..." : "");
    return;
  }
  case OX_INT8:
    snprintf(buf, size, "%d", u.i8);
    return;
  case OX_INT16:
    snprintf(buf, size, "%d", u.i16);
    return;
  case OX_INT32:
    snprintf(buf, size, "%" PRId32, u.i32);
    return;
  case OX_INT64:
    snprintf(buf, size, "%" PRId64, u.i64);
    return;
  case OX_UINT8:
  case OX_BOOL:
    snprintf(buf, size, "%u", u.u8);
    return;
  case OX_UINT16:
    snprintf(buf, size, "%u", u.u16);
    return;
  case OX_UINT32:
    snprintf(buf, size, "%" PRIu32, u.u32);
    return;
  case OX_UINT64:
    snprintf(buf, size, "%" PRIu64, u.u64);
    return;
  case OX_FLOAT:
    snprintf(buf, size, "%.9g", (double)u.f32);
    return;
  case OX_DOUBLE:
    snprintf(buf, size, "%.17g", u.f64);
    return;
  default:
    break;
  }
  size_t used = 0;
  buf[0] = '\0';
  used += (size_t)snprintf(buf, size, "0x");
  /* The bits, most significant byte first on a little-endian host. */
  for (size_t k = 0; k < n && used + 3 <= size; k++) {
    used += (size_t)snprintf(buf + used, size - used, "%02x", e[n - 1 - k]);
  }
}

/* Appends the multi-index of flat element i to buf, e.g. "[1,0,2]". */
static void ox_format_index(char *buf, size_t size, const ox_tensor *t, int64_t i) {
  int64_t idx[32];
  size_t rank = t->rank < 32 ? t->rank : 32;
  int64_t rest = i;
  for (size_t k = t->rank; k-- > 0;) {
    int64_t d = t->dims[k] > 0 ? t->dims[k] : 1;
    if (k < 32) {
      idx[k] = rest % d;
    }
    rest /= d;
  }
  shape_format(idx, rank, buf, size);
}

int ox_tensor_compare(const ox_tensor *expected, const ox_tensor *actual, tool_error *err) {
  char a[256];
  char b[256];
  if (expected->onnx_type != actual->onnx_type) {
    return tool_fail(err, CLI_EXIT_FAIL, "type %s expected, got %s",
                     ox_type_name(expected->onnx_type), ox_type_name(actual->onnx_type));
  }
  int same_shape = expected->rank == actual->rank;
  for (size_t i = 0; same_shape && i < expected->rank; i++) {
    same_shape = expected->dims[i] == actual->dims[i];
  }
  if (!same_shape) {
    shape_format(expected->dims, expected->rank, a, sizeof a);
    shape_format(actual->dims, actual->rank, b, sizeof b);
    return tool_fail(err, CLI_EXIT_FAIL, "shape %s expected, got %s", a, b);
  }
  size_t n = expected->count > 0 ? expected->nbytes / (size_t)expected->count : 0;
  for (int64_t i = 0; i < expected->count; i++) {
    int differs;
    if (expected->onnx_type == OX_STRING) {
      const cleave_string *x = &((const cleave_string *)expected->data)[i];
      const cleave_string *y = &((const cleave_string *)actual->data)[i];
      differs = x->size != y->size || (x->size > 0 && memcmp(x->data, y->data, x->size) != 0);
    } else {
      const unsigned char *x = (const unsigned char *)expected->data + (size_t)i * n;
      const unsigned char *y = (const unsigned char *)actual->data + (size_t)i * n;
      differs = memcmp(x, y, n) != 0;
    }
    if (differs) {
      char where[128];
      ox_format_index(where, sizeof where, expected, i);
      ox_format_element(a, sizeof a, expected, i);
      ox_format_element(b, sizeof b, actual, i);
      return tool_fail(err, CLI_EXIT_FAIL, "element %s is %s, expected %s", where, b, a);
    }
  }
  return CLI_EXIT_OK;
}

int ox_value_compare(const ox_value *expected, const ox_value *actual, tool_error *err) {
  if (expected->kind != actual->kind) {
    return tool_fail(err, CLI_EXIT_FAIL, "a %s expected, got a %s",
                     expected->kind == OX_KIND_TENSOR ? "tensor" : "sequence",
                     actual->kind == OX_KIND_TENSOR ? "tensor" : "sequence");
  }
  if (expected->kind == OX_KIND_TENSOR) {
    return ox_tensor_compare(&expected->tensor, &actual->tensor, err);
  }
  if (expected->length != actual->length) {
    return tool_fail(err, CLI_EXIT_FAIL, "sequence of %zu %s expected, got %zu", expected->length,
                     tool_plural(expected->length, "tensor", "tensors"), actual->length);
  }
  for (size_t i = 0; i < expected->length; i++) {
    if (ox_tensor_compare(&expected->items[i], &actual->items[i], err) != CLI_EXIT_OK) {
      return tool_prefix(err, "sequence element %zu", i);
    }
  }
  return CLI_EXIT_OK;
}
