/*
 * Hand-written cases of partial-shape inference: the examples of docs/operators.md section 6
 * printed as `cleave infer` prints them (docs/cli.md), unbounded intervals, dynamic ranks, values
 * near INT64_MAX, error statuses and messages, and the capacity protocol. Every expected text was
 * worked out by hand from the spec.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cleave.h"

enum { MAX_DIMS = 4096, TEXT_SIZE = 8192 };

/* The result of one inference, printed as `cleave infer` prints it: one shape per line, or
 * "COUNT x ELEMENT" when the count varies; "" for an empty sequence. */
typedef struct outcome {
  cleave_status status;
  cleave_partial_info info;
  char text[TEXT_SIZE];
  char message[CLEAVE_MESSAGE_SIZE];
} outcome;

static void print_outputs(const cleave_partial_info *info, const cleave_dim *dims, char *text,
                          size_t size) {
  size_t used = 0;
  size_t rank = info->output_rank == CLEAVE_RANK_DYNAMIC ? 0 : info->output_rank;
  text[0] = '\0';
  for (size_t i = 0; i < info->num_shapes; i++) {
    char shape[1024], count[CLEAVE_DIM_TEXT_SIZE];
    cleave_partial_shape out = {info->output_rank, dims + i * rank};
    assert_int_equal(cleave_partial_shape_format(&out, shape, sizeof shape, NULL, NULL), CLEAVE_OK);
    if (info->count_varies) {
      assert_int_equal(cleave_dim_format(info->count, count, sizeof count, NULL, NULL), CLEAVE_OK);
      used += (size_t)snprintf(text + used, size - used, "%s%s x %s", i ? "\n" : "", count, shape);
    } else {
      used += (size_t)snprintf(text + used, size - used, "%s%s", i ? "\n" : "", shape);
    }
    assert_true(used < size);
  }
}

/* Parses `shape_text`, infers, prints. */
static outcome infer_as(const cleave_op *op, unsigned unknown, cleave_dtype dtype,
                        const char *shape_text) {
  static cleave_dim in[16], dims[MAX_DIMS];
  outcome o;
  memset(&o, 0, sizeof o);
  size_t rank = 0;
  cleave_error err;
  assert_int_equal(cleave_partial_shape_parse(shape_text, in, 16, &rank, &err), CLEAVE_OK);
  cleave_partial_shape shape = {rank, in};
  o.status = cleave_infer_partial(op, unknown, cleave_type_of(dtype), &shape, &o.info, dims,
                                  MAX_DIMS, &err);
  assert_int_equal(err.status, o.status);
  if (o.status == CLEAVE_OK) {
    print_outputs(&o.info, dims, o.text, sizeof o.text);
  } else {
    snprintf(o.message, sizeof o.message, "%s", err.message);
  }
  return o;
}

static outcome infer(const cleave_op *op, unsigned unknown, const char *shape_text) {
  return infer_as(op, unknown, CLEAVE_F32, shape_text);
}

static void expect_text(const cleave_op *op, unsigned unknown, const char *shape_text,
                        const char *want) {
  outcome o = infer(op, unknown, shape_text);
  if (o.status != CLEAVE_OK) {
    print_error("on %s: status %d: %s\n", shape_text, (int)o.status, o.message);
  }
  assert_int_equal(o.status, CLEAVE_OK);
  if (strcmp(o.text, want) != 0) {
    print_error("on %s:\nwant:\n%s\ngot:\n%s\n", shape_text, want, o.text);
  }
  assert_string_equal(o.text, want);
}

/* Expects failure with `status` and a message holding every needle; nothing written. */
static void expect_error(const cleave_op *op, unsigned unknown, const char *shape_text,
                         cleave_status status, const char *const *needles) {
  static cleave_dim in[16], dims[8];
  size_t rank = 0;
  cleave_error err;
  assert_int_equal(cleave_partial_shape_parse(shape_text, in, 16, &rank, &err), CLEAVE_OK);
  cleave_partial_shape shape = {rank, in};
  for (int i = 0; i < 8; i++) {
    dims[i] = cleave_dim_range(-9, -9);
  }
  cleave_partial_info info;
  cleave_status st =
      cleave_infer_partial(op, unknown, cleave_type_of(CLEAVE_F32), &shape, &info, dims, 8, &err);
  if (st != status) {
    print_error("on %s: status %d, want %d (%s)\n", shape_text, (int)st, (int)status, err.message);
  }
  assert_int_equal(st, status);
  assert_int_equal(err.status, status);
  for (int i = 0; needles[i] != NULL; i++) {
    if (strstr(err.message, needles[i]) == NULL) {
      print_error("message \"%s\" lacks \"%s\"\n", err.message, needles[i]);
    }
    assert_non_null(strstr(err.message, needles[i]));
  }
  for (int i = 0; i < 8; i++) {
    assert_int_equal(dims[i].lo, -9);
    assert_int_equal(dims[i].hi, -9);
  }
}

/* Repeats `line` n times, joined by newlines. */
static const char *repeat(const char *line, int n) {
  static char buf[TEXT_SIZE];
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? "\n" : "", line);
  }
  return buf;
}

static cleave_op sequence(const int64_t *axis, const int64_t *split) {
  cleave_op op = cleave_op_split_to_sequence(24);
  op.axis = cleave_values_scalar(axis);
  if (split != NULL) {
    op.lengths = cleave_values_scalar(split);
  }
  return op;
}

/* ---- docs/operators.md section 6, as printed by `cleave infer` ---------------------------------
 */

static void test_section6_examples(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1, s3 = 3, s2 = 2;
  /* `[3..6]`/2 -> `2..3` (OpenVINO: `1..3`). */
  cleave_op op = cleave_op_split(&a0, 2);
  expect_text(&op, 0, "[3..6]", "[2..3]\n[2..3]");
  /* `1..41`/41 -> `1` (OpenVINO: `0`). */
  op = cleave_op_split(&a0, 41);
  expect_text(&op, 0, "[1..41]", repeat("[1]", 41));
  /* `[2,6,4]`, Split n=2, axis unknown -> `[1..2,3..6,2..4]` (OpenVINO: `[?,?,?]`). */
  op = cleave_op_split(&a0, 2);
  expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[2,6,4]", "[1..2,3..6,2..4]\n[1..2,3..6,2..4]");
  /* `-s 3` on `[3,5..6]`, axis 1 -> `[3,3]` and `[3,2..3]`. */
  op = sequence(&a1, &s3);
  expect_text(&op, 0, "[3,5..6]", "[3,3]\n[3,2..3]");
  /* `-s 2` on `[3,3..6]`, axis 1 -> `2..3 x [3,1..2]`. */
  op = sequence(&a1, &s2);
  outcome o = infer(&op, 0, "[3,3..6]");
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
  expect_text(&op, 0, "[4..11]", repeat("[2..3]", 3));
  expect_text(&op, 0, "[3..7]", repeat("[1..2]", 3));
  expect_text(&op, 0, "[0..2]", repeat("[0]", 3));
  /* An infinite hi stays infinite. */
  expect_text(&op, 0, "[4..]", repeat("[2..]", 3));
  expect_text(&op, 0, "[?]", repeat("[?]", 3));
  expect_text(&op, 0, "[0..]", repeat("[?]", 3));
  /* Other dims pass through. */
  op = cleave_op_split(&a1, 2);
  expect_text(&op, 0, "[?,6..9,4..]", "[?,3..4,4..]\n[?,3..4,4..]");
  /* No multiple of n in the interval: the op's error. */
  op = cleave_op_split(&a1, 4);
  expect_error(&op, 0, "[2,5..7]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"data.shape[1]", "5..7", "num_splits = 4", NULL});
  expect_error(&op, 0, "[2,6]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"data.shape[1] = 6 is not divisible by num_splits = 4", NULL});
}

static void test_variadic_consequences(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1;
  int64_t l12[] = {1, 2}, l2m[] = {2, -1}, lm2[] = {-1, 2};
  /* Without -1: valid iff lo <= S <= hi. */
  cleave_op op = cleave_op_variadic_split(&a0, l12, 2);
  expect_text(&op, 0, "[2..4]", "[1]\n[2]");
  expect_text(&op, 0, "[3..]", "[1]\n[2]");
  expect_error(&op, 0, "[4..6]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"split_lengths sum to 3", "data.shape[0] is 4..6", NULL});
  expect_error(&op, 0, "[0..2]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"sum to 3", "0..2", NULL});
  /* With -1: valid iff S <= hi; the -1 gets [max(lo,S)-S, hi-S]. */
  op = cleave_op_variadic_split(&a0, l2m, 2);
  expect_text(&op, 0, "[1..7]", "[2]\n[0..5]");
  expect_text(&op, 0, "[3..7]", "[2]\n[1..5]");
  expect_text(&op, 0, "[5..]", "[2]\n[3..]");
  expect_text(&op, 0, "[?]", "[2]\n[?]");
  expect_error(
      &op, 0, "[0..1]", CLEAVE_ERROR_INVALID_SPLIT,
      (const char *const[]){"other than the -1 sum to 2", "0..1", "would be -2..-1", NULL});
  op = cleave_op_variadic_split(&a1, lm2, 2);
  expect_text(&op, 0, "[3,2..9,?]", "[3,0..7,?]\n[3,2,?]");
  /* The shape-[1] axis input is accepted as a known value. */
  op.axis = cleave_values_list(&a1, 1);
  expect_text(&op, 0, "[3,2..9,?]", "[3,0..7,?]\n[3,2,?]");
}

static void test_unknown_axis(void **state) {
  (void)state;
  int64_t a0 = 0;
  /* Axis 0: [1]; axis 1: 4 has no third; axis 2: [2]. Dim 0 is 1 (axis 0) or 3 (axis 2). */
  cleave_op op = cleave_op_split(&a0, 3);
  expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[3,4,6]", repeat("[1..3,4,2..6]", 3));
  /* The axis value is not read: NULL data is fine. */
  op.axis.data = NULL;
  expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[3,4,6]", repeat("[1..3,4,2..6]", 3));
  /* Only one axis position is valid: its dims are exactly the known-axis result. */
  expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[2,6,4]", repeat("[2,2,4]", 3));
  /* No position is valid: the op's error, saying no axis works. */
  op = cleave_op_split(&a0, 4);
  expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[5..7,1..3]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"data.shape[0] = 5..7", "num_splits = 4",
                                     "no other axis in [-2, 1] is valid", NULL});
  /* The same error at every position is reported as is. */
  op = cleave_op_split(&a0, 0);
  expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[4,4]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"num_splits is 0 but must be >= 1", NULL});
  /* Rank 0: no axis at all. */
  op = cleave_op_split(&a0, 1);
  expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[]", CLEAVE_ERROR_INVALID_AXIS,
               (const char *const[]){"rank 0", NULL});
  /* The axis tensor's own rules still apply: Split-1 rejects a shape-[1] axis. */
  op.axis = cleave_values_list(&a0, 1);
  expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[4]", CLEAVE_ERROR_INVALID_AXIS,
               (const char *const[]){"axis must be a scalar", NULL});
  /* The OpenVINO ops still need the axis input. */
  op.axis = cleave_values_none();
  expect_error(&op, CLEAVE_UNKNOWN_AXIS, "[4]", CLEAVE_ERROR_INVALID_AXIS,
               (const char *const[]){"needs an axis input", NULL});
  /* An ONNX axis attribute flagged unknown (absent) ranges over every position: axis 0 gives 2
   * elements [1,3], axis 1 gives 3 elements [2,1]. */
  cleave_op seq = cleave_op_split_to_sequence(11);
  expect_text(&seq, CLEAVE_UNKNOWN_AXIS, "[2,3]", "2..3 x [1..2,1..3]");
  /* Same count at every position: per-element hulls. */
  expect_text(&seq, CLEAVE_UNKNOWN_AXIS, "[3,3]", repeat("[1..3,1..3]", 3));
  /* keepdims 0: the axis is removed, wherever it is. */
  seq.keepdims = 0;
  expect_text(&seq, CLEAVE_UNKNOWN_AXIS, "[2,3,4]", "2..4 x [2..3,3..4]");
  expect_text(&seq, CLEAVE_UNKNOWN_AXIS, "[3,3]", repeat("[3]", 3));
  outcome o = infer(&seq, CLEAVE_UNKNOWN_AXIS, "[3,3]");
  assert_int_equal(o.info.axis, -1);
  assert_int_equal(o.info.axis_removed, 1);
  assert_int_equal(o.info.output_rank, 1);
}

static void test_unknown_lengths(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1;
  /* k = 1: the whole axis dim; k >= 2: [0, hi]. */
  cleave_op op = cleave_op_variadic_split(&a1, NULL, 1);
  expect_text(&op, CLEAVE_UNKNOWN_LENGTHS, "[2,3..5]", "[2,3..5]");
  op = cleave_op_variadic_split(&a1, NULL, 3);
  expect_text(&op, CLEAVE_UNKNOWN_LENGTHS, "[2,4..10,3]", repeat("[2,0..10,3]", 3));
  expect_text(&op, CLEAVE_UNKNOWN_LENGTHS, "[2,4..,3]", repeat("[2,?,3]", 3));
  /* Both unknown. */
  expect_text(&op, CLEAVE_UNKNOWN_LENGTHS | CLEAVE_UNKNOWN_AXIS, "[2,4..10]",
              repeat("[0..2,0..10]", 3));
  /* The count rules still apply: an empty split_lengths is an error. */
  op = cleave_op_variadic_split(&a1, NULL, 0);
  expect_error(&op, CLEAVE_UNKNOWN_LENGTHS, "[2,4]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"split_lengths is empty", NULL});
  /* ONNX Split-13 with an unknown split of 2 and a node of 3 outputs: the count check. */
  cleave_op onnx = cleave_op_onnx_split(13);
  int64_t placeholder[2] = {0, 0};
  onnx.lengths = cleave_values_list(placeholder, 2);
  expect_text(&onnx, CLEAVE_UNKNOWN_LENGTHS, "[?,4]", "[?,4]\n[?,4]");
  onnx.num_outputs = cleave_values_scalar(&(const int64_t){3});
  expect_error(&onnx, CLEAVE_UNKNOWN_LENGTHS, "[?,4]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"split has 2 entries", "3 outputs", NULL});
  /* SplitToSequence with an unknown scalar split s >= 1. */
  cleave_op seq = sequence(&a0, placeholder);
  expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[4]", "1..4 x [1..4]");
  expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[1]", "[1]");
  expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[0]", "");
  expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[0..1,5]", "0..1 x [1,5]");
  expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[2..]", "1.. x [1..]");
  /* ... and an unknown 1-D split. */
  seq.lengths = cleave_values_list(placeholder, 2);
  expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[3..5,2]", "[0..5,2]\n[0..5,2]");
  /* The flag is ignored when there are no lengths. */
  seq.lengths = cleave_values_none();
  expect_text(&seq, CLEAVE_UNKNOWN_LENGTHS, "[2,5]", "[1,5]\n[1,5]");
}

static void test_sequence_cases(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1, s3 = 3;
  cleave_op op = sequence(&a1, NULL);
  /* Without split: d elements of 1. */
  expect_text(&op, 0, "[2,3]", repeat("[2,1]", 3));
  expect_text(&op, 0, "[2,2..4]", "2..4 x [2,1]");
  expect_text(&op, 0, "[2,3..]", "3.. x [2,1]");
  expect_text(&op, 0, "[0,5]", repeat("[0,1]", 5));
  op.axis = cleave_values_scalar(&a0);
  expect_text(&op, 0, "[0,5]", ""); /* an empty sequence prints nothing */
  outcome o = infer(&op, 0, "[0,5]");
  assert_int_equal(o.info.num_shapes, 0);
  assert_int_equal(o.info.count_varies, 0);
  assert_int_equal(o.info.count.lo, 0);
  assert_int_equal(o.info.dims_needed, 0);
  op.keepdims = 0;
  expect_text(&op, 0, "[2,5]", "[5]\n[5]");
  expect_text(&op, 0, "[?,5]", "? x [5]");
  expect_text(&op, 0, "[3]", "[]\n[]\n[]");
  /* Scalar split 3: floor(d/3) chunks of 3, then d mod 3. */
  op = sequence(&a0, &s3);
  expect_text(&op, 0, "[0..2]", "0..1 x [1..2]");
  expect_text(&op, 0, "[7..9]", "[3]\n[3]\n[1..3]");
  expect_text(&op, 0, "[6..7]", "2..3 x [1..3]");
  expect_text(&op, 0, "[?]", "? x [1..3]");
  expect_text(&op, 0, "[1..]", "1.. x [1..3]");
  /* keepdims is ignored with a split. */
  op.keepdims = 0;
  expect_text(&op, 0, "[7..9]", "[3]\n[3]\n[1..3]");
  op.keepdims = 2;
  expect_error(&op, 0, "[7..9]", CLEAVE_ERROR_INVALID_ATTRIBUTE,
               (const char *const[]){"keepdims is 2", NULL});
  /* A list: every entry >= 0 and sum == d. */
  int64_t list[] = {2, 0, 3};
  op = cleave_op_split_to_sequence(11);
  op.lengths = cleave_values_list(list, 3);
  expect_text(&op, 0, "[4..5,7]", "[2,7]\n[0,7]\n[3,7]");
  expect_error(&op, 0, "[6..,7]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"split sum to 5", "6..", NULL});
}

static void test_onnx_split_cases(void **state) {
  (void)state;
  /* Split-18 num_outputs 4: c = ceil(d/4), last = d - 3c; d = 5 is invalid (last -1). */
  cleave_op op = cleave_op_onnx_split(18);
  op.num_outputs = cleave_values_scalar(&(const int64_t){4});
  expect_text(&op, 0, "[5..6]", "[2]\n[2]\n[2]\n[0]");
  /* d = 6..10: 2,2,2,0 / 2,2,2,1 / 2,2,2,2 / 3,3,3,0 / 3,3,3,1. */
  expect_text(&op, 0, "[6..10]", "[2..3]\n[2..3]\n[2..3]\n[0..2]");
  expect_error(&op, 0, "[5]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"num_outputs = 4", "data.shape[0] = 5",
                                     "3 chunks of 2 leave a negative length", NULL});
  op.num_outputs = cleave_values_scalar(&(const int64_t){5});
  /* d = 5..7 with n = 5: 1,1,1,1,1 / c=2 needs 8 / c=2 needs 8: only d = 5 works... and d = 6, 7
   * are invalid, so the hull is d = 5's. */
  expect_text(&op, 0, "[5..7]", repeat("[1]", 5));
  expect_error(&op, 0, "[6..7]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"num_outputs = 5", "6..7", "every value", NULL});
  expect_text(&op, 0, "[0..]", repeat("[?]", 5));
  /* Split-13 equal parts. */
  op = cleave_op_onnx_split(13);
  op.num_outputs = cleave_values_scalar(&(const int64_t){2});
  expect_text(&op, 0, "[3..6]", "[2..3]\n[2..3]");
  expect_error(
      &op, 0, "[3]", CLEAVE_ERROR_INVALID_SPLIT,
      (const char *const[]){"data.shape[0] = 3 is not divisible into the 2 equal outputs", NULL});
  expect_error(&op, 0, "[5..5]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"= 5 is not divisible", NULL});
}

static void test_dynamic_rank(void **state) {
  (void)state;
  int64_t a1 = 1, a_big = (int64_t)1 << 40, a_neg = -7;
  cleave_op op = cleave_op_split(&a1, 2);
  expect_text(&op, 0, "[...]", "[...]\n[...]");
  outcome o = infer(&op, 0, "[...]");
  assert_int_equal(o.info.output_rank, CLEAVE_RANK_DYNAMIC);
  assert_int_equal(o.info.axis, -1);
  assert_int_equal(o.info.dims_needed, 0);
  expect_text(&op, CLEAVE_UNKNOWN_AXIS, "[...]", "[...]\n[...]");
  op = cleave_op_split(&a_neg, 3);
  expect_text(&op, 0, "[...]", "[...]\n[...]\n[...]");
  /* Ranks are at most INT32_MAX, so this axis fits none. */
  op = cleave_op_split(&a_big, 2);
  expect_error(&op, 0, "[...]", CLEAVE_ERROR_INVALID_AXIS,
               (const char *const[]){"axis 1099511627776 is out of range", NULL});
  op = cleave_op_split(&a1, 0);
  expect_error(&op, 0, "[...]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"num_splits is 0", NULL});
  /* SplitToSequence without split: any count. */
  cleave_op seq = sequence(&a1, NULL);
  expect_text(&seq, 0, "[...]", "? x [...]");
  int64_t list[] = {1, 2};
  seq.lengths = cleave_values_list(list, 2);
  expect_text(&seq, 0, "[...]", "[...]\n[...]");
  int64_t vl[] = {1, -1, -1};
  op = cleave_op_variadic_split(&a1, vl, 3);
  expect_error(&op, 0, "[...]", CLEAVE_ERROR_INVALID_SPLIT,
               (const char *const[]){"at most one entry may be -1", NULL});
}

/* ---- near INT64_MAX ---------------------------------------------------------------------- */

static void test_int64_limits(void **state) {
  (void)state;
  int64_t a0 = 0;
  /* 2^63 - 1 = 7 * 1317624576693539401. */
  cleave_op op = cleave_op_split(&a0, 7);
  expect_text(&op, 0, "[9223372036854775807]", repeat("[1317624576693539401]", 7));
  op = cleave_op_split(&a0, 2);
  expect_text(&op, 0, "[0..9223372036854775807]", repeat("[0..4611686018427387903]", 2));
  expect_text(&op, 0, "[9223372036854775806..]", repeat("[4611686018427387903..]", 2));
  expect_error(
      &op, 0, "[9223372036854775807]", CLEAVE_ERROR_INVALID_SPLIT,
      (const char *const[]){"9223372036854775807 is not divisible by num_splits = 2", NULL});
  /* A -1 next to INT64_MAX. */
  int64_t big[] = {-1, INT64_MAX}, over[] = {INT64_MAX, 1};
  op = cleave_op_variadic_split(&a0, big, 2);
  expect_text(&op, 0, "[?]", "[?]\n[9223372036854775807]");
  expect_text(&op, 0, "[9223372036854775807]", "[0]\n[9223372036854775807]");
  /* Known lengths whose sum overflows: the static error, whatever the dimension. */
  op = cleave_op_variadic_split(&a0, over, 2);
  expect_error(&op, 0, "[?]", CLEAVE_ERROR_OVERFLOW,
               (const char *const[]){"split_lengths overflows int64", NULL});
  /* Split-18, n = 2, from 2^63 - 2 on: c and last both start at 2^62 - 1. */
  cleave_op onnx = cleave_op_onnx_split(18);
  onnx.num_outputs = cleave_values_scalar(&(const int64_t){2});
  expect_text(&onnx, 0, "[9223372036854775806..]",
              "[4611686018427387903..]\n[4611686018427387903..]");
  /* n = 3 on [2^63-8, 2^63-1] (2^63-1 = 1 mod 3): c from 3074457345618258600 (d = 3q) to
   * 3074457345618258603 (d = 2^63-1), last = q (r = 0 or 2) or q - 1 (r = 1): from
   * 3074457345618258599 (d = ...801) to 3074457345618258602 (d = ...806). */
  onnx.num_outputs = cleave_values_scalar(&(const int64_t){3});
  expect_text(&onnx, 0, "[9223372036854775800..9223372036854775807]",
              "[3074457345618258600..3074457345618258603]\n"
              "[3074457345618258600..3074457345618258603]\n"
              "[3074457345618258599..3074457345618258602]");
  /* SplitToSequence with split INT64_MAX. */
  int64_t smax = INT64_MAX;
  cleave_op seq = sequence(&a0, &smax);
  expect_text(&seq, 0, "[9223372036854775806..9223372036854775807]",
              "[9223372036854775806..9223372036854775807]");
  expect_text(&seq, 0, "[1..]", "1.. x [1..9223372036854775807]");
  expect_text(&seq, 0, "[0..9223372036854775807]", "0..1 x [1..9223372036854775807]");
  /* Partial inference ignores the byte size (docs/operators.md section 1); static inference does
   * not. */
  op = cleave_op_split(&a0, 1);
  outcome o = infer_as(&op, 0, CLEAVE_F64, "[9223372036854775807,9223372036854775807]");
  assert_int_equal(o.status, CLEAVE_OK);
  assert_string_equal(o.text, "[9223372036854775807,9223372036854775807]");
  int64_t shape[] = {INT64_MAX, INT64_MAX};
  cleave_split_info info;
  cleave_error err;
  assert_int_equal(cleave_infer(&op, cleave_type_of(CLEAVE_F64), shape, 2, &info, NULL, 0, &err),
                   CLEAVE_ERROR_OVERFLOW);
}

/* ---- static shapes are the point case ---------------------------------------------------- */

/* Runs an op on a static shape both ways: same status, message and outputs. */
static void expect_same_as_static(const cleave_op *op, cleave_dtype dtype, const int64_t *shape,
                                  size_t rank) {
  cleave_dim dims[8], out[64];
  for (size_t i = 0; i < rank; i++) {
    dims[i] = cleave_dim_point(shape[i]);
  }
  cleave_partial_shape ps = {rank, dims};
  cleave_partial_info pinfo;
  cleave_split_info info;
  cleave_error perr, serr;
  int64_t lengths[16];
  cleave_status ps_st =
      cleave_infer_partial(op, 0, cleave_type_of(dtype), &ps, &pinfo, out, 64, &perr);
  cleave_status st =
      cleave_infer(op, cleave_type_of(dtype), shape, rank, &info, lengths, 16, &serr);
  assert_int_equal(ps_st, st);
  assert_string_equal(perr.message, serr.message);
  if (st != CLEAVE_OK) {
    return;
  }
  assert_int_equal(pinfo.count_varies, 0);
  assert_int_equal(pinfo.num_shapes, info.num_outputs);
  assert_int_equal(pinfo.output_rank, info.output_rank);
  assert_int_equal(pinfo.axis, info.axis);
  for (size_t i = 0; i < info.num_outputs; i++) {
    size_t q = 0;
    for (size_t p = 0; p < rank; p++) {
      if (p == info.axis && info.axis_removed) {
        continue;
      }
      int64_t want = p == info.axis ? lengths[i] : shape[p];
      assert_int_equal(out[i * info.output_rank + q].lo, want);
      assert_int_equal(out[i * info.output_rank + q].hi, want);
      q++;
    }
  }
}

static void test_static_is_the_point_case(void **state) {
  (void)state;
  int64_t a0 = 0, a1 = 1, a5 = 5, am3 = -3;
  int64_t s6[] = {6}, s46[] = {4, 6}, s0[] = {0, 3}, s5[] = {5};
  cleave_op op = cleave_op_split(&a0, 4);
  expect_same_as_static(&op, CLEAVE_F32, s6, 1);
  op.num_splits = 3;
  expect_same_as_static(&op, CLEAVE_F32, s6, 1);
  op = cleave_op_split(&a5, 2);
  expect_same_as_static(&op, CLEAVE_F32, s46, 2);
  op = cleave_op_split(&am3, 2);
  expect_same_as_static(&op, CLEAVE_F32, s46, 2);
  expect_same_as_static(&op, CLEAVE_F32, NULL, 0);
  int64_t l[] = {1, -1, 2}, l2[] = {-1, -1}, l3[] = {4, 4};
  op = cleave_op_variadic_split(&a1, l, 3);
  expect_same_as_static(&op, CLEAVE_U8, s46, 2);
  expect_same_as_static(&op, CLEAVE_U8, s0, 2);
  op = cleave_op_variadic_split(&a1, l2, 2);
  expect_same_as_static(&op, CLEAVE_U8, s46, 2);
  op = cleave_op_variadic_split(&a1, l3, 2);
  expect_same_as_static(&op, CLEAVE_U8, s46, 2);
  cleave_op onnx = cleave_op_onnx_split(18);
  onnx.num_outputs = cleave_values_scalar(&(const int64_t){4});
  expect_same_as_static(&onnx, CLEAVE_F32, s5, 1);
  expect_same_as_static(&onnx, CLEAVE_F32, s6, 1);
  onnx.opset = 13;
  expect_same_as_static(&onnx, CLEAVE_F32, s6, 1);
  expect_same_as_static(&onnx, CLEAVE_BF16, s6, 1);
  onnx.opset = 11;
  expect_same_as_static(&onnx, CLEAVE_BF16, s6, 1);
  int64_t s = 4;
  cleave_op seq = sequence(&a1, &s);
  expect_same_as_static(&seq, CLEAVE_F32, s46, 2);
  seq.lengths = cleave_values_none();
  seq.keepdims = 0;
  expect_same_as_static(&seq, CLEAVE_F32, s46, 2);
  seq.opset = 11;
  expect_same_as_static(&seq, CLEAVE_BF16, s46, 2);
}

/* ---- API misuse and malformed partial shapes ---------------------------------------------- */

static void test_malformed_inputs(void **state) {
  (void)state;
  int64_t a0 = 0;
  cleave_op op = cleave_op_split(&a0, 2);
  cleave_partial_info info;
  cleave_error err;
  cleave_dim dims[4] = {{2, 2}, {-1, 3}, {0, 0}, {0, 0}};
  cleave_partial_shape shape = {2, dims};
  cleave_type f32 = cleave_type_of(CLEAVE_F32);
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);
  assert_non_null(strstr(err.message, "data.shape[1] has lower bound -1"));
  dims[1] = cleave_dim_range(5, 3);
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);
  assert_non_null(strstr(err.message, "data.shape[1] is [5, 3]"));
  dims[1] = cleave_dim_range(5, -2);
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);
  dims[1] = cleave_dim_range(5, CLEAVE_DIM_UNBOUNDED);
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, NULL, 0, &err), CLEAVE_OK);
  shape.rank = (size_t)INT32_MAX + 1; /* no rank is that large */
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);
  assert_non_null(strstr(err.message, "rank 2147483648 is too large"));
  shape.rank = 2;
  shape.dims = NULL;
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  shape.dims = dims;
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, NULL, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cleave_infer_partial(&op, 0, f32, NULL, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cleave_infer_partial(NULL, 0, f32, &shape, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cleave_infer_partial(&op, 4, f32, &shape, &info, NULL, 0, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "0x4"));
  /* Types still follow the operator's rules; only their byte size is ignored. */
  cleave_op onnx = cleave_op_onnx_split(1);
  onnx.num_outputs = cleave_values_scalar(&(const int64_t){1});
  assert_int_equal(
      cleave_infer_partial(&onnx, 0, cleave_type_of(CLEAVE_I8), &shape, &info, NULL, 0, &err),
      CLEAVE_ERROR_UNSUPPORTED_TYPE);
  assert_non_null(strstr(err.message, "Split-1 does not accept i8"));
  assert_int_equal(
      cleave_infer_partial(&op, 0, (cleave_type){CLEAVE_BYTES, 0}, &shape, &info, NULL, 0, &err),
      CLEAVE_ERROR_UNSUPPORTED_TYPE);
}

static void test_capacity_protocol(void **state) {
  (void)state;
  int64_t a1 = 1;
  cleave_op op = cleave_op_split(&a1, 1000000000000);
  cleave_dim in[] = {{3, 3}, {0, CLEAVE_DIM_UNBOUNDED}};
  cleave_partial_shape shape = {2, in};
  cleave_partial_info info;
  cleave_error err;
  cleave_type f32 = cleave_type_of(CLEAVE_F32);
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, NULL, 0, &err), CLEAVE_OK);
  assert_int_equal(info.num_shapes, 1000000000000);
  assert_int_equal(info.count.lo, 1000000000000);
  assert_int_equal(info.count.hi, 1000000000000);
  assert_int_equal(info.dims_needed, 2000000000000);
  cleave_dim dims[6];
  for (int i = 0; i < 6; i++) {
    dims[i] = cleave_dim_range(-5, -5);
  }
  memset(&info, 0, sizeof info);
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, dims, 6, &err),
                   CLEAVE_ERROR_CAPACITY);
  assert_int_equal(info.dims_needed, 2000000000000);
  assert_non_null(strstr(err.message, "2000000000000"));
  for (int i = 0; i < 6; i++) {
    assert_int_equal(dims[i].lo, -5);
  }
  /* Exactly enough. */
  op.num_splits = 3;
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, dims, 6, &err), CLEAVE_OK);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(dims[2 * i].lo, 3);
    assert_int_equal(dims[2 * i].hi, 3);
    assert_int_equal(dims[2 * i + 1].lo, 0);
    assert_int_equal(dims[2 * i + 1].hi, CLEAVE_DIM_UNBOUNDED);
  }
  assert_int_equal(cleave_infer_partial(&op, 0, f32, &shape, &info, dims, 5, &err),
                   CLEAVE_ERROR_CAPACITY);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_section6_examples),     cmocka_unit_test(test_split1_consequences),
      cmocka_unit_test(test_variadic_consequences), cmocka_unit_test(test_unknown_axis),
      cmocka_unit_test(test_unknown_lengths),       cmocka_unit_test(test_sequence_cases),
      cmocka_unit_test(test_onnx_split_cases),      cmocka_unit_test(test_dynamic_rank),
      cmocka_unit_test(test_int64_limits),          cmocka_unit_test(test_static_is_the_point_case),
      cmocka_unit_test(test_malformed_inputs),      cmocka_unit_test(test_capacity_protocol),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
