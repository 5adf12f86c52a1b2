/*
 * Regression tests of two defects an outside review found (issue 13); the third, nested use of
 * the built-in pool, is tests/kernels/test_nested_pool.c.
 *
 * - Packed splits that are not byte-aligned, with an empty output passed as NULL (which the
 *   header allows), computed `NULL + 0` in the bit-stream copy: undefined behaviour that clang's
 *   UBSan reports (-fsanitize=pointer-overflow). These tests fail under the CI's sanitizer build
 *   without the fix; in a plain build they check the bytes.
 * - Fixed-width strings of more than 2^60 bytes per element were refused with an overflow in
 *   bits although the shapes' byte sizes fit; partial inference must not depend on the element
 *   size at all (docs/operators.md section 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cleave.h"

/* ---- NULL for empty packed outputs ------------------------------------------------------- */

/* u4 (LSB first) [rows, 5] split on axis 1 into {2, 0, 3}: rows of 20 bits, outputs of 8 and 12
 * bits per row, so the split is not byte-aligned and takes the bit-stream copy. */
static void check_u4_outputs(const unsigned char *in, int64_t rows, const unsigned char *a,
                             const unsigned char *c) {
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t col = 0; col < 5; col++) {
      size_t k = (size_t)(r * 5 + col);
      unsigned v = (in[k / 2] >> (4 * (k % 2))) & 0xFu;
      size_t o = col < 2 ? (size_t)(r * 2 + col) : (size_t)(r * 3 + col - 2);
      const unsigned char *out = col < 2 ? a : c;
      assert_int_equal((out[o / 2] >> (4 * (o % 2))) & 0xFu, v);
    }
  }
}

static void test_packed_null_empty_output(void **state) {
  (void)state;
  enum { ROWS = 40 };
  unsigned char in[ROWS * 5 / 2];
  for (size_t i = 0; i < sizeof in; i++) {
    in[i] = (unsigned char)(i * 37u + 11u);
  }
  int64_t shape[2] = {ROWS, 5}, axis = 1, lengths[3] = {2, 0, 3};
  cleave_op op = cleave_op_variadic_split(&axis, lengths, 3);
  cleave_tensor t = {in, cleave_type_of(CLEAVE_U4), 2, shape};
  unsigned char a[ROWS], c[ROWS * 3 / 2];

  /* One-shot run. */
  memset(a, 0xEE, sizeof a);
  memset(c, 0xEE, sizeof c);
  void *outs[3] = {a, NULL, c};
  cleave_error err;
  assert_int_equal(cleave_run(&op, &t, outs, 3, &err), CLEAVE_OK);
  check_u4_outputs(in, ROWS, a, c);

  /* A plan, on this thread and on a pool with a threshold that makes it parallel (the threads
   * take ranges of rows that do not start at row 0). */
  cleave_plan_options options = cleave_plan_options_default();
  options.parallel_bytes = 1;
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create_with(&op, t.type, shape, 2, &options, &plan, &err),
                   CLEAVE_OK);
  assert_string_equal(cleave_plan_description(plan), "bits");
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, &err), CLEAVE_OK);
  cleave_exec exec = cleave_exec_threadpool(pool);
  for (int threaded = 0; threaded < 2; threaded++) {
    memset(a, 0xEE, sizeof a);
    memset(c, 0xEE, sizeof c);
    assert_int_equal(cleave_plan_run_exec(plan, in, outs, threaded ? &exec : NULL, &err),
                     CLEAVE_OK);
    check_u4_outputs(in, ROWS, a, c);
  }
  cleave_threadpool_destroy(pool);
  cleave_plan_destroy(plan);

  /* u1 (MSB first): [ROWS, 3] into {1, 0, 2}. */
  unsigned char bits_in[ROWS * 3 / 8 + 1], b0[ROWS / 8 + 1], b2[ROWS * 2 / 8 + 1];
  for (size_t i = 0; i < sizeof bits_in; i++) {
    bits_in[i] = (unsigned char)(i * 91u + 5u);
  }
  int64_t bshape[2] = {ROWS, 3}, blengths[3] = {1, 0, 2};
  cleave_op bop = cleave_op_variadic_split(&axis, blengths, 3);
  cleave_tensor bt = {bits_in, cleave_type_of(CLEAVE_U1), 2, bshape};
  void *bouts[3] = {b0, NULL, b2};
  assert_int_equal(cleave_run(&bop, &bt, bouts, 3, &err), CLEAVE_OK);
  for (int64_t r = 0; r < ROWS; r++) {
    for (int64_t col = 0; col < 3; col++) {
      size_t k = (size_t)(r * 3 + col);
      unsigned v = (bits_in[k / 8] >> (7 - k % 8)) & 1u;
      size_t o = col == 0 ? (size_t)r : (size_t)(r * 2 + col - 1);
      const unsigned char *out = col == 0 ? b0 : b2;
      assert_int_equal((out[o / 8] >> (7 - o % 8)) & 1u, v);
    }
  }
}

/* ---- fixed-width strings wider than 2^60 bytes ------------------------------------------- */

static void test_wide_strings_sized_in_bytes(void **state) {
  (void)state;
  const int64_t width = (int64_t)1 << 61;
  cleave_type bytes = {CLEAVE_BYTES, width};
  int64_t axis = 1;
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_split_info info;
  cleave_error err;
  int64_t lengths[2];

  /* [0,2] and [1,2]: byte sizes 0 and 2^62 fit. */
  int64_t empty[2] = {0, 2}, one[2] = {1, 2}, two[2] = {2, 2};
  assert_int_equal(cleave_infer(&op, bytes, empty, 2, &info, lengths, 2, &err), CLEAVE_OK);
  assert_int_equal(info.element_size, width);
  assert_int_equal(info.element_bits, 0); /* 2^64 bits do not fit: documented as 0 */
  assert_int_equal(lengths[0], 1);
  assert_int_equal(cleave_infer(&op, bytes, one, 2, &info, lengths, 2, &err), CLEAVE_OK);
  assert_int_equal(info.element_size, width);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, bytes, one, 2, &plan, &err), CLEAVE_OK);
  assert_int_equal(cleave_plan_output_bytes(plan, 1), width);
  cleave_plan_destroy(plan);

  /* [2,2] is 2^63 bytes: the byte size overflows, and the message says so in bytes. */
  assert_int_equal(cleave_infer(&op, bytes, two, 2, &info, NULL, 0, &err), CLEAVE_ERROR_OVERFLOW);
  assert_non_null(strstr(err.message, "byte size above 2^63-1"));
  assert_non_null(strstr(err.message, "S2305843009213693952"));

  /* A width just below the old limit still reports bits normally. */
  cleave_type narrow = {CLEAVE_BYTES, (int64_t)1 << 59};
  assert_int_equal(cleave_infer(&op, narrow, one, 2, &info, NULL, 0, &err), CLEAVE_OK);
  assert_int_equal(info.element_bits, (int64_t)1 << 62);

  /* cleave_type_size is bytes and fits; cleave_type_bits cannot express it. */
  int64_t size = 0, bits = 0;
  assert_int_equal(cleave_type_size(bytes, &size, &err), CLEAVE_OK);
  assert_int_equal(size, width);
  assert_int_equal(cleave_type_bits(bytes, &bits, NULL, &err), CLEAVE_ERROR_OVERFLOW);
}

static void test_partial_inference_ignores_element_size(void **state) {
  (void)state;
  int64_t axis = 1;
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_dim dims[2] = {cleave_dim_any(), cleave_dim_range(2, 8)};
  cleave_partial_shape shape = {2, dims};
  cleave_dim out[4];
  cleave_partial_info info;
  cleave_error err;
  /* Unicode of width 2^62 has 2^64 bytes per element, 2^61 bytes of S; neither matters here. */
  cleave_type types[3] = {{CLEAVE_BYTES, (int64_t)1 << 61},
                          {CLEAVE_UNICODE, (int64_t)1 << 62},
                          {CLEAVE_BYTES, INT64_MAX}};
  for (int k = 0; k < 3; k++) {
    assert_int_equal(cleave_infer_partial(&op, 0, types[k], &shape, &info, out, 4, &err),
                     CLEAVE_OK);
    assert_int_equal(info.count.lo, 2);
    assert_int_equal(out[1].lo, 1);
    assert_int_equal(out[1].hi, 4);
  }
  /* An invalid type is still an error (a width of 0). */
  cleave_type bad = {CLEAVE_BYTES, 0};
  assert_int_equal(cleave_infer_partial(&op, 0, bad, &shape, &info, NULL, 0, &err),
                   CLEAVE_ERROR_UNSUPPORTED_TYPE);
  assert_non_null(strstr(err.message, "width is 0"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_packed_null_empty_output),
      cmocka_unit_test(test_wide_strings_sized_in_bytes),
      cmocka_unit_test(test_partial_inference_ignores_element_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
