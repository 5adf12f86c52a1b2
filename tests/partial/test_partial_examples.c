/*
 * Hand-written cases of partial-shape inference: the examples of docs/operators.md section 6
 * printed as `cleave infer` prints them (docs/cli.md), the consequences of each operator's rules,
 * unknown axes and lengths, SplitToSequence and ONNX Split, and dynamic ranks. Every expected text
 * was worked out by hand from the spec. Values near INT64_MAX, static shapes as the point case
 * and API misuse are in test_partial_limits.c.
 */
#include "partial_expect.h"

#include <string.h>

/* ---- docs/operators.md section 6, as printed by `cleave infer` ---------------------------------
 */

static void test_section6_examples(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1, s3 = 3, s2 = 2;
  /* `[3..6]`/2 -> `2..3` (OpenVINO: `1..3`). */
  cleave_op op = cleave_op_split(&a0, 2);
  pt_expect_text(&op, 0, "[3..6]", "[2..3]\n[2..3]");
  /* `1..41`/41 -> `1` (OpenVINO: `0`). */
  op = cleave_op_split(&a0, 41);
  pt_expect_text(&op, 0, "[1..41]", pt_repeat("[1]", 41));
  /* `[2,6,4]`, Split n=2, axis unknown -> `[1..2,3..6,2..4]` (OpenVINO: `[?,?,?]`). */
  op = cleave_op_split(&a0, 2);
  pt_expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[2,6,4]", "[1..2,3..6,2..4]\n[1..2,3..6,2..4]");
  /* `-s 3` on `[3,5..6]`, axis 1 -> `[3,3]` and `[3,2..3]`. */
  op = pt_sequence(&a1, &s3);
  pt_expect_text(&op, 0, "[3,5..6]", "[3,3]\n[3,2..3]");
  /* `-s 2` on `[3,3..6]`, axis 1 -> `2..3 x [3,1..2]`. */
  op = pt_sequence(&a1, &s2);
  pt_outcome o = pt_infer(&op, 0, "[3,3..6]");
  assert_string_equal(o.text, "2..3 x [3,1..2]");
  assert_int_equal(o.info.count_varies, 1);
  assert_int_equal(o.info.count.lo, 2);
  assert_int_equal(o.info.count.hi, 3);
  assert_int_equal(o.info.num_shapes, 1);
}

static void test_split1_consequences(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1;
  cleave_op op = cleave_op_split(&a0, 3);
  /* [ceil(lo/n), floor(hi/n)]. */
  pt_expect_text(&op, 0, "[4..11]", pt_repeat("[2..3]", 3));
  pt_expect_text(&op, 0, "[3..7]", pt_repeat("[1..2]", 3));
  pt_expect_text(&op, 0, "[0..2]", pt_repeat("[0]", 3));
  /* An infinite hi stays infinite. */
  pt_expect_text(&op, 0, "[4..]", pt_repeat("[2..]", 3));
  pt_expect_text(&op, 0, "[?]", pt_repeat("[?]", 3));
  pt_expect_text(&op, 0, "[0..]", pt_repeat("[?]", 3));
  /* Other dims pass through. */
  op = cleave_op_split(&a1, 2);
  pt_expect_text(&op, 0, "[?,6..9,4..]", "[?,3..4,4..]\n[?,3..4,4..]");
  /* No multiple of n in the interval: the op's error. */
  op = cleave_op_split(&a1, 4);
  pt_expect_error(&op, 0, "[2,5..7]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"data.shape[1]", "5..7", "num_splits = 4", NULL});
  pt_expect_error(
      &op, 0, "[2,6]", CLEAVE_ERROR_INVALID_SPLIT,
      (const char *const[]){"data.shape[1] = 6 is not divisible by num_splits = 4", NULL});
}

static void test_variadic_consequences(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1;
  int64_t l12[] = {1, 2}, l2m[] = {2, -1}, lm2[] = {-1, 2};
  /* Without -1: valid iff lo <= S <= hi. */
  cleave_op op = cleave_op_variadic_split(&a0, l12, 2);
  pt_expect_text(&op, 0, "[2..4]", "[1]\n[2]");
  pt_expect_text(&op, 0, "[3..]", "[1]\n[2]");
  pt_expect_error(&op, 0, "[4..6]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"split_lengths sum to 3", "data.shape[0] is 4..6", NULL});
  pt_expect_error(&op, 0, "[0..2]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"sum to 3", "0..2", NULL});
  /* With -1: valid iff S <= hi; the -1 gets [max(lo,S)-S, hi-S]. */
  op = cleave_op_variadic_split(&a0, l2m, 2);
  pt_expect_text(&op, 0, "[1..7]", "[2]\n[0..5]");
  pt_expect_text(&op, 0, "[3..7]", "[2]\n[1..5]");
  pt_expect_text(&op, 0, "[5..]", "[2]\n[3..]");
  pt_expect_text(&op, 0, "[?]", "[2]\n[?]");
  pt_expect_error(
      &op, 0, "[0..1]", CLEAVE_ERROR_INVALID_SPLIT,
      (const char *const[]){"other than the -1 sum to 2", "0..1", "would be -2..-1", NULL});
  op = cleave_op_variadic_split(&a1, lm2, 2);
  pt_expect_text(&op, 0, "[3,2..9,?]", "[3,0..7,?]\n[3,2,?]");
  /* The shape-[1] axis input is accepted as a known value. */
  op.axis = cleave_values_list(&a1, 1);
  pt_expect_text(&op, 0, "[3,2..9,?]", "[3,0..7,?]\n[3,2,?]");
}

static void test_unknown_axis(void **state) {
  (void)state;
  int64_t a0 = 0;
  /* Axis 0: [1]; axis 1: 4 has no third; axis 2: [2]. Dim 0 is 1 (axis 0) or 3 (axis 2). */
  cleave_op op = cleave_op_split(&a0, 3);
  pt_expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[3,4,6]", pt_repeat("[1..3,4,2..6]", 3));
  /* The axis value is not read: NULL data is fine. */
  op.axis.data = NULL;
  pt_expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[3,4,6]", pt_repeat("[1..3,4,2..6]", 3));
  /* Only one axis position is valid: its dims are exactly the known-axis result. */
  pt_expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[2,6,4]", pt_repeat("[2,2,4]", 3));
  /* No position is valid: the op's error, saying no axis works. */
  op = cleave_op_split(&a0, 4);
  pt_expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[5..7,1..3]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"data.shape[0] = 5..7", "num_splits = 4",
                                        "no other axis in [-2, 1] is valid", NULL});
  /* The same error at every position is reported as is. */
  op = cleave_op_split(&a0, 0);
  pt_expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[4,4]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"num_splits is 0 but must be >= 1", NULL});
  /* Rank 0: no axis at all. */
  op = cleave_op_split(&a0, 1);
  pt_expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[]", CLEAVE_ERROR_INVALID_AXIS,
                  (const char *const[]){"rank 0", NULL});
  /* The axis tensor's own rules still apply: Split-1 rejects a shape-[1] axis. */
  op.axis = cleave_values_list(&a0, 1);
  pt_expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[4]", CLEAVE_ERROR_INVALID_AXIS,
                  (const char *const[]){"axis must be a scalar", NULL});
  /* The OpenVINO ops still need the axis input. */
  op.axis = cleave_values_none();
  pt_expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[4]", CLEAVE_ERROR_INVALID_AXIS,
                  (const char *const[]){"needs an axis input", NULL});
  /* An ONNX axis attribute flagged unknown (absent) ranges over every position: axis 0 gives 2
   * elements [1,3], axis 1 gives 3 elements [2,1]. */
  cleave_op seq = cleave_op_split_to_sequence(11);
  pt_expect_text(&seq, CLEAVE_UNKNOWN_AXIS, "[2,3]", "2..3 x [1..2,1..3]");
  /* Same count at every position: per-element hulls. */
  pt_expect_text(&seq, CLEAVE_UNKNOWN_AXIS, "[3,3]", pt_repeat("[1..3,1..3]", 3));
  /* keepdims 0: the axis is removed, wherever it is. */
  seq.keepdims = 0;
  pt_expect_text(&seq, CLEAVE_UNKNOWN_AXIS, "[2,3,4]", "2..4 x [2..3,3..4]");
  pt_expect_text(&seq, CLEAVE_UNKNOWN_AXIS, "[3,3]", pt_repeat("[3]", 3));
  pt_outcome o = pt_infer(&seq, CLEAVE_UNKNOWN_AXIS, "[3,3]");
  assert_int_equal(o.info.axis, -1);
  assert_int_equal(o.info.axis_removed, 1);
  assert_int_equal(o.info.output_rank, 1);
}

static void test_unknown_lengths(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1;
  /* k = 1: the whole axis dim; k >= 2: [0, hi]. */
  cleave_op op = cleave_op_variadic_split(&a1, NULL, 1);
  pt_expect_text(&op, CLEAVE_UNKNOWN_LENGTHS, "[2,3..5]", "[2,3..5]");
  op = cleave_op_variadic_split(&a1, NULL, 3);
  pt_expect_text(&op, CLEAVE_UNKNOWN_LENGTHS, "[2,4..10,3]", pt_repeat("[2,0..10,3]", 3));
  pt_expect_text(&op, CLEAVE_UNKNOWN_LENGTHS, "[2,4..,3]", pt_repeat("[2,?,3]", 3));
  /* Both unknown. */
  pt_expect_text(&op, CLEAVE_UNKNOWN_LENGTHS | CLEAVE_UNKNOWN_AXIS, "[2,4..10]",
                 pt_repeat("[0..2,0..10]", 3));
  /* The count rules still apply: an empty split_lengths is an error. */
  op = cleave_op_variadic_split(&a1, NULL, 0);
  pt_expect_error(&op, CLEAVE_UNKNOWN_LENGTHS, "[2,4]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"split_lengths is empty", NULL});
  /* ONNX Split-13 with an unknown split of 2 and a node of 3 outputs: the count check. */
  cleave_op onnx = cleave_op_onnx_split(13);
  int64_t placeholder[2] = {0, 0};
  onnx.lengths = cleave_values_list(placeholder, 2);
  pt_expect_text(&onnx, CLEAVE_UNKNOWN_LENGTHS, "[?,4]", "[?,4]\n[?,4]");
  onnx.num_outputs = cleave_values_scalar(&(const int64_t){3});
  pt_expect_error(&onnx, CLEAVE_UNKNOWN_LENGTHS, "[?,4]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"split has 2 entries", "3 outputs", NULL});
  /* SplitToSequence with an unknown scalar split s >= 1. */
  cleave_op seq = pt_sequence(&a0, placeholder);
  pt_expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[4]", "1..4 x [1..4]");
  pt_expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[1]", "[1]");
  pt_expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[0]", "");
  pt_expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[0..1,5]", "0..1 x [1,5]");
  pt_expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[2..]", "1.. x [1..]");
  /* ... and an unknown 1-D split. */
  seq.lengths = cleave_values_list(placeholder, 2);
  pt_expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[3..5,2]", "[0..5,2]\n[0..5,2]");
  /* The flag is ignored when there are no lengths. */
  seq.lengths = cleave_values_none();
  pt_expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[2,5]", "[1,5]\n[1,5]");
}

static void test_sequence_cases(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1, s3 = 3;
  cleave_op op = pt_sequence(&a1, NULL);
  /* Without split: d elements of 1. */
  pt_expect_text(&op, 0, "[2,3]", pt_repeat("[2,1]", 3));
  pt_expect_text(&op, 0, "[2,2..4]", "2..4 x [2,1]");
  pt_expect_text(&op, 0, "[2,3..]", "3.. x [2,1]");
  pt_expect_text(&op, 0, "[0,5]", pt_repeat("[0,1]", 5));
  op.axis = cleave_values_scalar(&a0);
  pt_expect_text(&op, 0, "[0,5]", ""); /* an empty sequence prints nothing */
  pt_outcome o = pt_infer(&op, 0, "[0,5]");
  assert_int_equal(o.info.num_shapes, 0);
  assert_int_equal(o.info.count_varies, 0);
  assert_int_equal(o.info.count.lo, 0);
  assert_int_equal(o.info.dims_needed, 0);
  op.keepdims = 0;
  pt_expect_text(&op, 0, "[2,5]", "[5]\n[5]");
  pt_expect_text(&op, 0, "[?,5]", "? x [5]");
  pt_expect_text(&op, 0, "[3]", "[]\n[]\n[]");
  /* Scalar split 3: floor(d/3) chunks of 3, then d mod 3. */
  op = pt_sequence(&a0, &s3);
  pt_expect_text(&op, 0, "[0..2]", "0..1 x [1..2]");
  pt_expect_text(&op, 0, "[7..9]", "[3]\n[3]\n[1..3]");
  pt_expect_text(&op, 0, "[6..7]", "2..3 x [1..3]");
  pt_expect_text(&op, 0, "[?]", "? x [1..3]");
  pt_expect_text(&op, 0, "[1..]", "1.. x [1..3]");
  /* keepdims is ignored with a split. */
  op.keepdims = 0;
  pt_expect_text(&op, 0, "[7..9]", "[3]\n[3]\n[1..3]");
  op.keepdims = 2;
  pt_expect_error(&op, 0, "[7..9]", CLEAVE_ERROR_INVALID_ATTRIBUTE,
                  (const char *const[]){"keepdims is 2", NULL});
  /* A list: every entry >= 0 and sum == d. */
  int64_t list[] = {2, 0, 3};
  op = cleave_op_split_to_sequence(11);
  op.lengths = cleave_values_list(list, 3);
  pt_expect_text(&op, 0, "[4..5,7]", "[2,7]\n[0,7]\n[3,7]");
  pt_expect_error(&op, 0, "[6..,7]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"split sum to 5", "6..", NULL});
}

static void test_onnx_split_cases(void **state) {
  (void)state;
  /* Split-18 num_outputs 4: c = ceil(d/4), last = d - 3c; d = 5 is invalid (last -1). */
  cleave_op op = cleave_op_onnx_split(18);
  op.num_outputs = cleave_values_scalar(&(const int64_t){4});
  pt_expect_text(&op, 0, "[5..6]", "[2]\n[2]\n[2]\n[0]");
  /* d = 6..10: 2,2,2,0 / 2,2,2,1 / 2,2,2,2 / 3,3,3,0 / 3,3,3,1. */
  pt_expect_text(&op, 0, "[6..10]", "[2..3]\n[2..3]\n[2..3]\n[0..2]");
  pt_expect_error(&op, 0, "[5]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"num_outputs = 4", "data.shape[0] = 5",
                                        "3 chunks of 2 leave a negative length", NULL});
  op.num_outputs = cleave_values_scalar(&(const int64_t){5});
  /* d = 5..7 with n = 5: 1,1,1,1,1 / c=2 needs 8 / c=2 needs 8: only d = 5 works... and d = 6, 7
   * are invalid, so the hull is d = 5's. */
  pt_expect_text(&op, 0, "[5..7]", pt_repeat("[1]", 5));
  pt_expect_error(&op, 0, "[6..7]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"num_outputs = 5", "6..7", "every value", NULL});
  pt_expect_text(&op, 0, "[0..]", pt_repeat("[?]", 5));
  /* Split-13 equal parts. */
  op = cleave_op_onnx_split(13);
  op.num_outputs = cleave_values_scalar(&(const int64_t){2});
  pt_expect_text(&op, 0, "[3..6]", "[2..3]\n[2..3]");
  pt_expect_error(
      &op, 0, "[3]", CLEAVE_ERROR_INVALID_SPLIT,
      (const char *const[]){"data.shape[0] = 3 is not divisible into the 2 equal outputs", NULL});
  pt_expect_error(&op, 0, "[5..5]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"= 5 is not divisible", NULL});
}

static void test_dynamic_rank(void **state) {
  (void)state;
  int64_t a1 = 1, a_big = (int64_t)1 << 40, a_neg = -7;
  cleave_op op = cleave_op_split(&a1, 2);
  pt_expect_text(&op, 0, "[...]", "[...]\n[...]");
  pt_outcome o = pt_infer(&op, 0, "[...]");
  assert_int_equal(o.info.output_rank, CLEAVE_RANK_DYNAMIC);
  assert_int_equal(o.info.axis, -1);
  assert_int_equal(o.info.dims_needed, 0);
  pt_expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[...]", "[...]\n[...]");
  op = cleave_op_split(&a_neg, 3);
  pt_expect_text(&op, 0, "[...]", "[...]\n[...]\n[...]");
  /* Ranks are at most INT32_MAX, so this axis fits none. */
  op = cleave_op_split(&a_big, 2);
  pt_expect_error(&op, 0, "[...]", CLEAVE_ERROR_INVALID_AXIS,
                  (const char *const[]){"axis 1099511627776 is out of range", NULL});
  op = cleave_op_split(&a1, 0);
  pt_expect_error(&op, 0, "[...]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"num_splits is 0", NULL});
  /* SplitToSequence without split: any count. */
  cleave_op seq = pt_sequence(&a1, NULL);
  pt_expect_text(&seq, 0, "[...]", "? x [...]");
  int64_t list[] = {1, 2};
  seq.lengths = cleave_values_list(list, 2);
  pt_expect_text(&seq, 0, "[...]", "[...]\n[...]");
  int64_t vl[] = {1, -1, -1};
  op = cleave_op_variadic_split(&a1, vl, 3);
  pt_expect_error(&op, 0, "[...]", CLEAVE_ERROR_INVALID_SPLIT,
                  (const char *const[]){"at most one entry may be -1", NULL});
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_section6_examples),     cmocka_unit_test(test_split1_consequences),
      cmocka_unit_test(test_variadic_consequences), cmocka_unit_test(test_unknown_axis),
      cmocka_unit_test(test_unknown_lengths),       cmocka_unit_test(test_sequence_cases),
      cmocka_unit_test(test_onnx_split_cases),      cmocka_unit_test(test_dynamic_rank),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
