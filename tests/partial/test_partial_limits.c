/*
 * Hand-written cases of partial-shape inference at its edges: values near INT64_MAX, static
 * shapes as the point case (the same status, message and outputs as cleave_infer), malformed
 * partial shapes and the capacity protocol. Every expected text was worked out by hand.
 */
#include "partial_expect.h"

#include <string.h>

/* ---- near INT64_MAX ---------------------------------------------------------------------- */

static void test_int64_limits(void **state) {
  (void)state;
  int64_t a0 = 0;
  /* 2^63 - 1 = 7 * 1317624576693539401. */
  cleave_op op = cleave_op_split(&a0, 7);
  pt_expect_text(&op, 0, "[9223372036854775807]", pt_repeat("[1317624576693539401]", 7));
  op = cleave_op_split(&a0, 2);
  pt_expect_text(&op, 0, "[0..9223372036854775807]", pt_repeat("[0..4611686018427387903]", 2));
  pt_expect_text(&op, 0, "[9223372036854775806..]", pt_repeat("[4611686018427387903..]", 2));
  pt_expect_error(
      &op, 0, "[9223372036854775807]", CLEAVE_ERROR_INVALID_SPLIT,
      (const char *const[]){"9223372036854775807 is not divisible by num_splits = 2", NULL});
  /* A -1 next to INT64_MAX. */
  int64_t big[] = {-1, INT64_MAX}, over[] = {INT64_MAX, 1};
  op = cleave_op_variadic_split(&a0, big, 2);
  pt_expect_text(&op, 0, "[?]", "[?]\n[9223372036854775807]");
  pt_expect_text(&op, 0, "[9223372036854775807]", "[0]\n[9223372036854775807]");
  /* Known lengths whose sum overflows: the static error, whatever the dimension. */
  op = cleave_op_variadic_split(&a0, over, 2);
  pt_expect_error(&op, 0, "[?]", CLEAVE_ERROR_OVERFLOW,
                  (const char *const[]){"split_lengths overflows int64", NULL});
  /* Split-18, n = 2, from 2^63 - 2 on: c and last both start at 2^62 - 1. */
  cleave_op onnx = cleave_op_onnx_split(18);
  onnx.num_outputs = cleave_values_scalar(&(const int64_t){2});
  pt_expect_text(&onnx, 0, "[9223372036854775806..]",
                 "[4611686018427387903..]\n[4611686018427387903..]");
  /* n = 3 on [2^63-8, 2^63-1] (2^63-1 = 1 mod 3): c from 3074457345618258600 (d = 3q) to
   * 3074457345618258603 (d = 2^63-1), last = q (r = 0 or 2) or q - 1 (r = 1): from
   * 3074457345618258599 (d = ...801) to 3074457345618258602 (d = ...806). */
  onnx.num_outputs = cleave_values_scalar(&(const int64_t){3});
  pt_expect_text(&onnx, 0, "[9223372036854775800..9223372036854775807]",
                 "[3074457345618258600..3074457345618258603]\n"
                 "[3074457345618258600..3074457345618258603]\n"
                 "[3074457345618258599..3074457345618258602]");
  /* SplitToSequence with split INT64_MAX. */
  int64_t smax = INT64_MAX;
  cleave_op seq = pt_sequence(&a0, &smax);
  pt_expect_text(&seq, 0, "[9223372036854775806..9223372036854775807]",
                 "[9223372036854775806..9223372036854775807]");
  pt_expect_text(&seq, 0, "[1..]", "1.. x [1..9223372036854775807]");
  pt_expect_text(&seq, 0, "[0..9223372036854775807]", "0..1 x [1..9223372036854775807]");
  /* Partial inference ignores the byte size (docs/operators.md section 1); static inference does
   * not. */
  op = cleave_op_split(&a0, 1);
  pt_outcome o = pt_infer_as(&op, 0, CLEAVE_F64, "[9223372036854775807,9223372036854775807]");
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
  cleave_op seq = pt_sequence(&a1, &s);
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
      cmocka_unit_test(test_int64_limits),
      cmocka_unit_test(test_static_is_the_point_case),
      cmocka_unit_test(test_malformed_inputs),
      cmocka_unit_test(test_capacity_protocol),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
