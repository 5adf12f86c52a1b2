/*
 * The OpenVINO reference cases (tests/conformance/openvino/reference_cases.json; the path is the
 * first argument). Every case runs, for every dtype it is instantiated for when
 * data_et is "T": the data values are written in the dtype's own encoding (f16/bf16 bit patterns
 * computed here, boolean as bytes), axis and split_lengths are cleave_values of the case's element
 * type and shape, and every output's shape and values are checked, through cleave_run and a plan.
 * The last test fails unless every case of the file ran.
 */
#include "test_util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t cases_total;
static size_t cases_ran;
static size_t instances_ran;

/* The dtype of a JSON element-type name, from the test's own table. */
static int dtype_of(const char *name, cleave_dtype *out) {
  for (size_t i = 0; i < tu_num_types; ++i) {
    if (tu_types[i].type.width == 0 && strcmp(tu_types[i].label, name) == 0) {
      *out = tu_types[i].type.dtype;
      return 1;
    }
  }
  return 0;
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* IEEE binary16 from binary32, round to nearest even (enough for any value, not just integers). */
static uint16_t f16_bits(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xFFu;
  uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFFu) {
    return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u : 0u));
  }
  int32_t e = (int32_t)exp - 127 + 15;
  if (e >= 31) {
    return (uint16_t)(sign | 0x7C00u);
  }
  if (e <= 0) {
    if (e < -10) {
      return (uint16_t)sign;
    }
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t mid = 1u << (shift - 1u);
    if (rem > mid || (rem == mid && (half & 1u))) {
      ++half;
    }
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | ((uint32_t)e << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) {
    ++half; /* a carry into the exponent is the correct rounding */
  }
  return (uint16_t)half;
}

/* bfloat16: the top half of binary32, round to nearest even. */
static uint16_t bf16_bits(float f) {
  uint32_t x = f32_bits(f);
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7FFFu + lsb;
  return (uint16_t)(x >> 16);
}

/* Writes `v` as one element of `dtype` at `dst`. Returns the element size, 0 if unsupported. */
static size_t encode(cleave_dtype dtype, double v, unsigned char *dst) {
  switch (dtype) {
  case CLEAVE_BOOLEAN: {
    unsigned char b = (unsigned char)(int)v;
    *dst = b;
    return 1;
  }
  case CLEAVE_I8:
  case CLEAVE_I16:
  case CLEAVE_I32:
  case CLEAVE_I64:
  case CLEAVE_U8:
  case CLEAVE_U16:
  case CLEAVE_U32:
  case CLEAVE_U64:
    tu_store_int(dtype, (int64_t)v, dst);
    return tu_int_size(dtype);
  case CLEAVE_F16: {
    uint16_t h = f16_bits((float)v);
    memcpy(dst, &h, 2);
    return 2;
  }
  case CLEAVE_BF16: {
    uint16_t h = bf16_bits((float)v);
    memcpy(dst, &h, 2);
    return 2;
  }
  case CLEAVE_F32: {
    float f = (float)v;
    memcpy(dst, &f, 4);
    return 4;
  }
  case CLEAVE_F64:
    memcpy(dst, &v, 8);
    return 8;
  default:
    return 0;
  }
}

/* Spot checks of the encoders against known bit patterns. */
static void test_encoders(void **state) {
  (void)state;
  assert_int_equal(f16_bits(1.0f), 0x3C00);
  assert_int_equal(f16_bits(2.0f), 0x4000);
  assert_int_equal(f16_bits(71.0f), 0x5470);
  assert_int_equal(f16_bits(0.0f), 0x0000);
  assert_int_equal(f16_bits(-1.0f), 0xBC00);
  assert_int_equal(f16_bits(0.1f), 0x2E66);
  assert_int_equal(f16_bits(65504.0f), 0x7BFF);
  assert_int_equal(f16_bits(1e9f), 0x7C00);
  assert_int_equal(bf16_bits(1.0f), 0x3F80);
  assert_int_equal(bf16_bits(63.0f), 0x427C);
  assert_int_equal(bf16_bits(-2.0f), 0xC000);
}

/* Builds a cleave_values of element type `et` and JSON `shape` ([] -> rank 0, [k] -> rank 1). */
static void make_values(const cJSON *input, const int64_t *vals, int64_t count, int64_t *storage,
                        cleave_values *out) {
  const cJSON *et = cJSON_GetObjectItemCaseSensitive(input, "et");
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(input, "shape");
  assert_true(cJSON_IsString(et));
  assert_true(cJSON_IsArray(shape));
  cleave_dtype dtype = CLEAVE_I64; /* gcc cannot see that a failing assert_true never returns */
  assert_true(dtype_of(et->valuestring, &dtype));
  int rank = cJSON_GetArraySize(shape);
  assert_true(rank == 0 || rank == 1);
  if (rank == 1) {
    assert_true(cJSON_GetArrayItem(shape, 0)->valuedouble == (double)count);
  } else {
    assert_int_equal(count, 1);
  }
  for (int64_t i = 0; i < count; ++i) {
    tu_store_int(dtype, vals[i], (unsigned char *)storage + (size_t)i * tu_int_size(dtype));
  }
  out->dtype = dtype;
  out->rank = (size_t)rank;
  out->count = (size_t)count;
  out->data = storage;
}

static size_t read_ints(const cJSON *array, int64_t *out, size_t cap) {
  size_t n = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, array) {
    assert_true(cJSON_IsNumber(item));
    assert_true(n < cap);
    out[n++] = (int64_t)item->valuedouble;
  }
  return n;
}

static unsigned char *encode_values(const cJSON *values, cleave_dtype dtype, size_t *bytes) {
  size_t n = (size_t)cJSON_GetArraySize(values);
  unsigned char *buf = malloc(n * 8 + 1);
  assert_non_null(buf);
  size_t at = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, values) {
    assert_true(cJSON_IsNumber(item));
    size_t w = encode(dtype, item->valuedouble, buf + at);
    assert_true(w > 0);
    at += w;
  }
  *bytes = at;
  return buf;
}

/* Runs one case for one data dtype. */
static void run_instance(const cJSON *c, cleave_dtype dtype) {
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
  const cJSON *opname = cJSON_GetObjectItemCaseSensitive(c, "op");
  assert_true(cJSON_IsString(opname));
  tu_context("case %d (%s, %s) as %s", id ? id->valueint : -1, opname->valuestring,
             cJSON_GetObjectItemCaseSensitive(c, "source_test_name")
                 ? cJSON_GetObjectItemCaseSensitive(c, "source_test_name")->valuestring
                 : "?",
             cleave_dtype_name(dtype) ? cleave_dtype_name(dtype) : "?");

  int64_t shape[TU_MAX_RANK];
  size_t rank = read_ints(cJSON_GetObjectItemCaseSensitive(c, "data_shape"), shape, TU_MAX_RANK);
  size_t in_bytes = 0;
  unsigned char *data =
      encode_values(cJSON_GetObjectItemCaseSensitive(c, "data_values"), dtype, &in_bytes);
  TU_CHECK(in_bytes == (size_t)tu_count(shape, rank) * tu_elem_size(cleave_type_of(dtype)));

  int64_t axis_value = (int64_t)cJSON_GetObjectItemCaseSensitive(c, "axis")->valuedouble;
  int64_t axis_storage[2] = {0, 0};
  cleave_op op;
  memset(&op, 0, sizeof op);
  op.keepdims = 1;
  make_values(cJSON_GetObjectItemCaseSensitive(c, "axis_input"), &axis_value, 1, axis_storage,
              &op.axis);
  int64_t lens[16];
  int64_t lens_storage[16];
  if (strcmp(opname->valuestring, "Split-1") == 0) {
    op.kind = CLEAVE_OP_SPLIT;
    op.opset = 1;
    op.num_splits = (int64_t)cJSON_GetObjectItemCaseSensitive(c, "num_splits")->valuedouble;
    op.lengths = cleave_values_none();
  } else {
    TU_CHECK(strcmp(opname->valuestring, "VariadicSplit-1") == 0);
    op.kind = CLEAVE_OP_VARIADIC_SPLIT;
    op.opset = 1;
    size_t k = read_ints(cJSON_GetObjectItemCaseSensitive(c, "split_lengths"), lens, 16);
    make_values(cJSON_GetObjectItemCaseSensitive(c, "split_lengths_input"), lens, (int64_t)k,
                lens_storage, &op.lengths);
  }

  const cJSON *expected = cJSON_GetObjectItemCaseSensitive(c, "expected_outputs");
  size_t n = (size_t)cJSON_GetArraySize(expected);
  cleave_type type = cleave_type_of(dtype);

  /* Shapes: through inference and a plan. */
  cleave_split_info info;
  cleave_error err;
  int64_t got_lens[16];
  cleave_status st = cleave_infer(&op, type, shape, rank, &info, got_lens, 16, &err);
  if (st != CLEAVE_OK) {
    print_error("cleave_infer: %d \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  TU_CHECK(info.num_outputs == n);
  cleave_plan *plan = NULL;
  TU_CHECK(cleave_plan_create(&op, type, shape, rank, &plan, &err) == CLEAVE_OK);

  unsigned char **want = calloc(n, sizeof *want);
  size_t *want_bytes = calloc(n, sizeof *want_bytes);
  tu_outputs out;
  assert_non_null(want);
  assert_non_null(want_bytes);
  for (size_t i = 0; i < n; ++i) {
    const cJSON *o = cJSON_GetArrayItem(expected, (int)i);
    int64_t oshape[TU_MAX_RANK];
    size_t orank = read_ints(cJSON_GetObjectItemCaseSensitive(o, "shape"), oshape, TU_MAX_RANK);
    TU_CHECK(orank == rank);
    int64_t dims[TU_MAX_RANK];
    TU_CHECK(cleave_plan_output_shape(plan, i, dims, &err) == CLEAVE_OK);
    for (size_t d = 0; d < rank; ++d) {
      TU_CHECK(dims[d] == oshape[d]);
    }
    TU_CHECK(got_lens[i] == oshape[info.axis]);
    want[i] = encode_values(cJSON_GetObjectItemCaseSensitive(o, "values"), dtype, &want_bytes[i]);
    TU_CHECK(want_bytes[i] == (size_t)tu_count(oshape, orank) * tu_elem_size(type));
    TU_CHECK(cleave_plan_output_bytes(plan, i) == (int64_t)want_bytes[i]);
  }

  /* Values: cleave_run, then the plan. */
  for (int via = 0; via < 2; ++via) {
    tu_outputs_make(&out, n, want_bytes, 0);
    cleave_tensor t = {data, type, rank, shape};
    if (via == 0) {
      st = cleave_run(&op, &t, (void *const *)out.buffers, n, &err);
    } else {
      st = cleave_plan_run(plan, data, (void *const *)out.buffers, &err);
    }
    if (st != CLEAVE_OK) {
      print_error("%s: %d \"%s\"\n", via ? "cleave_plan_run" : "cleave_run", (int)st, err.message);
    }
    TU_CHECK(st == CLEAVE_OK);
    for (size_t i = 0; i < n; ++i) {
      if (memcmp(out.buffers[i], want[i], want_bytes[i]) != 0) {
        print_error("output %zu differs from the expected values\n", i);
        TU_CHECK(0);
      }
    }
    tu_outputs_free(&out);
  }
  cleave_plan_destroy(plan);
  for (size_t i = 0; i < n; ++i) {
    free(want[i]);
  }
  free(want);
  free(want_bytes);
  free(data);
  ++instances_ran;
}

static void run_case(void **state) {
  const cJSON *c = *state;
  const cJSON *et = cJSON_GetObjectItemCaseSensitive(c, "data_et");
  assert_true(cJSON_IsString(et));
  size_t runs = 0;
  if (strcmp(et->valuestring, "T") == 0) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(c, "instantiated_for_dtypes");
    assert_true(cJSON_IsArray(list));
    const cJSON *name;
    cJSON_ArrayForEach(name, list) {
      cleave_dtype dtype = CLEAVE_I64; /* gcc cannot see that a failing assert_true never returns */
      assert_true(cJSON_IsString(name));
      assert_true(dtype_of(name->valuestring, &dtype));
      run_instance(c, dtype);
      ++runs;
    }
  } else {
    cleave_dtype dtype = CLEAVE_I64; /* gcc cannot see that a failing assert_true never returns */
    assert_true(dtype_of(et->valuestring, &dtype));
    run_instance(c, dtype);
    ++runs;
  }
  assert_true(runs > 0);
  ++cases_ran;
}

static void all_cases_ran(void **state) {
  (void)state;
  print_message("%zu of %zu cases ran (%zu case x dtype instances)\n", cases_ran, cases_total,
                instances_ran);
  assert_true(cases_total > 0);
  assert_int_equal(cases_ran, cases_total);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    return NULL;
  }
  size_t cap = 1 << 16;
  size_t len = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) {
      break;
    }
    if (len + 1 >= cap) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf) {
    buf[len] = '\0';
  }
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s reference_cases.json\n", argv[0]);
    return 2;
  }
  char *text = read_file(argv[1]);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  cJSON *root = cJSON_Parse(text);
  free(text);
  if (!cJSON_IsArray(root)) {
    fprintf(stderr, "%s is not a JSON array\n", argv[1]);
    return 2;
  }
  cases_total = (size_t)cJSON_GetArraySize(root);
  size_t count = cases_total + 2;
  struct CMUnitTest *tests = calloc(count, sizeof *tests);
  char **names = calloc(count, sizeof *names);
  if (!tests || !names) {
    return 2;
  }
  tests[0].name = "encoders";
  tests[0].test_func = test_encoders;
  size_t t = 1;
  const cJSON *c;
  cJSON_ArrayForEach(c, root) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "source_test_name");
    names[t] = malloc(128);
    if (!names[t]) {
      return 2;
    }
    snprintf(names[t], 128, "case %d %s", cJSON_IsNumber(id) ? id->valueint : (int)t - 1,
             cJSON_IsString(name) ? name->valuestring : "");
    tests[t].name = names[t];
    tests[t].test_func = run_case;
    tests[t].initial_state = (void *)(uintptr_t)c;
    ++t;
  }
  tests[t].name = "all_cases_ran";
  tests[t].test_func = all_cases_ran;
  int failures = tu_run_group("openvino_conformance", tests, count);
  for (size_t i = 0; i < count; ++i) {
    free(names[i]);
  }
  free(names);
  free(tests);
  cJSON_Delete(root);
  return failures;
}
