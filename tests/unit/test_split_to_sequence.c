/*
 * ONNX SplitToSequence-11 and -24 (docs/operators.md sections 4 and 5): no split, a scalar split, a
 * 1-D split, keepdims, the split's type and rank, the element types per version and the opset
 * mapping.
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

static const int64_t shape6[2] = {6, 2};

static cleave_op seq_op(int64_t opset, const cleave_values *split, int64_t keepdims) {
  cleave_op op = cleave_op_split_to_sequence(opset);
  if (split) {
    op.lengths = *split;
  }
  op.keepdims = keepdims;
  return op;
}

/* No split: d outputs of length 1; keepdims 0 removes the axis; values by hand. */
static void test_no_split(void **state) {
  (void)state;
  const int64_t shape[2] = {2, 3};
  const int32_t data[6] = {10, 11, 12, 20, 21, 22};
  cleave_tensor t = {data, cleave_type_of(CLEAVE_I32), 2, shape};
  for (int64_t keep = 0; keep <= 1; ++keep) {
    int32_t out[3][2];
    memset(out, 0, sizeof out);
    void *outs[3] = {out[0], out[1], out[2]};
    cleave_error err;
    assert_int_equal(cleave_split_to_sequence(&t, 11, 1, cleave_values_none(), keep, outs, 3, &err),
                     CLEAVE_OK);
    for (int j = 0; j < 3; ++j) {
      assert_int_equal(out[j][0], 10 + j);
      assert_int_equal(out[j][1], 20 + j);
    }
    cleave_op op = seq_op(11, NULL, keep);
    int64_t axis = 1;
    op.axis = cleave_values_scalar(&axis);
    cleave_split_info info;
    int64_t lens[4] = {9, 9, 9, 9};
    assert_int_equal(cleave_infer(&op, t.type, shape, 2, &info, lens, 4, &err), CLEAVE_OK);
    assert_int_equal(info.num_outputs, 3);
    assert_int_equal(info.axis_removed, keep == 0);
    assert_int_equal(info.output_rank, keep == 0 ? 1 : 2);
    assert_int_equal(lens[0], 1);
    assert_int_equal(lens[2], 1);
    cleave_plan *plan = NULL;
    assert_int_equal(cleave_plan_create(&op, t.type, shape, 2, &plan, &err), CLEAVE_OK);
    int64_t dims[3] = {-5, -5, -5};
    assert_int_equal(cleave_plan_output_shape(plan, 1, dims, &err), CLEAVE_OK);
    if (keep == 0) {
      assert_int_equal(dims[0], 2);
      assert_int_equal(dims[1], -5);
    } else {
      assert_int_equal(dims[0], 2);
      assert_int_equal(dims[1], 1);
    }
    cleave_plan_destroy(plan);
  }
}

/* keepdims 0 on rank-1 data gives scalars (rank 0 outputs). */
static void test_no_split_keepdims0_rank1(void **state) {
  (void)state;
  const int64_t shape[1] = {4};
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_U8), shape, 1, 0);
  cleave_op op = seq_op(11, NULL, 0);
  const int64_t lens[4] = {1, 1, 1, 1};
  tu_context("SplitToSequence keepdims 0 on [4]");
  tu_expect ex = {0, 4, lens, 1};
  tu_check_success(&op, &in, &ex);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, in.tensor.type, shape, 1, &plan, NULL), CLEAVE_OK);
  assert_int_equal(cleave_plan_info(plan)->output_rank, 0);
  /* Rank 0: dims may be NULL. */
  assert_int_equal(cleave_plan_output_shape(plan, 0, NULL, NULL), CLEAVE_OK);
  assert_int_equal(cleave_plan_output_bytes(plan, 3), 1);
  cleave_plan_destroy(plan);
  tu_input_free(&in);
}

/* d = 0 gives an empty sequence, without split and with a scalar split, for both keepdims. */
static void test_empty_sequence(void **state) {
  (void)state;
  const int64_t shape[3] = {3, 0, 2};
  const int64_t axis = 1;
  const int64_t two = 2;
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F64), shape, 3, 0);
  for (int64_t keep = 0; keep <= 1; ++keep) {
    cleave_op op = seq_op(24, NULL, keep);
    op.axis = cleave_values_scalar(&axis);
    tu_context("SplitToSequence no split on [3,0,2], keepdims %lld", (long long)keep);
    tu_expect ex = {1, 0, NULL, keep == 0};
    tu_check_success(&op, &in, &ex);
    cleave_values s = cleave_values_scalar(&two);
    op = seq_op(11, &s, keep);
    op.axis = cleave_values_scalar(&axis);
    tu_context("SplitToSequence split=2 on [3,0,2]");
    tu_expect ex2 = {1, 0, NULL, 0};
    tu_check_success(&op, &in, &ex2);
  }
  tu_input_free(&in);
}

/* A scalar split s: floor(d/s) chunks of s, then d mod s; keepdims ignored. Values by hand. */
static void test_scalar_split_remainder(void **state) {
  (void)state;
  const int64_t shape[1] = {7};
  const int16_t data[7] = {1, 2, 3, 4, 5, 6, 7};
  cleave_tensor t = {data, cleave_type_of(CLEAVE_I16), 1, shape};
  const int32_t s32 = 3;
  cleave_values split = {CLEAVE_I32, 0, 1, &s32};
  int16_t a[3], b[3], c[1];
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  memset(c, 0, sizeof c);
  void *outs[3] = {a, b, c};
  cleave_error err;
  assert_int_equal(cleave_split_to_sequence(&t, 11, 0, split, 0, outs, 3, &err), CLEAVE_OK);
  assert_int_equal(a[0], 1);
  assert_int_equal(a[2], 3);
  assert_int_equal(b[0], 4);
  assert_int_equal(b[2], 6);
  assert_int_equal(c[0], 7);

  cleave_op op = seq_op(11, &split, 0);
  cleave_split_info info;
  int64_t lens[3];
  assert_int_equal(cleave_infer(&op, t.type, shape, 1, &info, lens, 3, &err), CLEAVE_OK);
  assert_int_equal(info.num_outputs, 3);
  assert_int_equal(info.axis_removed, 0);
  assert_int_equal(lens[0], 3);
  assert_int_equal(lens[1], 3);
  assert_int_equal(lens[2], 1);

  /* s >= d: one chunk of d. */
  const int64_t big[2] = {7, 100};
  for (size_t i = 0; i < 2; ++i) {
    cleave_values s = cleave_values_scalar(&big[i]);
    cleave_op o = seq_op(24, &s, 1);
    tu_input in;
    tu_input_make(&in, cleave_type_of(CLEAVE_I16), shape, 1, 1);
    const int64_t whole[1] = {7};
    tu_context("SplitToSequence split=%lld on [7]", (long long)big[i]);
    tu_expect ex = {0, 1, whole, 0};
    tu_check_success(&o, &in, &ex);
    tu_input_free(&in);
  }
}

/* A 1-element 1-D split is a list, not a scalar: [3] on d = 6 is a sum mismatch, [6] one
 * element, whereas the scalar 3 gives two chunks. */
static void test_one_element_list_is_not_scalar(void **state) {
  (void)state;
  const int64_t three = 3;
  const int64_t six = 6;
  cleave_values list3 = cleave_values_list(&three, 1);
  cleave_op op = seq_op(11, &list3, 1);
  const char *needles[] = {"split", "3", "6", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F32), shape6, 2, 4);
  cleave_values list6 = cleave_values_list(&six, 1);
  op = seq_op(11, &list6, 1);
  const int64_t whole[1] = {6};
  tu_context("SplitToSequence split [6] on [6,2]");
  tu_expect ex = {0, 1, whole, 0};
  tu_check_success(&op, &in, &ex);
  cleave_values scalar3 = cleave_values_scalar(&three);
  op = seq_op(11, &scalar3, 1);
  const int64_t halves[2] = {3, 3};
  tu_context("SplitToSequence split 3 on [6,2]");
  tu_expect ex2 = {0, 2, halves, 0};
  tu_check_success(&op, &in, &ex2);
  tu_input_free(&in);
}

/* A scalar split must be >= 1. */
static void test_scalar_split_below_one(void **state) {
  (void)state;
  const int64_t vals[3] = {0, -2, INT64_MIN};
  const char *texts[3] = {"0", "-2", "-9223372036854775808"};
  for (size_t i = 0; i < 3; ++i) {
    cleave_values s = cleave_values_scalar(&vals[i]);
    cleave_op op = seq_op(11, &s, 1);
    const char *needles[] = {"split", texts[i], NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                   needles);
  }
  /* Also on an empty axis, where no chunk would be produced anyway. */
  const int64_t empty[1] = {0};
  cleave_values s = cleave_values_scalar(&vals[0]);
  cleave_op op = seq_op(24, &s, 1);
  const char *needles[] = {"split", "0", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), empty, 1, 0, CLEAVE_ERROR_INVALID_SPLIT, needles);
}

/* A 1-D split with zeros is legal (empty elements). */
static void test_list_with_zeros(void **state) {
  (void)state;
  const int64_t lens[4] = {0, 3, 0, 3};
  cleave_values s = cleave_values_list(lens, 4);
  cleave_op op = seq_op(11, &s, 0);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_STRING), shape6, 2, 1);
  tu_context("SplitToSequence [0,3,0,3] of strings, keepdims 0 (ignored)");
  tu_expect ex = {0, 4, lens, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);
  /* On an empty axis: [0] and [0,0]. */
  const int64_t empty[1] = {0};
  const int64_t z[2] = {0, 0};
  tu_input_make(&in, cleave_type_of(CLEAVE_BOOLEAN), empty, 1, 1);
  for (int64_t k = 1; k <= 2; ++k) {
    cleave_values zs = cleave_values_list(z, (size_t)k);
    cleave_op zop = seq_op(11, &zs, 1);
    tu_context("SplitToSequence %lld zeros on [0]", (long long)k);
    tu_expect zex = {0, (size_t)k, z, 0};
    tu_check_success(&zop, &in, &zex);
  }
  tu_input_free(&in);
}

/* 1-D entries must be >= 0 (-1 has no special meaning here). */
static void test_list_negative_entry(void **state) {
  (void)state;
  const int64_t a[2] = {-1, 7};
  const int64_t b[3] = {3, 4, -1};
  const char *needles[] = {"split", "-1", NULL};
  cleave_values sa = cleave_values_list(a, 2);
  cleave_values sb = cleave_values_list(b, 3);
  cleave_op oa = seq_op(11, &sa, 1);
  cleave_op ob = seq_op(24, &sb, 1);
  tu_check_error(&oa, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
  tu_check_error(&ob, cleave_type_of(CLEAVE_F32), shape6, 2, 3, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
}

/* 1-D entries must sum to d. */
static void test_list_sum_mismatch(void **state) {
  (void)state;
  const int64_t a[2] = {2, 3};
  const int32_t b[3] = {2, 3, 4};
  cleave_values sa = cleave_values_list(a, 2);
  cleave_values sb = {CLEAVE_I32, 1, 3, b};
  cleave_op oa = seq_op(11, &sa, 1);
  cleave_op ob = seq_op(11, &sb, 1);
  const char *na[] = {"split", "5", "6", NULL};
  const char *nb[] = {"split", "9", "6", NULL};
  tu_check_error(&oa, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, na);
  tu_check_error(&ob, cleave_type_of(CLEAVE_F32), shape6, 2, 3, CLEAVE_ERROR_INVALID_SPLIT, nb);
}

/* An empty 1-D split is an error (decision), even on an empty axis. */
static void test_list_empty(void **state) {
  (void)state;
  const int64_t dummy[1] = {0};
  cleave_values s = cleave_values_list(dummy, 0);
  cleave_op op = seq_op(11, &s, 1);
  const char *needles[] = {"split", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
  const int64_t empty[1] = {0};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), empty, 1, 0, CLEAVE_ERROR_INVALID_SPLIT, needles);
}

/* A split of rank >= 2 is an error. */
static void test_split_rank2(void **state) {
  (void)state;
  const int64_t v[4] = {1, 2, 1, 2};
  cleave_values s = cleave_values_list(v, 4);
  s.rank = 2;
  cleave_op op = seq_op(11, &s, 1);
  const char *needles[] = {"split", "2", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 4, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
  s.rank = 3;
  s.count = 1;
  op = seq_op(24, &s, 1);
  const char *needles3[] = {"split", "3", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                 needles3);
}

/* split is int32 or int64 only: i16 (and the other integer types) are rejected. */
static void test_split_type(void **state) {
  (void)state;
  const cleave_dtype bad[] = {CLEAVE_I16, CLEAVE_I8, CLEAVE_U8, CLEAVE_U16, CLEAVE_U32, CLEAVE_U64};
  const char *names[] = {"i16", "i8", "u8", "u16", "u32", "u64"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    int64_t storage[2] = {0, 0};
    tu_store_int(bad[i], 3, storage);
    tu_store_int(bad[i], 3, (unsigned char *)storage + tu_int_size(bad[i]));
    cleave_values s = {bad[i], 1, 2, storage};
    cleave_op op = seq_op(11, &s, 1);
    const char *needles[] = {"split", names[i], NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                   needles);
    s.rank = 0;
    s.count = 1;
    op = seq_op(24, &s, 1);
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                   needles);
  }
}

/* keepdims must be 0 or 1 (decision), with or without split. */
static void test_keepdims_values(void **state) {
  (void)state;
  const int64_t kd[3] = {2, -1, INT64_MAX};
  const char *texts[3] = {"2", "-1", "9223372036854775807"};
  const int64_t three = 3;
  for (size_t i = 0; i < 3; ++i) {
    const char *needles[] = {"keepdims", texts[i], NULL};
    cleave_op op = seq_op(11, NULL, kd[i]);
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 6, CLEAVE_ERROR_INVALID_ATTRIBUTE,
                   needles);
    cleave_values s = cleave_values_scalar(&three);
    op = seq_op(24, &s, kd[i]);
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_ATTRIBUTE,
                   needles);
  }
}

/* bf16 needs SplitToSequence-24: rejected at opsets 11..23, accepted from 24. */
static void test_bf16_by_opset(void **state) {
  (void)state;
  for (int64_t opset = 11; opset <= 23; ++opset) {
    cleave_op op = seq_op(opset, NULL, 1);
    const char *needles[] = {"bf16", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_BF16), shape6, 2, 6, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                   needles);
  }
  const int64_t opsets[] = {24, 25, 1000};
  const int64_t ones[6] = {1, 1, 1, 1, 1, 1};
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_BF16), shape6, 2, 3);
  for (size_t i = 0; i < 3; ++i) {
    cleave_op op = seq_op(opsets[i], NULL, 1);
    tu_context("SplitToSequence opset %lld on bf16", (long long)opsets[i]);
    tu_expect ex = {0, 6, ones, 0};
    tu_check_success(&op, &in, &ex);
  }
  tu_input_free(&in);
}

/* The element types of both versions: the fifteen ONNX types (S/U as string) at 11 and 24; the
 * 8-bit floats at neither. */
static void test_types_by_version(void **state) {
  (void)state;
  const int64_t lens[2] = {2, 4};
  cleave_values s = cleave_values_list(lens, 2);
  for (size_t t = 0; t < tu_num_types; ++t) {
    for (int64_t v = 11; v <= 24; v += 13) {
      cleave_op op = seq_op(v, &s, 1);
      if (tu_sequence_accepts(v, tu_types[t].type.dtype)) {
        tu_input in;
        tu_input_make(&in, tu_types[t].type, shape6, 2, 0);
        tu_context("SplitToSequence-%lld on %s", (long long)v, tu_types[t].label);
        tu_expect ex = {0, 2, lens, 0};
        tu_check_success(&op, &in, &ex);
        tu_input_free(&in);
      } else {
        char name[32];
        const char *needles[] = {tu_type_text(tu_types[t].type, name, sizeof name), NULL};
        tu_check_error(&op, tu_types[t].type, shape6, 2, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, needles);
      }
    }
  }
}

/* Opsets below 11 are below SplitToSequence's first version. */
static void test_opset_below_first(void **state) {
  (void)state;
  const int64_t opsets[] = {10, 1, 0, -5, INT64_MIN};
  const char *texts[] = {"10", "1", "0", "-5", "-9223372036854775808"};
  for (size_t i = 0; i < sizeof opsets / sizeof opsets[0]; ++i) {
    cleave_op op = seq_op(opsets[i], NULL, 1);
    const char *needles[] = {"opset", texts[i], NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 6, CLEAVE_ERROR_UNSUPPORTED_VERSION,
                   needles);
  }
}

/* The axis attribute: negative values count from the end; out of range is an error. */
static void test_axis_attribute(void **state) {
  (void)state;
  const int64_t shape[3] = {2, 3, 4};
  const int64_t axis = -1;
  const int64_t two = 2;
  cleave_values s = cleave_values_scalar(&two);
  cleave_op op = seq_op(11, &s, 1);
  op.axis = cleave_values_scalar(&axis);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_I64), shape, 3, 2);
  const int64_t lens[2] = {2, 2};
  tu_context("SplitToSequence axis -1 split 2 on [2,3,4]");
  tu_expect ex = {2, 2, lens, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);

  const int64_t bad = -4;
  op.axis = cleave_values_scalar(&bad);
  const char *needles[] = {"axis", "-4", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_I64), shape, 3, 2, CLEAVE_ERROR_INVALID_AXIS, needles);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_split),
      cmocka_unit_test(test_no_split_keepdims0_rank1),
      cmocka_unit_test(test_empty_sequence),
      cmocka_unit_test(test_scalar_split_remainder),
      cmocka_unit_test(test_one_element_list_is_not_scalar),
      cmocka_unit_test(test_scalar_split_below_one),
      cmocka_unit_test(test_list_with_zeros),
      cmocka_unit_test(test_list_negative_entry),
      cmocka_unit_test(test_list_sum_mismatch),
      cmocka_unit_test(test_list_empty),
      cmocka_unit_test(test_split_rank2),
      cmocka_unit_test(test_split_type),
      cmocka_unit_test(test_keepdims_values),
      cmocka_unit_test(test_bf16_by_opset),
      cmocka_unit_test(test_types_by_version),
      cmocka_unit_test(test_opset_below_first),
      cmocka_unit_test(test_axis_attribute),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
