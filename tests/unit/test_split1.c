/*
 * OpenVINO Split-1 (docs/operators.md section 2): the axis input (a scalar of any integer type; a
 * [1]-shaped axis is rejected), num_splits >= 1, divisibility, d = 0.
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

static const cleave_dtype int_types[] = {CLEAVE_I8, CLEAVE_I16, CLEAVE_I32, CLEAVE_I64,
                                         CLEAVE_U8, CLEAVE_U16, CLEAVE_U32, CLEAVE_U64};

/* Split-1 takes a scalar axis only: a 1-element 1-D axis is rejected, whatever its integer
 * type, while VariadicSplit-1 accepts the very same axis tensor. */
static void test_axis_shape1_rejected_by_split_accepted_by_variadic(void **state) {
  (void)state;
  const int64_t shape[2] = {4, 6};
  for (size_t t = 0; t < sizeof int_types / sizeof int_types[0]; ++t) {
    int64_t storage = 0;
    tu_store_int(int_types[t], 1, &storage);
    cleave_values axis;
    axis.dtype = int_types[t];
    axis.rank = 1;
    axis.count = 1;
    axis.data = &storage;

    cleave_op split = cleave_op_split(NULL, 2);
    split.axis = axis;
    const char *needles[] = {"axis", NULL};
    tu_check_error(&split, cleave_type_of(CLEAVE_F32), shape, 2, 2, CLEAVE_ERROR_INVALID_AXIS,
                   needles);

    const int64_t lens[2] = {2, 4};
    cleave_op vs = cleave_op_variadic_split(NULL, lens, 2);
    vs.axis = axis;
    tu_input in;
    tu_input_make(&in, cleave_type_of(CLEAVE_F32), shape, 2, (unsigned)t);
    tu_context("VariadicSplit-1 with a [1]-shaped axis of type %d", (int)int_types[t]);
    tu_expect ex = {1, 2, lens, 0};
    tu_check_success(&vs, &in, &ex);
    tu_input_free(&in);
  }
}

/* Every integer type is a valid scalar axis type for Split-1. */
static void test_axis_every_integer_type(void **state) {
  (void)state;
  const int64_t shape[3] = {2, 6, 3};
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_I16), shape, 3, 1);
  for (size_t t = 0; t < sizeof int_types / sizeof int_types[0]; ++t) {
    int64_t storage = 0;
    tu_store_int(int_types[t], 1, &storage);
    cleave_op op = cleave_op_split(NULL, 3);
    op.axis.dtype = int_types[t];
    op.axis.rank = 0;
    op.axis.count = 1;
    op.axis.data = &storage;
    const int64_t lens[3] = {2, 2, 2};
    tu_context("Split-1 axis of type %d", (int)int_types[t]);
    tu_expect ex = {1, 3, lens, 0};
    tu_check_success(&op, &in, &ex);
  }
  tu_input_free(&in);
}

/* Unsigned axis values are read as unsigned: u8 255 is 255 (not -1), u64 2^64-1 is out of range
 * (not -1). Signed narrow types keep their sign: i8 -1 is the last axis. */
static void test_axis_integer_encodings(void **state) {
  (void)state;
  const int64_t shape[3] = {2, 6, 4};
  struct {
    cleave_dtype dtype;
    uint64_t bits;
    const char *text;
  } bad[] = {
      {CLEAVE_U8, 255, "255"},
      {CLEAVE_U16, 65535, "65535"},
      {CLEAVE_U32, 4294967295u, "4294967295"},
      {CLEAVE_U64, UINT64_MAX, "18446744073709551615"},
      {CLEAVE_U64, UINT64_C(1) << 63, "9223372036854775808"},
      {CLEAVE_I8, (uint8_t)-4, "-4"},
      {CLEAVE_I32, 3, "3"},
  };
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
    int64_t aligned[1] = {0};
    tu_store_int(bad[b].dtype, (int64_t)bad[b].bits, aligned);
    cleave_op op = cleave_op_split(NULL, 2);
    op.axis.dtype = bad[b].dtype;
    op.axis.rank = 0;
    op.axis.count = 1;
    op.axis.data = aligned;
    const char *needles[] = {"axis", bad[b].text, NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 3, 2, CLEAVE_ERROR_INVALID_AXIS,
                   needles);
  }
  int8_t minus_one = -1;
  cleave_op op = cleave_op_split(NULL, 2);
  op.axis.dtype = CLEAVE_I8;
  op.axis.rank = 0;
  op.axis.count = 1;
  op.axis.data = &minus_one;
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F32), shape, 3, 4);
  const int64_t lens[2] = {2, 2};
  tu_context("Split-1 axis i8 -1");
  tu_expect ex = {2, 2, lens, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);
}

/* n >= 1, else error: 0, negative, and INT64_MIN. */
static void test_num_splits_below_one(void **state) {
  (void)state;
  const int64_t shape[2] = {6, 2};
  const int64_t axis = 0;
  const int64_t ns[] = {0, -1, -3, INT64_MIN};
  const char *texts[] = {"0", "-1", "-3", "-9223372036854775808"};
  for (size_t i = 0; i < 4; ++i) {
    cleave_op op = cleave_op_split(&axis, ns[i]);
    const char *needles[] = {"num_splits", texts[i], NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                   needles);
  }
  /* On an empty axis too: d = 0 does not make n = 0 valid. */
  const int64_t empty[2] = {0, 2};
  cleave_op op = cleave_op_split(&axis, 0);
  const char *needles[] = {"num_splits", "0", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), empty, 2, 0, CLEAVE_ERROR_INVALID_SPLIT, needles);
}

/* d must be divisible by n; the message names d and n. */
static void test_not_divisible(void **state) {
  (void)state;
  struct {
    int64_t shape[3];
    int64_t axis;
    int64_t n;
    const char *d_text;
    const char *n_text;
  } cases[] = {
      {{6, 4, 2}, 0, 4, "6", "4"},
      {{6, 4, 2}, 1, 3, "4", "3"},
      {{6, 5, 2}, -2, 2, "5", "2"},
      {{6, 4, 2}, 2, 3, "2", "3"},
      {{1, 4, 2}, 0, 2, "1", "2"},
      {{6, 4, 2}, 0, 7, "6", "7"},
      {{6, 4, 2}, 0, INT64_MAX, "6", "9223372036854775807"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    cleave_op op = cleave_op_split(&cases[c].axis, cases[c].n);
    const char *needles[] = {"num_splits", cases[c].d_text, cases[c].n_text, NULL};
    size_t n_out = cases[c].n < 16 ? (size_t)cases[c].n : 2;
    tu_check_error(&op, cleave_type_of(CLEAVE_U8), cases[c].shape, 3, n_out,
                   CLEAVE_ERROR_INVALID_SPLIT, needles);
  }
}

/* d = 0 is fine: n empty outputs, for any n >= 1. */
static void test_zero_axis_dim_ok(void **state) {
  (void)state;
  const int64_t shape[3] = {2, 0, 3};
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_C64), shape, 3, 0);
  const int64_t ns[] = {1, 2, 5, 16};
  for (size_t i = 0; i < 4; ++i) {
    int64_t axis = i % 2 ? -2 : 1;
    cleave_op op = cleave_op_split(&axis, ns[i]);
    int64_t lens[16];
    memset(lens, 0, sizeof lens);
    tu_context("Split-1 of [2,0,3] on axis 1 into %lld", (long long)ns[i]);
    tu_expect ex = {1, (size_t)ns[i], lens, 0};
    tu_check_success(&op, &in, &ex);
  }
  tu_input_free(&in);
}

/* n = 1 is the identity, n = d gives length-1 slices; values checked by hand for one case. */
static void test_identity_and_unit_slices(void **state) {
  (void)state;
  const int64_t shape[2] = {3, 4};
  const int64_t axis = 1;
  int32_t data[12];
  for (int i = 0; i < 12; ++i) {
    data[i] = 100 + i;
  }
  cleave_tensor t = {data, cleave_type_of(CLEAVE_I32), 2, shape};
  int32_t out[4][3];
  memset(out, 0, sizeof out);
  void *outs[4] = {out[0], out[1], out[2], out[3]};
  cleave_error err;
  assert_int_equal(cleave_split(&t, axis, 4, outs, 4, &err), CLEAVE_OK);
  for (int k = 0; k < 4; ++k) {
    for (int r = 0; r < 3; ++r) {
      assert_int_equal(out[k][r], 100 + r * 4 + k);
    }
  }
  int32_t whole[12];
  void *one[1] = {whole};
  assert_int_equal(cleave_split(&t, 0, 1, one, 1, &err), CLEAVE_OK);
  assert_memory_equal(whole, data, sizeof data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_axis_shape1_rejected_by_split_accepted_by_variadic),
      cmocka_unit_test(test_axis_every_integer_type),
      cmocka_unit_test(test_axis_integer_encodings),
      cmocka_unit_test(test_num_splits_below_one),
      cmocka_unit_test(test_not_divisible),
      cmocka_unit_test(test_zero_axis_dim_ok),
      cmocka_unit_test(test_identity_and_unit_slices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
