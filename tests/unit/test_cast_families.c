/* The casts' two kernel families give the same bits: the AVX2 + F16C kernels against the
 * portable ones (src/convert) on every 16-bit pattern, every e4m3 byte under several scales, and
 * random and edge float32 patterns, at every length up to a few vectors (so that each tail runs).
 * The values themselves are checked against NumPy and torch in tests/convert/test_casts.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert/convert.h"

#define N 65536

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}

static size_t width(int index) {
  return index == 0 ? 4 : index == 3 ? 8 : 2;
}

/* Fills `src` with n elements of the source type `from`: every 16-bit pattern for halves,
 * random bits with edge patterns for f32. */
static void fill(int from, unsigned char *src, size_t n) {
  static const uint32_t edges[] = {0x7F800001u, 0x7FC00000u, 0xFFA00001u, 0x7F800000u,
                                   0x477FF000u, 0x477FEFFFu, 0x00000001u, 0x387FE000u,
                                   0x33000000u, 0x7F7FFFFFu, 0x3F808000u, 0x3F818000u};
  for (size_t i = 0; i < n; i++) {
    if (from == 0) {
      uint32_t v = i < sizeof edges / sizeof edges[0] ? edges[i] : next_random();
      memcpy(src + 4 * i, &v, 4);
    } else {
      uint16_t v = (uint16_t)i;
      memcpy(src + 2 * i, &v, 2);
    }
  }
}

static void test_casts_agree(void **state) {
  (void)state;
  const cleave_cast_kernels *family = cleave_cast_simd();
  if (family == NULL) {
    skip();
  }
  unsigned char *src = malloc(8 * N);
  unsigned char *a = malloc(8 * N);
  unsigned char *b = malloc(8 * N);
  assert_non_null(src);
  assert_non_null(a);
  assert_non_null(b);
  for (int from = 0; from < 3; from++) {
    fill(from, src, N);
    for (int to = 0; to < 3; to++) {
      cleave_cast_kernel simd = family->cast[from][to];
      if (simd == NULL) {
        continue;
      }
      cleave_cast_portable.cast[from][to](src, a, N);
      memset(b, 0, width(to) * N);
      simd(src, b, N);
      assert_memory_equal(a, b, width(to) * N);
      for (size_t n = 0; n < 40; n++) { /* every tail length, from an odd start */
        memset(b, 0xEE, 64 * 8);
        simd(src + width(from), b, n);
        cleave_cast_portable.cast[from][to](src + width(from), a, n);
        assert_memory_equal(a, b, width(to) * n);
        assert_int_equal(b[width(to) * n], 0xEE);
      }
    }
  }
  free(src);
  free(a);
  free(b);
}

static void test_fp8_agree(void **state) {
  (void)state;
  const cleave_cast_kernels *family = cleave_cast_simd();
  if (family == NULL) {
    skip();
  }
  static const float scales[] = {1.0f, 0.5f, 3.0e-3f, 1.0e30f, 1.0e-40f, -2.5f, 0.0f};
  uint8_t src[256 + 40];
  unsigned char a[8 * 296], b[8 * 296];
  for (size_t i = 0; i < sizeof src; i++) {
    src[i] = (uint8_t)i;
  }
  uint32_t nan_bits = 0x7FC00001u;
  float nan_scale;
  memcpy(&nan_scale, &nan_bits, 4);
  for (size_t k = 0; k <= sizeof scales / sizeof scales[0]; k++) {
    float scale = k < sizeof scales / sizeof scales[0] ? scales[k] : nan_scale;
    for (int to = 0; to < 3; to++) {
      cleave_fp8_kernel simd = family->fp8[to];
      assert_non_null(simd);
      for (size_t n = 250; n <= sizeof src; n++) {
        cleave_cast_portable.fp8[to](src, scale, a, n);
        simd(src, scale, b, n);
        assert_memory_equal(a, b, width(to) * n);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_casts_agree),
      cmocka_unit_test(test_fp8_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
