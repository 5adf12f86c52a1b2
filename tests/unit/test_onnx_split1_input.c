/*
 * ONNX Split-1's optional `split` input (docs/operators.md section 5, change of 2026-11-24): its
 * schema types it T, the data's own type (float16/float/double), and its values must be whole
 * numbers. The `split` attribute stays int64; an integer-typed input, or a float one of another
 * type than the data, is a type error in v1; later versions take int64 only.
 */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const int64_t shape6[2] = {6, 2};

static cleave_op split1_with(cleave_dtype dtype, const void *data, size_t count) {
  cleave_op op = cleave_op_onnx_split(1);
  op.lengths.dtype = dtype;
  op.lengths.rank = 1;
  op.lengths.count = count;
  op.lengths.data = data;
  return op;
}

/* IEEE half bit patterns, written by hand: 2.0 = 0x4000, 4.0 = 0x4400, 0.0 = 0x0000,
 * 6.0 = 0x4600, 1.5 = 0x3E00, inf = 0x7C00, NaN = 0x7E00, -2.0 = 0xC000. */
static void test_float_split_input_of_type_t(void **state) {
  (void)state;
  const int64_t lens[2] = {2, 4};
  const uint16_t h[2] = {0x4000, 0x4400};
  const float f[2] = {2.0f, 4.0f};
  const double d[2] = {2.0, 4.0};
  struct {
    cleave_dtype dtype;
    const void *data;
  } cases[3] = {{CLEAVE_F16, h}, {CLEAVE_F32, f}, {CLEAVE_F64, d}};
  for (int k = 0; k < 3; k++) {
    cleave_op op = split1_with(cases[k].dtype, cases[k].data, 2);
    tu_input in;
    tu_input_make(&in, cleave_type_of(cases[k].dtype), shape6, 2, 3);
    tu_context("Split-1 with a %s split input", cleave_dtype_name(cases[k].dtype));
    tu_expect ex = {0, 2, lens, 0};
    tu_check_success(&op, &in, &ex);
    tu_input_free(&in);
  }
  /* Zeros and a single whole entry. */
  const double zero_six[3] = {0.0, 6.0, -0.0};
  const int64_t lens3[3] = {0, 6, 0};
  cleave_op op = split1_with(CLEAVE_F64, zero_six, 3);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F64), shape6, 2, 5);
  tu_expect ex = {0, 3, lens3, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);
}

static void test_float_split_not_whole(void **state) {
  (void)state;
  const float fractional[2] = {1.5f, 4.5f};
  cleave_op op = split1_with(CLEAVE_F32, fractional, 2);
  const char *n1[] = {"split[0]", "1.5", "whole number", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, n1);

  const double specials[3][2] = {{NAN, 6.0}, {INFINITY, 0.0}, {6.0, 1e30}};
  const char *texts[3][2] = {{"split[0]", "nan"}, {"split[0]", "inf"}, {"split[1]", "1e+30"}};
  for (int k = 0; k < 3; k++) {
    op = split1_with(CLEAVE_F64, specials[k], 2);
    const char *n[] = {texts[k][0], texts[k][1], "whole number", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F64), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, n);
  }
  const uint16_t halves[3][2] = {{0x3E00, 0x4400}, {0x7C00, 0x0000}, {0x7E00, 0x4600}};
  for (int k = 0; k < 3; k++) {
    op = split1_with(CLEAVE_F16, halves[k], 2);
    const char *n[] = {"split[0]", "whole number", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F16), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, n);
  }
  /* Whole but negative, or a wrong sum: the usual length rules, with the value as an integer. */
  const uint16_t negative[2] = {0xC000, 0x4600};
  op = split1_with(CLEAVE_F16, negative, 2);
  const char *nneg[] = {"split[0]", "-2", ">= 0", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F16), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, nneg);
  const float wrong_sum[2] = {2.0f, 2.0f};
  op = split1_with(CLEAVE_F32, wrong_sum, 2);
  const char *nsum[] = {"sum to", "4", "6", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, nsum);
}

/* A float split of another type than the data, an integer type other than the int64
 * attribute, and a float split at a later version are type errors of the split. */
static void test_split_types(void **state) {
  (void)state;
  const double d[2] = {2.0, 4.0};
  const int32_t i32[2] = {2, 4};
  const float f[2] = {2.0f, 4.0f};
  cleave_op op = split1_with(CLEAVE_F64, d, 2);
  const char *nf64[] = {"data's type T", "f32", "got f64", "ONNX Split-1", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, nf64);
  op = split1_with(CLEAVE_I32, i32, 2);
  const char *ni32[] = {"data's type T", "got i32", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT, ni32);
  for (int64_t opset = 2; opset <= 18; opset += 16) {
    op = split1_with(CLEAVE_F32, f, 2);
    op.opset = opset;
    const char *nlater[] = {"int64", "got f32", NULL};
    tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape6, 2, 2, CLEAVE_ERROR_INVALID_SPLIT,
                   nlater);
  }
  /* The int64 attribute is still taken at v1. */
  const int64_t lens[2] = {2, 4};
  op = cleave_op_onnx_split(1);
  op.lengths = cleave_values_list(lens, 2);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F16), shape6, 2, 9);
  tu_expect ex = {0, 2, lens, 0};
  tu_check_success(&op, &in, &ex);
  tu_input_free(&in);
}

/* Partial inference reads the float values too, and takes unknown ones. */
static void test_partial_float_split(void **state) {
  (void)state;
  const float f[2] = {2.0f, 4.0f};
  cleave_op op = split1_with(CLEAVE_F32, f, 2);
  cleave_dim dims[2] = {cleave_dim_range(6, 6), cleave_dim_any()};
  cleave_partial_shape shape = {2, dims};
  cleave_partial_info info;
  cleave_dim out[4];
  cleave_error err;
  assert_int_equal(cleave_infer_partial(&op, CLEAVE_UNKNOWN_NONE, cleave_type_of(CLEAVE_F32),
                                        &shape, &info, out, 4, &err),
                   CLEAVE_OK);
  assert_int_equal(out[0].lo, 2);
  assert_int_equal(out[2].lo, 4);
  op.lengths.data = NULL;
  assert_int_equal(cleave_infer_partial(&op, CLEAVE_UNKNOWN_LENGTHS, cleave_type_of(CLEAVE_F32),
                                        &shape, &info, out, 4, &err),
                   CLEAVE_OK);
  assert_int_equal(out[0].lo, 0);
  assert_int_equal(out[0].hi, 6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float_split_input_of_type_t),
      cmocka_unit_test(test_float_split_not_whole),
      cmocka_unit_test(test_split_types),
      cmocka_unit_test(test_partial_float_split),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
