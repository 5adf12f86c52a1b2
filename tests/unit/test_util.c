/* Shared helpers of the unit tests; see test_util.h. */
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

#define TU_GUARD 32

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

static const char *kind_name(cleave_op_kind kind) {
  switch (kind) {
  case CLEAVE_OP_SPLIT:
    return "Split-1";
  case CLEAVE_OP_VARIADIC_SPLIT:
    return "VariadicSplit-1";
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    return "SplitToSequence";
  case CLEAVE_OP_ONNX_SPLIT:
    return "ONNX Split";
  }
  return "?";
}

static int is_i64_scalar(const cleave_values *v) {
  return v->rank == 0 && v->count == 1 && v->dtype == CLEAVE_I64 && v->data != NULL;
}

cleave_status tu_run_oneshot(const cleave_op *op, const cleave_tensor *input, void *const *outputs,
                             size_t num_outputs, cleave_error *err, int *ran) {
  *ran = 0;
  switch (op->kind) {
  case CLEAVE_OP_SPLIT:
    if (!is_i64_scalar(&op->axis)) {
      return CLEAVE_OK;
    }
    *ran = 1;
    return cleave_split(input, *(const int64_t *)op->axis.data, op->num_splits, outputs,
                        num_outputs, err);
  case CLEAVE_OP_VARIADIC_SPLIT:
    if (!is_i64_scalar(&op->axis)) {
      return CLEAVE_OK;
    }
    *ran = 1;
    return cleave_variadic_split(input, *(const int64_t *)op->axis.data, op->lengths, outputs,
                                 num_outputs, err);
  case CLEAVE_OP_SPLIT_TO_SEQUENCE: {
    int64_t axis = 0;
    if (op->axis.rank != CLEAVE_ABSENT) {
      if (!is_i64_scalar(&op->axis)) {
        return CLEAVE_OK;
      }
      axis = *(const int64_t *)op->axis.data;
    }
    *ran = 1;
    return cleave_split_to_sequence(input, op->opset, axis, op->lengths, op->keepdims, outputs,
                                    num_outputs, err);
  }
  case CLEAVE_OP_ONNX_SPLIT: {
    int64_t axis = 0;
    if (op->axis.rank != CLEAVE_ABSENT) {
      if (!is_i64_scalar(&op->axis)) {
        return CLEAVE_OK;
      }
      axis = *(const int64_t *)op->axis.data;
    }
    /* The one-shot call gives the node num_outputs outputs: as the output count when split is
     * absent or the opset below 18, else not at all. It expresses `op` only when that is what
     * `op` says. */
    int counted = op->lengths.rank == CLEAVE_ABSENT || op->opset < 18;
    int has_count = op->num_outputs.rank != CLEAVE_ABSENT;
    if (counted != has_count ||
        (has_count && (!is_i64_scalar(&op->num_outputs) ||
                       *(const int64_t *)op->num_outputs.data != (int64_t)num_outputs))) {
      return CLEAVE_OK;
    }
    *ran = 1;
    return cleave_onnx_split(input, op->opset, axis, op->lengths, outputs, num_outputs, err);
  }
  }
  return CLEAVE_OK;
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

static void prefill_error(cleave_error *err) {
  err->status = (cleave_status)99;
  memset(err->message, 'x', sizeof err->message - 1);
  err->message[sizeof err->message - 1] = '\0';
}

static void check_ok_error(const cleave_error *err) {
  TU_CHECK(err->status == CLEAVE_OK);
  TU_CHECK(err->message[0] == '\0');
}

/* Output i's expected shape. */
static size_t expected_shape(const tu_input *in, const tu_expect *ex, size_t i, int64_t *dims) {
  size_t r = 0;
  for (size_t d = 0; d < in->tensor.rank; ++d) {
    if (d == ex->axis) {
      if (!ex->axis_removed) {
        dims[r++] = ex->lengths[i];
      }
    } else {
      dims[r++] = in->shape[d];
    }
  }
  return r;
}

static void expected_outputs(const tu_input *in, const tu_expect *ex, unsigned char **refs,
                             size_t *sizes) {
  size_t esize = tu_elem_size(in->tensor.type);
  int64_t offset = 0;
  for (size_t i = 0; i < ex->num_outputs; ++i) {
    int64_t dims[TU_MAX_RANK];
    size_t r = expected_shape(in, ex, i, dims);
    sizes[i] = (size_t)tu_count(dims, r) * esize;
    refs[i] = malloc(sizes[i] + 1);
    assert_non_null(refs[i]);
    tu_reference_chunk(in->bytes, in->shape, in->tensor.rank, ex->axis, offset, ex->lengths[i],
                       esize, refs[i]);
    offset += ex->lengths[i];
  }
}

static void compare_outputs(const tu_input *in, const tu_outputs *out, unsigned char *const *refs,
                            const char *via) {
  for (size_t i = 0; i < out->count; ++i) {
    int same = memcmp(out->buffers[i], refs[i], out->sizes[i]) == 0;
    if (!same) {
      print_error("%s: output %zu differs from the reference\n", via, i);
    }
    TU_CHECK(same);
    for (size_t g = 0; g < TU_GUARD; ++g) {
      TU_CHECK(out->buffers[i][out->sizes[i] + g] == TU_SENTINEL);
    }
    if (in->tensor.type.dtype == CLEAVE_STRING) {
      /* The handles must point at the input's own bytes, not at copies. */
      size_t n = out->sizes[i] / sizeof(cleave_string);
      for (size_t e = 0; e < n; ++e) {
        cleave_string got;
        cleave_string want;
        memcpy(&got, out->buffers[i] + e * sizeof got, sizeof got);
        memcpy(&want, refs[i] + e * sizeof want, sizeof want);
        TU_CHECK(got.data == want.data);
        TU_CHECK(got.size == want.size);
        TU_CHECK(got.data >= in->pool);
      }
    }
  }
}

static void check_info(const cleave_split_info *info, const tu_input *in, const tu_expect *ex) {
  TU_CHECK(info->axis == ex->axis);
  TU_CHECK(info->axis_dim == in->shape[ex->axis]);
  TU_CHECK(info->num_outputs == ex->num_outputs);
  TU_CHECK(info->output_rank == in->tensor.rank - (ex->axis_removed ? 1 : 0));
  TU_CHECK(info->axis_removed == ex->axis_removed);
  TU_CHECK(info->element_size == (int64_t)tu_elem_size(in->tensor.type));
}

void tu_check_success(const cleave_op *op, const tu_input *in, const tu_expect *ex) {
  cleave_error err;
  cleave_split_info info;
  size_t n = ex->num_outputs;
  const cleave_tensor *t = &in->tensor;

  /* Inference, with a lengths array larger than needed: entries past n stay untouched. */
  int64_t *lens = malloc((n + 4) * sizeof *lens);
  assert_non_null(lens);
  for (size_t i = 0; i < n + 4; ++i) {
    lens[i] = -7777;
  }
  prefill_error(&err);
  memset(&info, 0x5A, sizeof info);
  cleave_status st = cleave_infer(op, t->type, t->shape, t->rank, &info, lens, n + 4, &err);
  if (st != CLEAVE_OK) {
    print_error("cleave_infer: status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  check_ok_error(&err);
  check_info(&info, in, ex);
  for (size_t i = 0; i < n; ++i) {
    TU_CHECK(lens[i] == ex->lengths[i]);
  }
  for (size_t i = n; i < n + 4; ++i) {
    TU_CHECK(lens[i] == -7777);
  }
  memset(&info, 0x5A, sizeof info);
  st = cleave_infer(op, t->type, t->shape, t->rank, &info, NULL, 0, NULL);
  TU_CHECK(st == CLEAVE_OK);
  check_info(&info, in, ex);
  free(lens);

  unsigned char **refs = calloc(n + 1, sizeof *refs);
  size_t *sizes = calloc(n + 1, sizeof *sizes);
  assert_non_null(refs);
  assert_non_null(sizes);
  expected_outputs(in, ex, refs, sizes);

  /* cleave_run. */
  tu_outputs out;
  tu_outputs_make(&out, n, sizes, 0);
  prefill_error(&err);
  st = cleave_run(op, t, (void *const *)out.buffers, n, &err);
  if (st != CLEAVE_OK) {
    print_error("cleave_run: status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  check_ok_error(&err);
  compare_outputs(in, &out, refs, "cleave_run");
  tu_outputs_free(&out);

  /* The one-shot call, when the op can be expressed with it. */
  int ran = 0;
  tu_outputs_make(&out, n, sizes, 0);
  prefill_error(&err);
  st = tu_run_oneshot(op, t, (void *const *)out.buffers, n, &err, &ran);
  if (ran) {
    if (st != CLEAVE_OK) {
      print_error("one-shot: status %d, message \"%s\"\n", (int)st, err.message);
    }
    TU_CHECK(st == CLEAVE_OK);
    check_ok_error(&err);
    compare_outputs(in, &out, refs, "one-shot");
  }
  tu_outputs_free(&out);

  /* A plan: accessors, then runs with different input and output addresses. */
  cleave_plan *plan = NULL;
  prefill_error(&err);
  st = cleave_plan_create(op, t->type, t->shape, t->rank, &plan, &err);
  if (st != CLEAVE_OK) {
    print_error("cleave_plan_create: status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  TU_CHECK(plan != NULL);
  check_ok_error(&err);
  check_info(cleave_plan_info(plan), in, ex);
  for (size_t i = 0; i < n; ++i) {
    int64_t want[TU_MAX_RANK];
    int64_t got[TU_MAX_RANK + 1];
    size_t r = expected_shape(in, ex, i, want);
    TU_CHECK(cleave_plan_output_length(plan, i) == ex->lengths[i]);
    TU_CHECK(cleave_plan_output_bytes(plan, i) == (int64_t)sizes[i]);
    for (size_t d = 0; d <= TU_MAX_RANK; ++d) {
      got[d] = -5;
    }
    TU_CHECK(cleave_plan_output_shape(plan, i, got, NULL) == CLEAVE_OK);
    for (size_t d = 0; d < r; ++d) {
      TU_CHECK(got[d] == want[d]);
    }
    TU_CHECK(got[r] == -5);
  }
  TU_CHECK(cleave_plan_output_length(plan, n) == -1);
  TU_CHECK(cleave_plan_output_bytes(plan, n) == -1);
  int64_t dummy[TU_MAX_RANK];
  TU_CHECK(cleave_plan_output_shape(plan, n, dummy, NULL) == CLEAVE_ERROR_INVALID_ARGUMENT);

  unsigned char *moved = malloc(in->nbytes + 1);
  assert_non_null(moved);
  memcpy(moved, in->bytes, in->nbytes);
  for (int round = 0; round < 3; ++round) {
    tu_outputs_make(&out, n, sizes, 0);
    /* Round 2 passes NULL for every empty output, which the API allows. */
    void **ptrs = calloc(n + 1, sizeof *ptrs);
    assert_non_null(ptrs);
    for (size_t i = 0; i < n; ++i) {
      ptrs[i] = round == 2 && sizes[i] == 0 ? NULL : out.buffers[i];
    }
    prefill_error(&err);
    st = cleave_plan_run(plan, round == 1 ? moved : in->bytes, (void *const *)ptrs, &err);
    if (st != CLEAVE_OK) {
      print_error("cleave_plan_run round %d: status %d, message \"%s\"\n", round, (int)st,
                  err.message);
    }
    TU_CHECK(st == CLEAVE_OK);
    check_ok_error(&err);
    compare_outputs(in, &out, refs, "cleave_plan_run");
    free(ptrs);
    tu_outputs_free(&out);
  }
  free(moved);
  cleave_plan_destroy(plan);

  for (size_t i = 0; i < n; ++i) {
    free(refs[i]);
  }
  free(refs);
  free(sizes);
}

static void check_message(const cleave_error *err, cleave_status status, const char *const *needles,
                          const char *via) {
  if (err->status != status) {
    print_error("%s: err.status %d, expected %d\n", via, (int)err->status, (int)status);
  }
  TU_CHECK(err->status == status);
  TU_CHECK(err->message[0] != '\0');
  TU_CHECK(strlen(err->message) < CLEAVE_MESSAGE_SIZE);
  TU_CHECK(strchr(err->message, '\n') == NULL);
  for (size_t i = 0; needles && needles[i]; ++i) {
    if (!tu_message_has(err->message, needles[i])) {
      print_error("%s: message \"%s\" lacks \"%s\"\n", via, err->message, needles[i]);
    }
    TU_CHECK(tu_message_has(err->message, needles[i]));
  }
}

static void check_status(cleave_status got, cleave_status want, const cleave_error *err,
                         const char *via) {
  if (got != want) {
    print_error("%s: status %d (%s), expected %d (%s); message \"%s\"\n", via, (int)got,
                cleave_status_name(got), (int)want, cleave_status_name(want),
                err ? err->message : "");
  }
  TU_CHECK(got == want);
}

static void check_infer_and_plan_error(const cleave_op *op, cleave_type type, const int64_t *shape,
                                       size_t rank, cleave_status status,
                                       const char *const *needles) {
  cleave_error err;
  cleave_split_info info;
  int64_t lens[64];
  for (size_t i = 0; i < 64; ++i) {
    lens[i] = -7777;
  }
  prefill_error(&err);
  cleave_status st = cleave_infer(op, type, shape, rank, &info, lens, 64, &err);
  check_status(st, status, &err, "cleave_infer");
  check_message(&err, status, needles, "cleave_infer");
  for (size_t i = 0; i < 64; ++i) {
    TU_CHECK(lens[i] == -7777);
  }
  st = cleave_infer(op, type, shape, rank, &info, NULL, 0, NULL);
  check_status(st, status, NULL, "cleave_infer (no lengths, no err)");

  cleave_plan *plan = (cleave_plan *)(void *)&err;
  prefill_error(&err);
  st = cleave_plan_create(op, type, shape, rank, &plan, &err);
  check_status(st, status, &err, "cleave_plan_create");
  check_message(&err, status, needles, "cleave_plan_create");
  TU_CHECK(plan == NULL);
  if (plan != NULL && st == CLEAVE_OK) {
    cleave_plan_destroy(plan);
  }
}

static void check_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                        size_t num_outputs, cleave_status status, const char *const *needles,
                        int run_only);

void tu_check_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                    size_t num_outputs, cleave_status status, const char *const *needles) {
  check_error(op, type, shape, rank, num_outputs, status, needles, 0);
}

void tu_check_run_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                        size_t num_outputs, cleave_status status, const char *const *needles) {
  check_error(op, type, shape, rank, num_outputs, status, needles, 1);
}

static void check_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                        size_t num_outputs, cleave_status status, const char *const *needles,
                        int run_only) {
  /* A real input when the shape is small and valid; otherwise a small dummy buffer that the
   * library must never get to read. */
  tu_input in;
  int small = rank <= TU_MAX_RANK && tu_elem_size(type) > 0;
  int64_t count = 1;
  for (size_t i = 0; small && i < rank; ++i) {
    if (shape[i] < 0 || shape[i] > 4096 || (count *= shape[i]) > 65536) {
      small = 0;
    }
  }
  cleave_tensor tensor;
  unsigned char dummy[256];
  memset(dummy, 0, sizeof dummy);
  if (small) {
    tu_input_make(&in, type, shape, rank, 3);
    tensor = in.tensor;
  } else {
    memset(&in, 0, sizeof in);
    tensor.data = dummy;
    tensor.type = type;
    tensor.rank = rank;
    tensor.shape = shape;
  }

  char text[256];
  tu_context("%s opset %lld on %s %s, expecting status %d", kind_name(op->kind),
             (long long)op->opset,
             cleave_dtype_name(type.dtype) ? cleave_dtype_name(type.dtype) : "?",
             tu_shape_text(shape, rank < TU_MAX_RANK ? rank : TU_MAX_RANK, text, sizeof text),
             (int)status);

  cleave_error err;
  cleave_split_info info;
  cleave_status st;
  if (run_only) {
    /* The op itself is valid: only running it with these outputs is not. */
    st = cleave_infer(op, type, shape, rank, &info, NULL, 0, &err);
    check_status(st, CLEAVE_OK, &err, "cleave_infer");
  } else {
    check_infer_and_plan_error(op, type, shape, rank, status, needles);
  }
  size_t each = in.nbytes > 64 ? in.nbytes : 64;
  tu_outputs out;
  tu_outputs_make(&out, num_outputs, NULL, each);
  prefill_error(&err);
  st = cleave_run(op, &tensor, (void *const *)out.buffers, num_outputs, &err);
  check_status(st, status, &err, "cleave_run");
  check_message(&err, status, needles, "cleave_run");
  TU_CHECK(tu_outputs_untouched(&out));
  tu_outputs_free(&out);

  int ran = 0;
  tu_outputs_make(&out, num_outputs, NULL, each);
  prefill_error(&err);
  st = tu_run_oneshot(op, &tensor, (void *const *)out.buffers, num_outputs, &err, &ran);
  if (ran) {
    check_status(st, status, &err, "one-shot");
    check_message(&err, status, needles, "one-shot");
    TU_CHECK(tu_outputs_untouched(&out));
  }
  tu_outputs_free(&out);

  if (small) {
    tu_input_free(&in);
  }
}

int tu_run_group(const char *name, const struct CMUnitTest *tests, size_t count) {
  return _cmocka_run_group_tests(name, tests, count, NULL, NULL);
}
