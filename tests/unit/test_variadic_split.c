/*
 * OpenVINO VariadicSplit-1 (docs/operators.md section 3): split_lengths is 1-D, integer, non-empty;
 * entries >= -1, at most one -1, which must resolve to >= 0; the resolved entries sum to d; zeros
 * are legal; unsigned values are read as unsigned.
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

static const int64_t shape6[2] = {6, 2};
static const int64_t axis0 = 0;

static void expect_lengths_error(const int64_t *lens, int64_t count, const int64_t *shape,
                                 size_t rank, const char *const *needles) {
  cleave_op op = cleave_op_variadic_split(&axis0, lens, (size_t)count);
  size_t n_out = count > 0 ? (size_t)count : 1;
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, rank, n_out, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
}

/* k >= 1: an empty split_lengths is an error (decision). */
static void test_empty_lengths(void **state) {
  (void)state;
  const int64_t dummy[1] = {6};
  const char *needles[] = {"split_lengths", NULL};
  expect_lengths_error(dummy, 0, shape6, 2, needles);
  /* Even on an empty axis, where an empty list would "sum" to d. */
  const int64_t empty[2] = {0, 2};
  expect_lengths_error(dummy, 0, empty, 2, needles);
}

/* Entries must be >= -1. */
static void test_entry_below_minus_one(void **state) {
  (void)state;
  const int64_t a[3] = {-2, 4, 4};
  const int64_t b[3] = {2, 2, -5};
  const int64_t c[2] = {INT64_MIN, 6};
  const char *na[] = {"split_lengths", "-2", NULL};
  const char *nb[] = {"split_lengths", "-5", NULL};
  const char *nc[] = {"split_lengths", "-9223372036854775808", NULL};
  expect_lengths_error(a, 3, shape6, 2, na);
  expect_lengths_error(b, 3, shape6, 2, nb);
  expect_lengths_error(c, 2, shape6, 2, nc);
}

/* At most one -1. */
static void test_two_minus_ones(void **state) {
  (void)state;
  const int64_t a[3] = {-1, 2, -1};
  const int64_t b[2] = {-1, -1};
  const char *needles[] = {"split_lengths", "-1", NULL};
  expect_lengths_error(a, 3, shape6, 2, needles);
  expect_lengths_error(b, 2, shape6, 2, needles);
}

/* A -1 stands for d - (sum of the others), which must be >= 0 (beyond OpenVINO). */
static void test_minus_one_resolving_negative(void **state) {
  (void)state;
  const int64_t a[3] = {4, 3, -1}; /* 6 - 7 = -1 */
  const int64_t b[2] = {-1, 10};   /* 6 - 10 = -4 */
  const char *na[] = {"split_lengths", "7", "6", NULL};
  const char *nb[] = {"split_lengths", "10", "6", NULL};
  expect_lengths_error(a, 3, shape6, 2, na);
  expect_lengths_error(b, 2, shape6, 2, nb);
  /* On an empty axis any positive entry leaves a negative remainder. */
  const int64_t empty[2] = {0, 2};
  const int64_t c[2] = {1, -1};
  const char *nc[] = {"split_lengths", "1", "0", NULL};
  expect_lengths_error(c, 2, empty, 2, nc);
}

/* A -1 resolving to 0 is fine: an empty output. */
static void test_minus_one_resolving_zero(void **state) {
  (void)state;
  const int64_t lens[3] = {2, -1, 4};
  const int64_t resolved[3] = {2, 0, 4};
  cleave_op op = cleave_op_variadic_split(&axis0, lens, 3);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_BF16), shape6, 2, 2);
  tu_context("VariadicSplit [2,-1,4] on [6,2]");
  tu_expect ex = {0, 3, resolved, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);
}

/* The entries must sum to d; the message names the sum and d, as in the header's example. */
static void test_sum_mismatch(void **state) {
  (void)state;
  const int64_t more[3] = {1, 2, 4};
  const int64_t less[2] = {1, 2};
  const int64_t zeros[2] = {0, 0};
  const char *nm[] = {"split_lengths", "7", "6", NULL};
  const char *nl[] = {"split_lengths", "3", "6", NULL};
  const char *nz[] = {"split_lengths", "0", "6", NULL};
  expect_lengths_error(more, 3, shape6, 2, nm);
  expect_lengths_error(less, 2, shape6, 2, nl);
  expect_lengths_error(zeros, 2, shape6, 2, nz);

  /* The exact wording of the header's example for this case. */
  cleave_op op = cleave_op_variadic_split(&axis0, more, 3);
  cleave_split_info info;
  cleave_error err;
  assert_int_equal(cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape6, 2, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_SPLIT);
  assert_string_equal(err.message, "split_lengths sum to 7 but data.shape[0] is 6");

  /* The axis the message names is the normalised one. */
  const int64_t shape3[3] = {2, 5, 3};
  const int64_t axis = -2;
  const int64_t l[2] = {2, 2};
  cleave_op op2 = cleave_op_variadic_split(&axis, l, 2);
  const char *n2[] = {"split_lengths", "4", "5", "data.shape[1]", NULL};
  tu_check_error(&op2, cleave_type_of(CLEAVE_F32), shape3, 3, 2, CLEAVE_ERROR_INVALID_SPLIT, n2);
}

/* Zeros are legal anywhere in the list. */
static void test_zeros_legal(void **state) {
  (void)state;
  const int64_t lens[5] = {0, 6, 0, 0, 0};
  cleave_op op = cleave_op_variadic_split(&axis0, lens, 5);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_STRING), shape6, 2, 1);
  tu_context("VariadicSplit [0,6,0,0,0] of strings");
  tu_expect ex = {0, 5, lens, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);
  /* An empty axis split into zeros, and into a lone -1. */
  const int64_t empty[2] = {3, 0};
  const int64_t z[3] = {0, 0, -1};
  const int64_t zr[3] = {0, 0, 0};
  const int64_t axis1 = 1;
  cleave_op op2 = cleave_op_variadic_split(&axis1, z, 3);
  tu_input_make(&in, cleave_type_of(CLEAVE_F32), empty, 2, 1);
  tu_expect ex2 = {1, 3, zr, 0};
  tu_check_success(&op2, &in, &ex2);
  tu_input_free(&in);
}

/* u64 values above INT64_MAX are rejected, never wrapped (UINT64_MAX must not become -1). */
static void test_u64_too_big(void **state) {
  (void)state;
  uint64_t a[2] = {UINT64_C(1) << 63, 6};
  uint64_t b[2] = {UINT64_MAX, 6};
  uint64_t c[3] = {3, UINT64_MAX, 3};
  struct {
    const uint64_t *v;
    int64_t n;
    const char *text;
  } cases[] = {{a, 2, "9223372036854775808"},
               {b, 2, "18446744073709551615"},
               {c, 3, "18446744073709551615"}};
  for (size_t i = 0; i < 3; ++i) {
    cleave_op op = cleave_op_variadic_split(&axis0, NULL, 0);
    op.lengths.dtype = CLEAVE_U64;
    op.lengths.rank = 1;
    op.lengths.count = (size_t)cases[i].n;
    op.lengths.data = cases[i].v;
    const char *needles[] = {"split_lengths", cases[i].text, NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, (size_t)cases[i].n,
                   CLEAVE_ERROR_INVALID_SPLIT, needles);
  }
  /* u64 values that fit are fine. */
  uint64_t ok[2] = {5, 1};
  cleave_op op = cleave_op_variadic_split(&axis0, NULL, 0);
  op.lengths.dtype = CLEAVE_U64;
  op.lengths.rank = 1;
  op.lengths.count = 2;
  op.lengths.data = ok;
  const int64_t lens[2] = {5, 1};
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_I64), shape6, 2, 1);
  tu_context("VariadicSplit u64 [5,1]");
  tu_expect ex = {0, 2, lens, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);
}

/* Narrow signed types keep their sign (i8 0xFF is -1); unsigned ones are never -1. */
static void test_narrow_integer_lengths(void **state) {
  (void)state;
  int8_t i8v[2] = {-1, 2};
  const int64_t resolved[2] = {4, 2};
  cleave_op op = cleave_op_variadic_split(&axis0, NULL, 0);
  op.lengths.dtype = CLEAVE_I8;
  op.lengths.rank = 1;
  op.lengths.count = 2;
  op.lengths.data = i8v;
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_U8), shape6, 2, 1);
  tu_context("VariadicSplit i8 [-1,2]");
  tu_expect ex = {0, 2, resolved, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);

  uint8_t u8v[2] = {255, 2};
  op.lengths.dtype = CLEAVE_U8;
  op.lengths.data = u8v;
  const char *needles[] = {"split_lengths", "257", "6", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_U8), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, needles);
  uint16_t u16v[2] = {65535, 2};
  op.lengths.dtype = CLEAVE_U16;
  op.lengths.data = u16v;
  const char *needles16[] = {"split_lengths", "65537", "6", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_U8), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                 needles16);
}

/* split_lengths must be a 1-D integer tensor: not absent, scalar, rank 2 or non-integer. */
static void test_lengths_tensor_form(void **state) {
  (void)state;
  const int64_t six = 6;
  const int64_t lens[2] = {3, 3};
  const float flens[2] = {3.0f, 3.0f};
  const char *needles[] = {"split_lengths", NULL};

  cleave_op op = cleave_op_variadic_split(&axis0, lens, 2);
  op.lengths = cleave_values_none();
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);

  op.lengths = cleave_values_scalar(&six);
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);

  op.lengths = cleave_values_list(lens, 2);
  op.lengths.rank = 2;
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);

  op.lengths = cleave_values_list(lens, 2);
  op.lengths.dtype = CLEAVE_F32;
  op.lengths.data = flens;
  const char *fneedles[] = {"split_lengths", "f32", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                 fneedles);
}

/* The axis: scalar or [1], of any integer type; other ranks are rejected. */
static void test_axis_forms(void **state) {
  (void)state;
  const int64_t shape[3] = {2, 6, 3};
  const int64_t lens[3] = {1, -1, 1};
  const int64_t resolved[3] = {1, 4, 1};
  int16_t a16[1] = {-2};
  cleave_op op = cleave_op_variadic_split(NULL, lens, 3);
  op.axis.dtype = CLEAVE_I16;
  op.axis.rank = 1;
  op.axis.count = 1;
  op.axis.data = a16;
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_C128), shape, 3, 5);
  tu_context("VariadicSplit axis i16 [1] = -2");
  tu_expect ex = {1, 3, resolved, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);

  op.axis.rank = 2;
  const char *needles[] = {"axis", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_C128), shape, 3, 3, CLEAVE_ERROR_INVALID_AXIS, needles);
  /* [1]-shaped axis out of range still names the value. */
  a16[0] = 3;
  op.axis.rank = 1;
  const char *needles3[] = {"axis", "3", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_C128), shape, 3, 3, CLEAVE_ERROR_INVALID_AXIS,
                 needles3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_lengths),
      cmocka_unit_test(test_entry_below_minus_one),
      cmocka_unit_test(test_two_minus_ones),
      cmocka_unit_test(test_minus_one_resolving_negative),
      cmocka_unit_test(test_minus_one_resolving_zero),
      cmocka_unit_test(test_sum_mismatch),
      cmocka_unit_test(test_zeros_legal),
      cmocka_unit_test(test_u64_too_big),
      cmocka_unit_test(test_narrow_integer_lengths),
      cmocka_unit_test(test_lengths_tensor_form),
      cmocka_unit_test(test_axis_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
