/*
 * Concat of packed sub-byte types (docs/operators.md sections 7 and 8): each input's bits placed
 * at their bit offset in the output, bit for bit against the element-by-element reference, for
 * every packed type and bit order; joins on byte boundaries (the byte engine) and off them (the
 * bit-stream copy, on threads too); hand-written vectors that undo the splits of section 7.3.
 */
#include "concat_check.h"

#include <stdio.h>
#include <string.h>

static const cleave_dtype packed_types[] = {
    CLEAVE_U1,   CLEAVE_U2,    CLEAVE_U4,   CLEAVE_I4,    CLEAVE_NF4,       CLEAVE_F4E2M1,
    CLEAVE_INT4, CLEAVE_UINT4, CLEAVE_INT2, CLEAVE_UINT2, CLEAVE_FLOAT4E2M1};
#define NUM_PACKED (sizeof packed_types / sizeof packed_types[0])

static void test_random(void **state) {
  (void)state;
  uint64_t rng = 7;
  for (size_t t = 0; t < NUM_PACKED; t++) {
    for (int c = 0; c < 60; c++) {
      size_t rank = (size_t)cc_between(&rng, 1, 3), n = (size_t)cc_between(&rng, 1, 4);
      size_t axis = (size_t)cc_between(&rng, 0, (int64_t)rank - 1);
      int64_t shapes[4][CC_MAX_RANK];
      for (size_t k = 0; k < rank; k++) {
        shapes[0][k] = cc_between(&rng, 1, 7);
      }
      if (c % 8 == 0) {
        /* Now and then a long dimension: runs of more than 64 bits. */
        shapes[0][cc_between(&rng, 0, (int64_t)rank - 1)] = cc_between(&rng, 60, 150);
      }
      for (size_t i = 0; i < n; i++) {
        memcpy(shapes[i], shapes[0], sizeof shapes[0]);
        shapes[i][axis] = cc_between(&rng, 0, 9);
      }
      cc_inputs in;
      cc_inputs_make(&in, cleave_type_of(packed_types[t]), n, rank,
                     (const int64_t(*)[CC_MAX_RANK])shapes, (unsigned)c);
      int64_t value = (int64_t)axis;
      cleave_concat_op op = cleave_op_concat(&value);
      cc_context("packed type %d case %d: %zu inputs of rank %zu on axis %zu", (int)packed_types[t],
                 c, n, rank, axis);
      cc_expect ex;
      cc_expect_of(in.tensors, n, axis, 0, &ex);
      cc_check_success(&op, in.tensors, n, &ex);
      cc_inputs_free(&in);
    }
  }
}

/* Joins off byte boundaries take the bit-stream copy, on threads in ranges of 8-row groups; those
 * on byte boundaries the byte engine. */
static void test_paths(void **state) {
  (void)state;
  static const int64_t rows[] = {16, 17, 23, 61, 200};
  cleave_plan_options eager = cc_options(CLEAVE_KERNELS_AUTO, 0, 0, 64);
  for (size_t t = 0; t < NUM_PACKED; t++) {
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      const int64_t shapes[3][CC_MAX_RANK] = {{rows[r], 7}, {rows[r], 1}, {rows[r], 37}};
      cc_inputs in;
      cc_inputs_make(&in, cleave_type_of(packed_types[t]), 3, 2, shapes, (unsigned)r);
      int64_t axis = 1;
      cleave_concat_op op = cleave_op_concat(&axis);
      cc_expect ex;
      cc_expect_of(in.tensors, 3, 1, 0, &ex);
      static const char *const bits[] = {"bits", NULL};
      cc_context("packed type %d, %lld rows of 7 + 1 + 37", (int)packed_types[t],
                 (long long)rows[r]);
      CC_CHECK(cc_check_plan(&op, in.tensors, 3, &ex, &eager, CC_CUSTOM_2, 0, bits) == 1);
      cc_check_plan(&op, in.tensors, 3, &ex, &eager, CC_POOL_2, 0, bits);
      cc_inputs_free(&in);
    }
    /* Rows of whole bytes: 8 elements per input row for every width. */
    const int64_t aligned[2][CC_MAX_RANK] = {{9, 8}, {9, 16}};
    cc_inputs in;
    cc_inputs_make(&in, cleave_type_of(packed_types[t]), 2, 2, aligned, 5);
    int64_t axis = 1;
    cleave_concat_op op = cleave_op_concat(&axis);
    cc_expect ex;
    cc_expect_of(in.tensors, 2, 1, 0, &ex);
    cleave_concat_plan *plan = NULL;
    assert_int_equal(cleave_concat_plan_create(&op, in.tensors, 2, NULL, &plan, NULL), CLEAVE_OK);
    assert_string_not_equal(cleave_concat_plan_description(plan), "bits");
    cleave_concat_plan_destroy(plan);
    cc_check_plan(&op, in.tensors, 2, &ex, &eager, CC_POOL_2, 0, NULL);
    cc_inputs_free(&in);
  }
}

/* Joins one type's vectors, checking the output bytes as written by hand. */
static void check_vector(cleave_dtype dtype, size_t rank, const int64_t (*shapes)[2],
                         const unsigned char *const *data, size_t n, int64_t axis,
                         const unsigned char *want, size_t bytes) {
  cleave_tensor t[2];
  for (size_t i = 0; i < n; i++) {
    t[i] = (cleave_tensor){data[i], cleave_type_of(dtype), rank, shapes[i]};
  }
  cleave_concat_op op = cleave_op_concat(&axis);
  unsigned char out[8];
  memset(out, 0x5A, sizeof out);
  cleave_error err;
  assert_int_equal(cleave_concat_run(&op, t, n, out, &err), CLEAVE_OK);
  assert_memory_equal(out, want, bytes);
  assert_int_equal(out[bytes], 0x5A);
}

/* The splits of docs/operators.md section 7.3, undone. */
static void test_vectors(void **state) {
  (void)state;
  /* u1 [2,2] + [2,2] on axis 1: 1,0 / 0,0 and 1,1 / 1,0 give 1,0,1,1 / 0,0,1,0. */
  const int64_t u1_shapes[2][2] = {{2, 2}, {2, 2}};
  const unsigned char u1_a[] = {0x80}, u1_b[] = {0xE0}, u1_want[] = {0xB2};
  const unsigned char *u1[] = {u1_a, u1_b};
  check_vector(CLEAVE_U1, 2, u1_shapes, u1, 2, 1, u1_want, 1);
  /* u2 [1] + [2]: 3 and 2,1 give 3,2,1 from the top. */
  const int64_t one_two[2][2] = {{1, 0}, {2, 0}};
  const unsigned char u2_a[] = {0xC0}, u2_b[] = {0x90}, u2_want[] = {0xE4};
  const unsigned char *u2[] = {u2_a, u2_b};
  check_vector(CLEAVE_U2, 1, one_two, u2, 2, 0, u2_want, 1);
  /* int2 [1] + [2]: 0 and 1,2 give 0,1,2 from the bottom. */
  const unsigned char i2_a[] = {0x00}, i2_b[] = {0x09}, i2_want[] = {0x24};
  const unsigned char *i2[] = {i2_a, i2_b};
  check_vector(CLEAVE_INT2, 1, one_two, i2, 2, 0, i2_want, 1);
  /* u4 [1] + [2]: 1 and 2,3 give the bytes 0x21 0x03 (element 2 back in the high half). */
  const unsigned char u4_a[] = {0x01}, u4_b[] = {0x32}, u4_want[] = {0x21, 0x03};
  const unsigned char *u4[] = {u4_a, u4_b};
  check_vector(CLEAVE_U4, 1, one_two, u4, 2, 0, u4_want, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random),
      cmocka_unit_test(test_paths),
      cmocka_unit_test(test_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
