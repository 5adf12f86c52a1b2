/*
 * ONNX Split-1/2/11/13/18 (docs/operators.md section 5): element types per version, the opset
 * mapping, explicit lengths, equal parts below 18, num_outputs at 18 (ceil rule), and the axis
 * attribute.
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

static const int64_t shape6[2] = {6, 2};

static cleave_op onnx_op(int64_t opset, const int64_t *split, size_t count, int64_t n) {
  cleave_op op = cleave_op_onnx_split(opset);
  if (split) {
    op.lengths = cleave_values_list(split, count);
  }
  if (n >= 0) {
    op.num_outputs = tu_count_value(n);
  }
  return op;
}

static void expect_ok(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                      size_t axis, const int64_t *lens, size_t n, const char *what) {
  tu_input in;
  tu_input_make(&in, type, shape, rank, 7);
  tu_context("%s", what);
  tu_expect ex = {axis, n, lens, 0};
  tu_check_success(op, &in, &ex);
  tu_input_free(&in);
}

/* The type lists: v1 f16/f32/f64; v2 and v11 the fifteen (S/U count as string); v13 and v18 add
 * bf16; the 8-bit floats nowhere. Checked at every opset from 1 to 20. */
static void test_types_by_version(void **state) {
  (void)state;
  const int64_t lens[2] = {2, 4};
  for (int64_t opset = 1; opset <= 20; ++opset) {
    int64_t version = opset >= 18 ? 18 : opset >= 13 ? 13 : opset >= 11 ? 11 : opset >= 2 ? 2 : 1;
    for (size_t t = 0; t < tu_num_types; ++t) {
      cleave_op op = onnx_op(opset, lens, 2, -1);
      char what[96];
      snprintf(what, sizeof what, "ONNX Split opset %lld on %s", (long long)opset,
               tu_types[t].label);
      if (tu_onnx_split_accepts(version, tu_types[t].type.dtype)) {
        expect_ok(&op, tu_types[t].type, shape6, 2, 0, lens, 2, what);
      } else {
        char name[32];
        const char *needles[] = {tu_type_text(tu_types[t].type, name, sizeof name), NULL};
        tu_check_error(&op, tu_types[t].type, shape6, 2, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, needles);
      }
    }
  }
}

/* Spot checks of the table itself, so that a mistake in tu_onnx_split_accepts shows. */
static void test_type_table_spot_checks(void **state) {
  (void)state;
  assert_true(tu_onnx_split_accepts(1, CLEAVE_F16));
  assert_false(tu_onnx_split_accepts(1, CLEAVE_I32));
  assert_false(tu_onnx_split_accepts(1, CLEAVE_STRING));
  assert_true(tu_onnx_split_accepts(2, CLEAVE_STRING));
  assert_true(tu_onnx_split_accepts(11, CLEAVE_C128));
  assert_false(tu_onnx_split_accepts(11, CLEAVE_BF16));
  assert_true(tu_onnx_split_accepts(13, CLEAVE_BF16));
  assert_false(tu_onnx_split_accepts(18, CLEAVE_F8E4M3));
  assert_false(tu_onnx_split_accepts(18, CLEAVE_F8E8M0));
  assert_true(tu_onnx_split_accepts(2, CLEAVE_BYTES));
  assert_false(tu_onnx_split_accepts(1, CLEAVE_UNICODE));
}

/* An opset below 1 is below Split's first version. */
static void test_opset_below_first(void **state) {
  (void)state;
  const int64_t lens[2] = {3, 3};
  const int64_t opsets[] = {0, -1, INT64_MIN};
  const char *texts[] = {"0", "-1", "-9223372036854775808"};
  for (size_t i = 0; i < 3; ++i) {
    cleave_op op = onnx_op(opsets[i], lens, 2, -1);
    const char *needles[] = {"opset", texts[i], NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_UNSUPPORTED_VERSION,
                   needles);
  }
}

/* Opset 12 runs Split-11 (bf16 rejected, as at 11) and opset 13 runs Split-13 (bf16 accepted). */
static void test_opset_12_is_split_11(void **state) {
  (void)state;
  const int64_t lens[2] = {3, 3};
  cleave_op op12 = onnx_op(12, lens, 2, -1);
  const char *needles[] = {"bf16", NULL};
  tu_check_error(&op12, cleave_type_of(CLEAVE_BF16), shape6, 2, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 needles);
  /* And i32 is accepted at 12 (v11 has the fifteen types), unlike at opset 1. */
  expect_ok(&op12, cleave_type_of(CLEAVE_I32), shape6, 2, 0, lens, 2, "opset 12 on i32");
  cleave_op op13 = onnx_op(13, lens, 2, -1);
  expect_ok(&op13, cleave_type_of(CLEAVE_BF16), shape6, 2, 0, lens, 2, "opset 13 on bf16");
  cleave_op op1 = onnx_op(1, lens, 2, -1);
  const char *n1[] = {"i32", NULL};
  tu_check_error(&op1, cleave_type_of(CLEAVE_I32), shape6, 2, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, n1);
}

/* Opset 17 runs Split-13: split and the output count together are fine (they must agree), and
 * uneven equal parts are an error; at 18 the same requests behave differently. */
static void test_opset_17_is_split_13(void **state) {
  (void)state;
  const int64_t lens[2] = {3, 3};
  cleave_op both17 = onnx_op(17, lens, 2, 2);
  expect_ok(&both17, cleave_type_of(CLEAVE_F32), shape6, 2, 0, lens, 2, "opset 17 split + n");
  cleave_op both18 = onnx_op(18, lens, 2, 2);
  const char *nboth[] = {"split", "num_outputs", NULL};
  tu_check_error(&both18, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                 nboth);

  cleave_op four17 = onnx_op(17, NULL, 0, 4);
  const char *nfour[] = {"6", "4", NULL};
  tu_check_error(&four17, cleave_type_of(CLEAVE_F32), shape6, 2, 4, CLEAVE_ERROR_INVALID_SPLIT,
                 nfour);
  cleave_op four18 = onnx_op(18, NULL, 0, 4);
  const int64_t l2220[4] = {2, 2, 2, 0};
  expect_ok(&four18, cleave_type_of(CLEAVE_F32), shape6, 2, 0, l2220, 4, "opset 18 6/4");
  cleave_op four25 = onnx_op(25, NULL, 0, 4);
  expect_ok(&four25, cleave_type_of(CLEAVE_F32), shape6, 2, 0, l2220, 4, "opset 25 6/4");
}

/* Explicit lengths: entries >= 0 (-1 is not special), sum == d, count == n when n is given. */
static void test_explicit_lengths_rules(void **state) {
  (void)state;
  const int64_t opsets[] = {1, 2, 11, 13, 18};
  for (size_t o = 0; o < 5; ++o) {
    int64_t opset = opsets[o];
    const int64_t neg[2] = {-1, 7};
    cleave_op op = onnx_op(opset, neg, 2, -1);
    const char *nneg[] = {"split", "-1", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, nneg);

    const int64_t neg2[3] = {3, 5, -2};
    op = onnx_op(opset, neg2, 3, -1);
    const char *nneg2[] = {"split", "-2", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 3, CLEAVE_ERROR_INVALID_SPLIT,
                   nneg2);

    const int64_t sum5[2] = {2, 3};
    op = onnx_op(opset, sum5, 2, -1);
    const char *nsum[] = {"split", "5", "6", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, nsum);

    const int64_t zeros[3] = {0, 6, 0};
    op = onnx_op(opset, zeros, 3, -1);
    char what[64];
    snprintf(what, sizeof what, "opset %lld split [0,6,0]", (long long)opset);
    expect_ok(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 0, zeros, 3, what);

    if (opset < 18) {
      /* Count mismatch with the node's output count. */
      const int64_t l3[3] = {1, 2, 3};
      op = onnx_op(opset, l3, 3, 2);
      const char *ncount[] = {"split", "3", "2", NULL};
      tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                     ncount);
      op = onnx_op(opset, l3, 3, 4);
      const char *ncount4[] = {"split", "3", "4", NULL};
      tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 4, CLEAVE_ERROR_INVALID_SPLIT,
                     ncount4);
      op = onnx_op(opset, l3, 3, 3);
      expect_ok(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 0, l3, 3, "split with matching n");
    }
  }
}

/* The split input/attribute is int64 1-D. */
static void test_split_tensor_form(void **state) {
  (void)state;
  const int32_t l32[2] = {3, 3};
  const int64_t six = 6;
  cleave_op op = onnx_op(13, NULL, 0, -1);
  op.lengths.dtype = CLEAVE_I32;
  op.lengths.rank = 1;
  op.lengths.count = 2;
  op.lengths.data = l32;
  const char *n32[] = {"split", "i32", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, n32);
  op.lengths = cleave_values_scalar(&six);
  const char *nscalar[] = {"split", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                 nscalar);
}

/* Below 18 without lengths: n equal parts; d mod n != 0 is an error; n < 1 too. */
static void test_equal_parts(void **state) {
  (void)state;
  const int64_t opsets[] = {1, 2, 11, 13, 17};
  const int64_t shape7[1] = {7};
  for (size_t o = 0; o < 5; ++o) {
    cleave_op op = onnx_op(opsets[o], NULL, 0, 3);
    const int64_t l222[3] = {2, 2, 2};
    expect_ok(&op, cleave_type_of(CLEAVE_F64), shape6, 2, 0, l222, 3, "equal parts 6/3");
    op = onnx_op(opsets[o], NULL, 0, 2);
    const char *n72[] = {"7", "2", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F64), shape7, 1, 2, CLEAVE_ERROR_INVALID_SPLIT, n72);
    op = onnx_op(opsets[o], NULL, 0, 0);
    const char *n0[] = {"num_outputs", "0", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F64), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT, n0);
  }
}

/* Below 18, without lengths the caller must give the node's output count: INVALID_SPLIT, as
 * Split-18 with neither split nor num_outputs. */
static void test_missing_output_count(void **state) {
  (void)state;
  const int64_t opsets[] = {1, 2, 11, 13, 17};
  for (size_t o = 0; o < 5; ++o) {
    cleave_op op = onnx_op(opsets[o], NULL, 0, -1);
    const char *needles[] = {"without split needs the node's number of outputs (num_outputs)",
                             NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                   needles);
  }
}

/* num_outputs is a scalar of an integer type whose value fits in int64, at every version. */
static void test_num_outputs_values(void **state) {
  (void)state;
  const int64_t opsets[] = {13, 18};
  const int64_t two_twice[2] = {2, 2};
  const uint64_t huge = UINT64_MAX;
  const int32_t three32 = 3;
  const float two_f = 2.0f;
  for (size_t o = 0; o < 2; ++o) {
    cleave_op op = onnx_op(opsets[o], NULL, 0, -1);
    op.num_outputs = cleave_values_list(two_twice, 2);
    const char *nrank[] = {"num_outputs", "scalar", "rank 1", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                   nrank);
    op.num_outputs = cleave_values_scalar(two_twice);
    op.num_outputs.dtype = CLEAVE_F32;
    op.num_outputs.data = &two_f;
    const char *ntype[] = {"num_outputs", "integer type", "f32", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                   ntype);
    op.num_outputs.dtype = CLEAVE_U64;
    op.num_outputs.data = &huge;
    const char *nhuge[] = {"num_outputs", "18446744073709551615", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                   nhuge);
    /* Any integer type is read. */
    op.num_outputs.dtype = CLEAVE_I32;
    op.num_outputs.data = &three32;
    const int64_t l222[3] = {2, 2, 2};
    expect_ok(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 0, l222, 3, "num_outputs as int32");
  }
}

/* v18: exactly one of split and num_outputs. */
static void test_v18_both_or_neither(void **state) {
  (void)state;
  const int64_t lens[2] = {3, 3};
  cleave_op both = onnx_op(18, lens, 2, 2);
  cleave_op neither = onnx_op(18, NULL, 0, -1);
  const char *needles[] = {"split", "num_outputs", NULL};
  tu_check_error(&both, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
  tu_check_error(&neither, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
}

/* v18: num_outputs >= 1. */
static void test_v18_num_outputs_below_one(void **state) {
  (void)state;
  const int64_t ns[] = {0, -3};
  const char *texts[] = {"0", "-3"};
  for (size_t i = 0; i < 2; ++i) {
    cleave_op op = onnx_op(18, NULL, 0, -1);
    op.num_outputs = tu_count_value(ns[i]);
    const char *needles[] = {"num_outputs", texts[i], NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 1, CLEAVE_ERROR_INVALID_SPLIT,
                   needles);
  }
}

/* v18 num_outputs n: c = ceil(d/n); the first n-1 get c, the last d - c(n-1), which may be 0
 * but not negative. Values checked by hand for 7/3 and 6/4. */
static void test_v18_ceil_rule(void **state) {
  (void)state;
  const int64_t shape7[1] = {7};
  const int32_t data7[7] = {1, 2, 3, 4, 5, 6, 7};
  cleave_tensor t = {data7, cleave_type_of(CLEAVE_I32), 1, shape7};
  int32_t a[3], b[3], c[3];
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  memset(c, 0, sizeof c);
  void *outs[3] = {a, b, c};
  cleave_error err;
  assert_int_equal(cleave_onnx_split(&t, 18, 0, cleave_values_none(), outs, 3, &err), CLEAVE_OK);
  assert_int_equal(a[0], 1);
  assert_int_equal(a[2], 3);
  assert_int_equal(b[0], 4);
  assert_int_equal(b[2], 6);
  assert_int_equal(c[0], 7);
  assert_int_equal(c[1], 0); /* untouched past the 1-element last output */

  const int64_t shape6b[1] = {6};
  const int32_t data6[6] = {1, 2, 3, 4, 5, 6};
  cleave_tensor t6 = {data6, cleave_type_of(CLEAVE_I32), 1, shape6b};
  int32_t o[4][2];
  memset(o, 0x7F, sizeof o);
  void *outs4[4] = {o[0], o[1], o[2], o[3]};
  assert_int_equal(cleave_onnx_split(&t6, 18, 0, cleave_values_none(), outs4, 4, &err), CLEAVE_OK);
  for (int i = 0; i < 3; ++i) {
    assert_int_equal(o[i][0], 1 + 2 * i);
    assert_int_equal(o[i][1], 2 + 2 * i);
  }
  assert_int_equal(o[3][0], 0x7F7F7F7F); /* the empty last output is not written */

  cleave_op op = onnx_op(18, NULL, 0, 4);
  int64_t lens[4];
  cleave_split_info info;
  assert_int_equal(cleave_infer(&op, t6.type, shape6b, 1, &info, lens, 4, &err), CLEAVE_OK);
  assert_int_equal(lens[0], 2);
  assert_int_equal(lens[3], 0);

  /* 5/4: c = 2, last = 5 - 6 = -1: an error naming num_outputs and d. */
  const int64_t shape5[1] = {5};
  const char *needles[] = {"num_outputs", "4", "5", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape5, 1, 4, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
  /* More outputs than elements: 2/3 -> c = 1, last = 0; 2/4 -> last = -1. */
  const int64_t shape2[1] = {2};
  cleave_op op3 = onnx_op(18, NULL, 0, 3);
  const int64_t l110[3] = {1, 1, 0};
  expect_ok(&op3, cleave_type_of(CLEAVE_F32), shape2, 1, 0, l110, 3, "18: 2/3");
  const char *needles2[] = {"num_outputs", "4", "2", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape2, 1, 4, CLEAVE_ERROR_INVALID_SPLIT,
                 needles2);
  /* d = 0: every output empty. */
  const int64_t shape0[1] = {0};
  const int64_t l000[3] = {0, 0, 0};
  expect_ok(&op3, cleave_type_of(CLEAVE_F32), shape0, 1, 0, l000, 3, "18: 0/3");
}

/* The axis attribute defaults to 0, and negative axes work in every version. */
static void test_axis_attribute(void **state) {
  (void)state;
  const int64_t shape[3] = {4, 2, 6};
  const int64_t opsets[] = {1, 2, 11, 13, 18};
  for (size_t o = 0; o < 5; ++o) {
    const int64_t axis = -1;
    cleave_op op = onnx_op(opsets[o], NULL, 0, 2);
    op.axis = cleave_values_scalar(&axis);
    const int64_t l33[2] = {3, 3};
    expect_ok(&op, cleave_type_of(CLEAVE_F16), shape, 3, 2, l33, 2, "axis -1");
    op.axis = cleave_values_none();
    const int64_t l22[2] = {2, 2};
    expect_ok(&op, cleave_type_of(CLEAVE_F16), shape, 3, 0, l22, 2, "default axis");
    const int64_t bad = -4;
    op.axis = cleave_values_scalar(&bad);
    const char *needles[] = {"axis", "-4", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F16), shape, 3, 2, CLEAVE_ERROR_INVALID_AXIS,
                   needles);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types_by_version),     cmocka_unit_test(test_type_table_spot_checks),
      cmocka_unit_test(test_opset_below_first),    cmocka_unit_test(test_opset_12_is_split_11),
      cmocka_unit_test(test_opset_17_is_split_13), cmocka_unit_test(test_explicit_lengths_rules),
      cmocka_unit_test(test_split_tensor_form),    cmocka_unit_test(test_equal_parts),
      cmocka_unit_test(test_missing_output_count), cmocka_unit_test(test_num_outputs_values),
      cmocka_unit_test(test_v18_both_or_neither),  cmocka_unit_test(test_v18_num_outputs_below_one),
      cmocka_unit_test(test_v18_ceil_rule),        cmocka_unit_test(test_axis_attribute),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
