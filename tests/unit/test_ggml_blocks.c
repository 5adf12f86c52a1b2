/*
 * ggml's block formats (cleave.h "ggml blocks"): the type table, the checks of
 * cleave_ggml_dequantize and cleave_ggml_quantize (each error with its status and message, and
 * nothing written), and the AVX2 kernels giving the portable kernels' bits. The values
 * themselves are checked against gguf-py in tests/convert/test_ggml_blocks.py.
 */
#include "test_util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Internal (src/convert/): the kernels, to compare the two families directly. */
typedef void (*dequant_fn)(const uint8_t *src, int64_t n, float *dst);
dequant_fn cleave_ggml_dequant_avx2(cleave_ggml_type type);
dequant_fn cleave_ggml_dequant_portable(cleave_ggml_type type);
_Bool cleave_cpu_has_avx2(void);
void cleave_ggml_quantize_q8_0_portable(const float *src, int64_t n_blocks, uint8_t *dst);
void cleave_ggml_quantize_q8_0_avx2(const float *src, int64_t n_blocks, uint8_t *dst);

#define SENTINEL 0x5au

static void test_type_table(void **state) {
  (void)state;
  static const struct {
    cleave_ggml_type type;
    const char *name;
    int64_t elements, bytes;
    int dequantizes;
  } rows[] = {
      {CLEAVE_GGML_F32, "F32", 1, 4, 1},       {CLEAVE_GGML_F16, "F16", 1, 2, 1},
      {CLEAVE_GGML_Q4_0, "Q4_0", 32, 18, 1},   {CLEAVE_GGML_Q8_0, "Q8_0", 32, 34, 1},
      {CLEAVE_GGML_Q2_K, "Q2_K", 256, 84, 1},  {CLEAVE_GGML_Q6_K, "Q6_K", 256, 210, 1},
      {CLEAVE_GGML_Q8_K, "Q8_K", 256, 292, 0}, {CLEAVE_GGML_IQ2_XXS, "IQ2_XXS", 256, 66, 0},
      {CLEAVE_GGML_BF16, "BF16", 1, 2, 1},     {CLEAVE_GGML_MXFP4, "MXFP4", 32, 17, 1},
      {CLEAVE_GGML_NVFP4, "NVFP4", 64, 36, 1}, {CLEAVE_GGML_Q2_0, "Q2_0", 64, 18, 0},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    int64_t e = 0, b = 0;
    assert_string_equal(cleave_ggml_type_name(rows[i].type), rows[i].name);
    assert_int_equal(cleave_ggml_type_size(rows[i].type, &e, &b, NULL), CLEAVE_OK);
    assert_int_equal(e, rows[i].elements);
    assert_int_equal(b, rows[i].bytes);
    assert_int_equal(cleave_ggml_can_dequantize(rows[i].type), rows[i].dequantizes);
    cleave_ggml_type t = (cleave_ggml_type)-1;
    assert_int_equal(cleave_ggml_type_from_name(rows[i].name, &t, NULL), CLEAVE_OK);
    assert_int_equal(t, rows[i].type);
  }
  cleave_ggml_type t;
  assert_int_equal(cleave_ggml_type_from_name("q4_k", &t, NULL), CLEAVE_OK);
  assert_int_equal(t, CLEAVE_GGML_Q4_K);
  cleave_error err;
  assert_int_equal(cleave_ggml_type_from_name("Q4_", &t, &err), CLEAVE_ERROR_UNSUPPORTED_TYPE);
  assert_string_equal(err.message, "no ggml type is named 'Q4_'");
  assert_int_equal(cleave_ggml_type_from_name(NULL, &t, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  /* numbers that are no type: the gaps and past the end */
  int gaps[] = {4, 5, 31, 32, 33, 36, 37, 38, 43, -1, 1000};
  for (size_t i = 0; i < sizeof gaps / sizeof gaps[0]; i++) {
    assert_null(cleave_ggml_type_name((cleave_ggml_type)gaps[i]));
    assert_int_equal(cleave_ggml_type_size((cleave_ggml_type)gaps[i], NULL, NULL, &err),
                     CLEAVE_ERROR_UNSUPPORTED_TYPE);
    assert_int_equal(cleave_ggml_can_dequantize((cleave_ggml_type)gaps[i]), 0);
    assert_int_equal(cleave_ggml_can_quantize((cleave_ggml_type)gaps[i], 32), 0);
  }
  assert_string_equal(err.message, "1000 is no ggml type");
}

static void test_can_quantize(void **state) {
  (void)state;
  assert_int_equal(cleave_ggml_can_quantize(CLEAVE_GGML_Q8_0, 0), 1);
  assert_int_equal(cleave_ggml_can_quantize(CLEAVE_GGML_Q8_0, 4096), 1);
  assert_int_equal(cleave_ggml_can_quantize(CLEAVE_GGML_Q8_0, 4097), 0);
  assert_int_equal(cleave_ggml_can_quantize(CLEAVE_GGML_Q8_0, 16), 0);
  assert_int_equal(cleave_ggml_can_quantize(CLEAVE_GGML_Q8_0, -32), 0);
  assert_int_equal(cleave_ggml_can_quantize(CLEAVE_GGML_F16, 7), 1);
  assert_int_equal(cleave_ggml_can_quantize(CLEAVE_GGML_Q4_K, 256), 0);
}

/* Runs a dequantize expected to fail: its status and message, and dst untouched. */
static void dequant_fails(cleave_ggml_type type, const void *src, int64_t src_bytes,
                          int64_t dst_bytes, cleave_status want, const char *message) {
  float dst[64];
  memset(dst, SENTINEL, sizeof dst);
  cleave_error err;
  assert_int_equal(cleave_ggml_dequantize(type, src, src_bytes, dst, dst_bytes, &err), want);
  assert_int_equal(err.status, want);
  assert_string_equal(err.message, message);
  const uint8_t *p = (const uint8_t *)dst;
  for (size_t i = 0; i < sizeof dst; i++) {
    assert_int_equal(p[i], SENTINEL);
  }
}

static void test_dequantize_errors(void **state) {
  (void)state;
  uint8_t src[68] = {0};
  dequant_fails(CLEAVE_GGML_Q8_0, src, 35, 256, CLEAVE_ERROR_INVALID_SHAPE,
                "35 bytes are not a whole number of Q8_0 blocks of 34 bytes");
  dequant_fails(CLEAVE_GGML_Q8_0, src, 68, 255, CLEAVE_ERROR_CAPACITY,
                "68 bytes of Q8_0 dequantize to 256 bytes but dst has room for 255");
  dequant_fails(CLEAVE_GGML_Q8_0, src, -34, 256, CLEAVE_ERROR_INVALID_ARGUMENT,
                "negative size: src_bytes -34, dst_bytes 256");
  dequant_fails(CLEAVE_GGML_Q8_0, NULL, 34, 256, CLEAVE_ERROR_INVALID_ARGUMENT,
                "NULL src with a non-zero size");
  dequant_fails(CLEAVE_GGML_IQ2_XXS, src, 66, 256, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                "IQ2_XXS cannot be dequantized");
  dequant_fails((cleave_ggml_type)5, src, 34, 256, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                "ggml type 5 cannot be dequantized");
  /* the float size overflows int64 long before src is read: Q4_0 widens 18 bytes to 128 */
  int64_t huge = INT64_MAX - INT64_MAX % 18;
  dequant_fails(CLEAVE_GGML_Q4_0, src, huge, 256, CLEAVE_ERROR_OVERFLOW,
                "512409557603043100 Q4_0 blocks dequantize to more float32 bytes than int64 "
                "holds");
  /* NULL dst with no room: fine when there is nothing to write */
  cleave_error err;
  assert_int_equal(cleave_ggml_dequantize(CLEAVE_GGML_Q8_0, NULL, 0, NULL, 0, &err), CLEAVE_OK);
  assert_string_equal(err.message, "");
  float one[1];
  assert_int_equal(cleave_ggml_dequantize(CLEAVE_GGML_Q8_0, src, 34, NULL, 128, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "NULL dst with a non-zero size");
  (void)one;
}

static void quant_fails(cleave_ggml_type type, const float *src, int64_t src_bytes, int64_t row,
                        int64_t dst_bytes, cleave_status want, const char *message) {
  uint8_t dst[256];
  memset(dst, SENTINEL, sizeof dst);
  cleave_error err;
  assert_int_equal(cleave_ggml_quantize(type, src, src_bytes, row, dst, dst_bytes, &err), want);
  assert_string_equal(err.message, message);
  for (size_t i = 0; i < sizeof dst; i++) {
    assert_int_equal(dst[i], SENTINEL);
  }
}

static void test_quantize_errors(void **state) {
  (void)state;
  float src[96] = {0};
  quant_fails(CLEAVE_GGML_Q8_0, src, 4 * 48, 48, 256, CLEAVE_ERROR_INVALID_SHAPE,
              "a row of 48 elements is not a whole number of Q8_0 blocks of 32");
  quant_fails(CLEAVE_GGML_Q8_0, src, 4 * 96, 64, 256, CLEAVE_ERROR_INVALID_SHAPE,
              "96 elements are not a whole number of rows of 64");
  quant_fails(CLEAVE_GGML_Q8_0, src, 4 * 32, 0, 256, CLEAVE_ERROR_INVALID_SHAPE,
              "32 elements are not a whole number of rows of 0");
  quant_fails(CLEAVE_GGML_Q8_0, src, 6, 32, 256, CLEAVE_ERROR_INVALID_SHAPE,
              "6 bytes are not whole float32 values");
  quant_fails(CLEAVE_GGML_Q8_0, src, 4 * 64, 32, 67, CLEAVE_ERROR_CAPACITY,
              "64 float32 values quantize to 68 bytes of Q8_0 but dst has room for 67");
  quant_fails(CLEAVE_GGML_Q4_K, src, 4 * 32, 32, 256, CLEAVE_ERROR_UNSUPPORTED_TYPE,
              "quantizing to Q4_K is not supported");
  quant_fails(CLEAVE_GGML_Q8_0, src, 4 * 32, -32, 256, CLEAVE_ERROR_INVALID_ARGUMENT,
              "negative size: src_bytes 128, row_length -32, dst_bytes 256");
  quant_fails(CLEAVE_GGML_Q8_0, NULL, 4 * 32, 32, 256, CLEAVE_ERROR_INVALID_ARGUMENT,
              "NULL src with a non-zero size");
}

/* Q8_0 by hand: d = 127 / 127 = 1 (f16 0x3c00), values rounded half away from zero. */
static void test_quantize_q8_0_values(void **state) {
  (void)state;
  float x[32];
  for (int i = 0; i < 32; i++) {
    x[i] = (float)i - 15.5f; /* ..., -0.5, 0.5, ... */
  }
  x[31] = 127.0f;
  uint8_t q[34];
  assert_int_equal(cleave_ggml_quantize(CLEAVE_GGML_Q8_0, x, sizeof x, 32, q, 34, NULL), CLEAVE_OK);
  assert_int_equal(q[0], 0x00);
  assert_int_equal(q[1], 0x3c);
  assert_int_equal((int8_t)q[2 + 0], -16); /* -15.5 */
  assert_int_equal((int8_t)q[2 + 15], -1); /* -0.5 */
  assert_int_equal((int8_t)q[2 + 16], 1);  /* 0.5 */
  assert_int_equal((int8_t)q[2 + 31], 127);
  float back[32];
  assert_int_equal(cleave_ggml_dequantize(CLEAVE_GGML_Q8_0, q, 34, back, sizeof back, NULL),
                   CLEAVE_OK);
  assert_true(back[0] == -16.0f && back[16] == 1.0f && back[31] == 127.0f);
}

/* The AVX2 kernels give the portable kernels' bits, on random blocks with special scales. */
static void test_avx2_same_bits(void **state) {
  (void)state;
  if (!cleave_cpu_has_avx2()) {
    skip();
  }
  static const uint16_t specials[] = {0x7c00, 0xfc00, 0x7c01, 0xfe00, 0x7d55, 0x0000,
                                      0x8000, 0x0001, 0x7bff, 0x3c00, 0xfdff, 0x03ff};
  enum { BLOCKS = 2000 };
  int tested = 0;
  for (int t = 0; t < 64; t++) {
    dequant_fn fast = cleave_ggml_dequant_avx2((cleave_ggml_type)t);
    if (fast == NULL) {
      continue;
    }
    dequant_fn slow = cleave_ggml_dequant_portable((cleave_ggml_type)t);
    assert_non_null(slow);
    int64_t e, b;
    assert_int_equal(cleave_ggml_type_size((cleave_ggml_type)t, &e, &b, NULL), CLEAVE_OK);
    uint8_t *src = malloc((size_t)(b * BLOCKS));
    float *x = malloc((size_t)(e * BLOCKS) * sizeof(float));
    float *y = malloc((size_t)(e * BLOCKS) * sizeof(float));
    assert_true(src != NULL && x != NULL && y != NULL);
    uint32_t r = 12345u + (uint32_t)t;
    for (int64_t i = 0; i < b * BLOCKS; i++) {
      r = r * 1664525u + 1013904223u;
      src[i] = (uint8_t)(r >> 24);
    }
    /* special values over every 2-byte position of some blocks: whatever the scales' places */
    for (int64_t k = 0; k < BLOCKS; k += 3) {
      for (int64_t off = 0; off + 1 < b; off += 2) {
        r = r * 1664525u + 1013904223u;
        if ((r >> 28) < 3) {
          uint16_t v = specials[(r >> 8) % (sizeof specials / sizeof specials[0])];
          src[k * b + off] = (uint8_t)v;
          src[k * b + off + 1] = (uint8_t)(v >> 8);
        }
      }
    }
    slow(src, BLOCKS, x);
    fast(src, BLOCKS, y);
    assert_memory_equal(x, y, (size_t)(e * BLOCKS) * sizeof(float));
    free(src);
    free(x);
    free(y);
    tested++;
  }
  assert_true(tested >= 6);
}

/* The AVX2 Q8_0 quantizer gives the portable one's bytes: random bit patterns (NaNs, infinities,
 * subnormals included), scaled normal values, halfway cases. */
static void test_avx2_quantize_same_bytes(void **state) {
  (void)state;
  if (!cleave_cpu_has_avx2()) {
    skip();
  }
  enum { BLOCKS = 3000 };
  float *x = malloc(BLOCKS * 32 * sizeof(float));
  uint8_t *a = malloc(BLOCKS * 34), *b = malloc(BLOCKS * 34);
  assert_true(x != NULL && a != NULL && b != NULL);
  uint32_t r = 99u;
  for (int i = 0; i < BLOCKS * 32; i++) {
    r = r * 1664525u + 1013904223u;
    int blk = i / 32;
    uint32_t u;
    if (blk % 3 == 0) {
      u = r; /* any bit pattern */
    } else {
      float f = (float)(int32_t)r * 0x1p-31f * (float)(1 << (blk % 20));
      memcpy(&u, &f, 4);
      if (blk % 7 == 0) {
        f = (float)(i % 32) - 15.5f;
        memcpy(&u, &f, 4);
      }
    }
    memcpy(&x[i], &u, 4);
  }
  cleave_ggml_quantize_q8_0_portable(x, BLOCKS, a);
  cleave_ggml_quantize_q8_0_avx2(x, BLOCKS, b);
  assert_memory_equal(a, b, BLOCKS * 34);
  free(x);
  free(a);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_type_table),
      cmocka_unit_test(test_can_quantize),
      cmocka_unit_test(test_dequantize_errors),
      cmocka_unit_test(test_quantize_errors),
      cmocka_unit_test(test_quantize_q8_0_values),
      cmocka_unit_test(test_avx2_same_bits),
      cmocka_unit_test(test_avx2_quantize_same_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
