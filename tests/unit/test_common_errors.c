/*
 * The common rules of docs/operators.md section 1, for every operator: rank-0 data, axis range on
 * both sides, the axis type and rank, negative dimensions, overflowing sizes (shapes and sums of
 * lengths). Every error case goes through tu_check_error: status, message (value and parameter
 * name), and nothing written. The API-misuse checks of cleave.h are in test_api_misuse.c.
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

/* One operator description of each kind that is valid on any axis length, so that only the rule
 * under test can fail. */
typedef struct op_variant {
  const char *name;
  cleave_op op;
  int onnx_version; /* 0 for the OpenVINO ops */
  int sequence;     /* 1 for SplitToSequence */
} op_variant;

static const int64_t minus_one[1] = {-1};
static const int64_t one = 1;

static size_t every_op(const int64_t *axis, op_variant *out) {
  size_t n = 0;
  out[n++] = (op_variant){"Split-1 n=1", cleave_op_split(axis, 1), 0, 0};
  out[n++] =
      (op_variant){"VariadicSplit-1 [-1]", cleave_op_variadic_split(axis, minus_one, 1), 0, 0};
  cleave_op seq = cleave_op_split_to_sequence(11);
  seq.axis = cleave_values_scalar(axis);
  out[n++] = (op_variant){"SplitToSequence-11", seq, 11, 1};
  seq.opset = 24;
  seq.lengths = cleave_values_scalar(&one);
  out[n++] = (op_variant){"SplitToSequence-24 split=1", seq, 24, 1};
  cleave_op onnx = cleave_op_onnx_split(13);
  onnx.axis = cleave_values_scalar(axis);
  onnx.num_outputs = tu_count_value(1);
  out[n++] = (op_variant){"Split-13 n=1", onnx, 13, 0};
  onnx.opset = 18;
  out[n++] = (op_variant){"Split-18 num_outputs=1", onnx, 18, 0};
  onnx.opset = 2;
  out[n++] = (op_variant){"Split-2 n=1", onnx, 2, 0};
  return n;
}

static int variant_accepts(const op_variant *v, cleave_dtype dtype) {
  if (v->onnx_version == 0) {
    return 1;
  }
  return v->sequence ? tu_sequence_accepts(v->onnx_version, dtype)
                     : tu_onnx_split_accepts(v->onnx_version, dtype);
}

/* docs/operators.md section 1: the axis range of rank 0 is empty, so rank-0 data fails for every op
 * and type. */
static void test_rank0_fails_every_op(void **state) {
  (void)state;
  const int64_t axes[] = {0, -1, 1};
  const char *texts[] = {"0", "-1", "1"};
  for (size_t a = 0; a < 3; ++a) {
    op_variant ops[8];
    size_t n = every_op(&axes[a], ops);
    for (size_t i = 0; i < n; ++i) {
      for (size_t t = 0; t < tu_num_types; ++t) {
        if (!variant_accepts(&ops[i], tu_types[t].type.dtype)) {
          continue;
        }
        const char *needles[] = {"axis", texts[a], NULL};
        tu_check_error(&ops[i].op, tu_types[t].type, NULL, 0, 1, CLEAVE_ERROR_INVALID_AXIS,
                       needles);
      }
    }
  }
  /* The ONNX ops with their default axis (0) too. */
  cleave_op seq = cleave_op_split_to_sequence(11);
  cleave_op onnx = cleave_op_onnx_split(18);
  onnx.num_outputs = tu_count_value(1);
  const char *needles[] = {"axis", "0", NULL};
  tu_check_error(&seq, cleave_type_of(CLEAVE_F32), NULL, 0, 1, CLEAVE_ERROR_INVALID_AXIS, needles);
  tu_check_error(&onnx, cleave_type_of(CLEAVE_F32), NULL, 0, 1, CLEAVE_ERROR_INVALID_AXIS, needles);
}

static void check_axis_out_of_range(int64_t axis, const char *text) {
  static const int64_t shape[3] = {2, 3, 4};
  op_variant ops[8];
  size_t n = every_op(&axis, ops);
  for (size_t i = 0; i < n; ++i) {
    const char *needles[] = {"axis", text, NULL};
    tu_check_error(&ops[i].op, cleave_type_of(CLEAVE_F32), shape, 3, 1, CLEAVE_ERROR_INVALID_AXIS,
                   needles);
  }
}

/* docs/operators.md section 1: axis must lie in [-r, r-1]; just past the top end and far past it.
 */
static void test_axis_above_range(void **state) {
  (void)state;
  check_axis_out_of_range(3, "3");
  check_axis_out_of_range(4, "4");
  check_axis_out_of_range(1000, "1000");
  check_axis_out_of_range(INT64_MAX, "9223372036854775807");
}

/* docs/operators.md section 1: just past the bottom end and far past it (INT64_MIN must not wrap).
 */
static void test_axis_below_range(void **state) {
  (void)state;
  check_axis_out_of_range(-4, "-4");
  check_axis_out_of_range(-5, "-5");
  check_axis_out_of_range(INT64_MIN, "-9223372036854775808");
}

/* The axis range on rank 1 and rank 5 too, with the in-range ends accepted. */
static void test_axis_range_ends(void **state) {
  (void)state;
  const int64_t shape5[5] = {1, 2, 1, 2, 2};
  const int64_t bad[] = {5, -6};
  for (size_t b = 0; b < 2; ++b) {
    cleave_op op = cleave_op_split(&bad[b], 1);
    char text[24];
    snprintf(text, sizeof text, "%lld", (long long)bad[b]);
    const char *needles[] = {"axis", text, NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_I8), shape5, 5, 1, CLEAVE_ERROR_INVALID_AXIS,
                   needles);
  }
  const int64_t shape1[1] = {4};
  const int64_t bad1[] = {1, -2};
  for (size_t b = 0; b < 2; ++b) {
    cleave_op op = cleave_op_variadic_split(&bad1[b], minus_one, 1);
    char text[24];
    snprintf(text, sizeof text, "%lld", (long long)bad1[b]);
    const char *needles[] = {"axis", text, NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_I8), shape1, 1, 1, CLEAVE_ERROR_INVALID_AXIS,
                   needles);
  }
  /* -r and r-1 are the valid ends. */
  const int64_t good[] = {-5, 4};
  for (size_t g = 0; g < 2; ++g) {
    tu_input in;
    tu_input_make(&in, cleave_type_of(CLEAVE_I8), shape5, 5, 1);
    cleave_op op = cleave_op_split(&good[g], 2);
    size_t ax = good[g] < 0 ? 0 : 4;
    int64_t lens[2] = {shape5[ax] / 2, shape5[ax] / 2};
    tu_context("Split-1 on [1,2,1,2,2], axis %lld", (long long)good[g]);
    if (ax == 0) {
      op.num_splits = 1;
      lens[0] = 1;
    }
    tu_expect ex = {ax, ax == 0 ? 1u : 2u, lens, 0};
    tu_check_success(&op, &in, &ex);
    tu_input_free(&in);
  }
}

/* The axis must have an integer type (cleave.h: INVALID_AXIS covers the axis type). */
static void test_axis_non_integer_type(void **state) {
  (void)state;
  static const int64_t shape[2] = {4, 6};
  const cleave_dtype bad[] = {CLEAVE_F32, CLEAVE_F64, CLEAVE_F16, CLEAVE_BOOLEAN, CLEAVE_BF16};
  const char *names[] = {"f32", "f64", "f16", "boolean", "bf16"};
  const float one_f = 1.0f;
  const double one_d = 1.0;
  const uint16_t one_h = 0x3C00;
  const unsigned char one_b = 1;
  const uint16_t one_bf = 0x3F80;
  const void *data[] = {&one_f, &one_d, &one_h, &one_b, &one_bf};
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
    op_variant ops[8];
    int64_t zero = 0;
    size_t n = every_op(&zero, ops);
    for (size_t i = 0; i < n; ++i) {
      ops[i].op.axis.dtype = bad[b];
      ops[i].op.axis.data = data[b];
      const char *needles[] = {"axis", names[b], NULL};
      tu_check_error(&ops[i].op, cleave_type_of(CLEAVE_F32), shape, 2, 1, CLEAVE_ERROR_INVALID_AXIS,
                     needles);
    }
  }
}

/* The OpenVINO ops have no default axis: an absent axis input is an error. */
static void test_axis_absent_openvino(void **state) {
  (void)state;
  static const int64_t shape[2] = {4, 6};
  cleave_op split = cleave_op_split(NULL, 2);
  split.axis = cleave_values_none();
  cleave_op vs = cleave_op_variadic_split(NULL, minus_one, 1);
  vs.axis = cleave_values_none();
  const char *needles[] = {"axis", NULL};
  tu_check_error(&split, cleave_type_of(CLEAVE_F32), shape, 2, 2, CLEAVE_ERROR_INVALID_AXIS,
                 needles);
  tu_check_error(&vs, cleave_type_of(CLEAVE_F32), shape, 2, 1, CLEAVE_ERROR_INVALID_AXIS, needles);
}

/* An axis of rank >= 2, or a 1-D axis with several values, is not an axis for any op. */
static void test_axis_bad_rank(void **state) {
  (void)state;
  static const int64_t shape[2] = {4, 6};
  static const int64_t two_axes[2] = {0, 1};
  op_variant ops[8];
  size_t n = every_op(&two_axes[0], ops);
  for (size_t i = 0; i < n; ++i) {
    cleave_op op = ops[i].op;
    op.axis.rank = 1;
    op.axis.count = 2;
    op.axis.data = two_axes;
    const char *needles[] = {"axis", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 2, 1, CLEAVE_ERROR_INVALID_AXIS,
                   needles);
    op.axis.rank = 2;
    op.axis.count = 1;
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 2, 1, CLEAVE_ERROR_INVALID_AXIS,
                   needles);
  }
}

/* docs/operators.md section 1: dims are >= 0; a negative one is CLEAVE_ERROR_INVALID_SHAPE, on the
 * axis or not. */
static void test_negative_dim_every_op(void **state) {
  (void)state;
  const int64_t shapes[3][3] = {{2, -1, 3}, {-3, 4, 2}, {2, 4, INT64_MIN}};
  const char *values[3] = {"-1", "-3", "-9223372036854775808"};
  int64_t axis = 1;
  for (size_t s = 0; s < 3; ++s) {
    op_variant ops[8];
    size_t n = every_op(&axis, ops);
    for (size_t i = 0; i < n; ++i) {
      const char *needles[] = {"shape", values[s], NULL};
      tu_check_error(&ops[i].op, cleave_type_of(CLEAVE_F32), shapes[s], 3, 1,
                     CLEAVE_ERROR_INVALID_SHAPE, needles);
    }
  }
  /* On the axis itself. */
  const int64_t shape1[1] = {-6};
  int64_t zero = 0;
  op_variant ops[8];
  size_t n = every_op(&zero, ops);
  for (size_t i = 0; i < n; ++i) {
    const char *needles[] = {"shape", "-6", NULL};
    tu_check_error(&ops[i].op, cleave_type_of(CLEAVE_I32), shape1, 1, 1, CLEAVE_ERROR_INVALID_SHAPE,
                   needles);
  }
}

/* Ops valid on an axis of length 4, for the overflow tests (the shapes are never allocated). */
static size_t ops_for_four(const int64_t *axis, op_variant *out, size_t *counts) {
  static const int64_t lens[2] = {1, 3};
  size_t n = 0;
  counts[n] = 2;
  out[n++] = (op_variant){"Split-1 n=2", cleave_op_split(axis, 2), 0, 0};
  counts[n] = 2;
  out[n++] = (op_variant){"VariadicSplit-1 [1,3]", cleave_op_variadic_split(axis, lens, 2), 0, 0};
  cleave_op seq = cleave_op_split_to_sequence(11);
  seq.axis = cleave_values_scalar(axis);
  counts[n] = 4;
  out[n++] = (op_variant){"SplitToSequence-11", seq, 11, 1};
  cleave_op onnx = cleave_op_onnx_split(13);
  onnx.axis = cleave_values_scalar(axis);
  onnx.num_outputs = tu_count_value(2);
  counts[n] = 2;
  out[n++] = (op_variant){"Split-13 n=2", onnx, 13, 0};
  onnx.opset = 18;
  counts[n] = 2;
  out[n++] = (op_variant){"Split-18 num_outputs=2", onnx, 18, 0};
  return n;
}

/* docs/operators.md section 1: a byte size above 2^63-1 is an error, never a wrap: [2^62, 4] of i16
 * is 2^65 bytes. */
static void test_overflow_byte_size(void **state) {
  (void)state;
  const int64_t big = INT64_C(1) << 62;
  const int64_t shape[2] = {big, 4};
  int64_t axis = 1;
  op_variant ops[8];
  size_t counts[8];
  size_t n = ops_for_four(&axis, ops, counts);
  for (size_t i = 0; i < n; ++i) {
    const char *needles[] = {"shape", "4611686018427387904", "i16", NULL};
    tu_check_error(&ops[i].op, cleave_type_of(CLEAVE_I16), shape, 2, counts[i],
                   CLEAVE_ERROR_OVERFLOW, needles);
  }
  /* Byte size 2^63 exactly: one past the limit. */
  const int64_t shape2[2] = {INT64_C(1) << 61, 4};
  for (size_t i = 0; i < n; ++i) {
    const char *needles[] = {"shape", "2305843009213693952", NULL};
    tu_check_error(&ops[i].op, cleave_type_of(CLEAVE_F64), shape2, 2, counts[i],
                   CLEAVE_ERROR_OVERFLOW, needles);
  }
}

/* The element count itself overflowing (2^32 * 2^32 wraps to 0 in 64 bits). */
static void test_overflow_element_count(void **state) {
  (void)state;
  const int64_t shape[3] = {INT64_C(1) << 32, 4, INT64_C(1) << 32};
  int64_t axis = 1;
  op_variant ops[8];
  size_t counts[8];
  size_t n = ops_for_four(&axis, ops, counts);
  for (size_t i = 0; i < n; ++i) {
    const char *needles[] = {"shape", "4294967296", NULL};
    tu_check_error(&ops[i].op, cleave_type_of(CLEAVE_I8), shape, 3, counts[i],
                   CLEAVE_ERROR_OVERFLOW, needles);
    tu_check_error(&ops[i].op, cleave_type_of(CLEAVE_STRING), shape, 3, counts[i],
                   CLEAVE_ERROR_OVERFLOW, needles);
  }
}

/* Wide fixed-width elements: the width takes part in the byte size. */
static void test_overflow_wide_elements(void **state) {
  (void)state;
  const int64_t shape[2] = {INT64_C(1) << 31, 4};
  int64_t axis = 1;
  op_variant ops[8];
  size_t counts[8];
  size_t n = ops_for_four(&axis, ops, counts);
  cleave_type wide_bytes = {CLEAVE_BYTES, INT64_C(1) << 31};
  cleave_type wide_unicode = {CLEAVE_UNICODE, INT64_C(1) << 30};
  for (size_t i = 0; i < n; ++i) {
    const char *needles[] = {"2147483648", NULL};
    tu_check_error(&ops[i].op, wide_bytes, shape, 2, counts[i], CLEAVE_ERROR_OVERFLOW, needles);
    tu_check_error(&ops[i].op, wide_unicode, shape, 2, counts[i], CLEAVE_ERROR_OVERFLOW, needles);
  }
  /* A unicode width whose element size alone overflows (4 * 2^62). */
  const int64_t small[1] = {4};
  int64_t zero = 0;
  n = ops_for_four(&zero, ops, counts);
  cleave_type huge = {CLEAVE_UNICODE, INT64_C(1) << 62};
  for (size_t i = 0; i < n; ++i) {
    const char *needles[] = {NULL};
    tu_check_error(&ops[i].op, huge, small, 1, counts[i], CLEAVE_ERROR_OVERFLOW, needles);
  }
}

/* Sizes at the limit are fine for inference and plans (which allocate nothing per element). */
static void test_byte_size_at_limit_ok(void **state) {
  (void)state;
  const int64_t shapes[3][2] = {{INT64_MAX, 1}, {(INT64_C(1) << 62) - 1, 2}, {1, INT64_MAX}};
  const int64_t axis = 0;
  for (size_t s = 0; s < 3; ++s) {
    cleave_op op = cleave_op_split(&axis, 1);
    cleave_split_info info;
    int64_t len = -1;
    cleave_error err;
    tu_context("shape %lld x %lld of i8", (long long)shapes[s][0], (long long)shapes[s][1]);
    cleave_status st =
        cleave_infer(&op, cleave_type_of(CLEAVE_I8), shapes[s], 2, &info, &len, 1, &err);
    if (st != CLEAVE_OK) {
      print_error("status %d, message \"%s\"\n", (int)st, err.message);
    }
    TU_CHECK(st == CLEAVE_OK);
    TU_CHECK(info.num_outputs == 1);
    TU_CHECK(len == shapes[s][0]);
    cleave_plan *plan = NULL;
    TU_CHECK(cleave_plan_create(&op, cleave_type_of(CLEAVE_I8), shapes[s], 2, &plan, &err) ==
             CLEAVE_OK);
    TU_CHECK(cleave_plan_output_bytes(plan, 0) == shapes[s][0] * shapes[s][1]);
    cleave_plan_destroy(plan);
  }
}

/* docs/operators.md section 1: zero-size dims are legal anywhere, even beside dims whose product
 * would overflow: the byte size is 0. */
static void test_zero_dim_beside_huge_dims(void **state) {
  (void)state;
  const int64_t shape[3] = {INT64_MAX, 0, INT64_MAX};
  const int64_t axis = 2;
  cleave_op op = cleave_op_split(&axis, 1);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F32), (const int64_t[]){0}, 1, 0);
  cleave_tensor t = in.tensor;
  t.rank = 3;
  t.shape = shape;
  cleave_split_info info;
  cleave_error err;
  tu_context("Split-1 on [INT64_MAX,0,INT64_MAX] axis 2");
  cleave_status st = cleave_infer(&op, t.type, shape, 3, &info, NULL, 0, &err);
  if (st != CLEAVE_OK) {
    print_error("status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  TU_CHECK(info.num_outputs == 1);
  unsigned char sentinel[8];
  memset(sentinel, TU_SENTINEL, sizeof sentinel);
  void *outs[1] = {sentinel};
  TU_CHECK(cleave_run(&op, &t, outs, 1, &err) == CLEAVE_OK);
  for (size_t i = 0; i < sizeof sentinel; ++i) {
    TU_CHECK(sentinel[i] == TU_SENTINEL);
  }
  tu_input_free(&in);
}

/* docs/operators.md section 1: sums of lengths are checked for overflow. */
static void test_lengths_sum_overflow(void **state) {
  (void)state;
  const int64_t shape[1] = {6};
  const int64_t axis = 0;
  const int64_t v1[2] = {INT64_MAX, 1};
  const int64_t v2[3] = {INT64_MAX, 1, -1};
  const int64_t v3[3] = {1, INT64_MAX, INT64_MAX};
  cleave_op a = cleave_op_variadic_split(&axis, v1, 2);
  cleave_op b = cleave_op_variadic_split(&axis, v2, 3);
  cleave_op c = cleave_op_variadic_split(&axis, v3, 3);
  const char *needles[] = {"split_lengths", NULL};
  tu_check_error(&a, cleave_type_of(CLEAVE_F32), shape, 1, 2, CLEAVE_ERROR_OVERFLOW, needles);
  tu_check_error(&b, cleave_type_of(CLEAVE_F32), shape, 1, 3, CLEAVE_ERROR_OVERFLOW, needles);
  tu_check_error(&c, cleave_type_of(CLEAVE_F32), shape, 1, 3, CLEAVE_ERROR_OVERFLOW, needles);

  const char *split_needles[] = {"split", NULL};
  const int64_t opsets[] = {2, 11, 13, 18};
  for (size_t o = 0; o < 4; ++o) {
    cleave_op onnx = cleave_op_onnx_split(opsets[o]);
    onnx.lengths = cleave_values_list(v1, 2);
    tu_check_error(&onnx, cleave_type_of(CLEAVE_F32), shape, 1, 2, CLEAVE_ERROR_OVERFLOW,
                   split_needles);
  }
  cleave_op seq = cleave_op_split_to_sequence(11);
  seq.lengths = cleave_values_list(v3, 3);
  tu_check_error(&seq, cleave_type_of(CLEAVE_F32), shape, 1, 3, CLEAVE_ERROR_OVERFLOW,
                 split_needles);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rank0_fails_every_op),
      cmocka_unit_test(test_axis_above_range),
      cmocka_unit_test(test_axis_below_range),
      cmocka_unit_test(test_axis_range_ends),
      cmocka_unit_test(test_axis_non_integer_type),
      cmocka_unit_test(test_axis_absent_openvino),
      cmocka_unit_test(test_axis_bad_rank),
      cmocka_unit_test(test_negative_dim_every_op),
      cmocka_unit_test(test_overflow_byte_size),
      cmocka_unit_test(test_overflow_element_count),
      cmocka_unit_test(test_overflow_wide_elements),
      cmocka_unit_test(test_byte_size_at_limit_ok),
      cmocka_unit_test(test_zero_dim_beside_huge_dims),
      cmocka_unit_test(test_lengths_sum_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
