/*
 * The examples of the upstream OpenVINO specs (opset1 Split and VariadicSplit; docs/operators.md
 * sections 2 and 3 show them), with values: data [6,12,10,24] of f32 holding its own flat index,
 * so that every output element can be checked against the index it must come from.
 */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

enum { D0 = 6, D1 = 12, D2 = 10, D3 = 24, TOTAL = D0 * D1 * D2 * D3 };

static const int64_t shape[4] = {D0, D1, D2, D3};

static float *make_data(void) {
  float *data = malloc(sizeof(float) * TOTAL);
  assert_non_null(data);
  for (int i = 0; i < TOTAL; ++i) {
    data[i] = (float)i;
  }
  return data;
}

/* Checks output `out` of shape [n0, D1, D2, D3] taken at `start` on axis 0. */
static void check_axis0_chunk(const float *out, int n0, int start) {
  for (int a = 0; a < n0; ++a) {
    for (int b = 0; b < D1; ++b) {
      for (int c = 0; c < D2; ++c) {
        for (int d = 0; d < D3; ++d) {
          int want = (((a + start) * D1 + b) * D2 + c) * D3 + d;
          int at = ((a * D1 + b) * D2 + c) * D3 + d;
          if (out[at] != (float)want) {
            print_error("at [%d,%d,%d,%d]: %g, expected %d\n", a, b, c, d, (double)out[at], want);
          }
          assert_true(out[at] == (float)want);
        }
      }
    }
  }
}

/* Split-1 example: [6,12,10,24], axis 1, num_splits 3 -> three [6,4,10,24]. */
static void test_split_example(void **state) {
  (void)state;
  float *data = make_data();
  cleave_tensor t = {data, cleave_type_of(CLEAVE_F32), 4, shape};
  enum { PART = D0 * 4 * D2 * D3 };
  float *outs[3];
  for (int k = 0; k < 3; ++k) {
    outs[k] = calloc(PART, sizeof(float));
    assert_non_null(outs[k]);
  }
  cleave_error err;
  assert_int_equal(cleave_split(&t, 1, 3, (void *const *)outs, 3, &err), CLEAVE_OK);

  const int64_t axis = 1;
  cleave_op op = cleave_op_split(&axis, 3);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, t.type, shape, 4, &plan, &err), CLEAVE_OK);
  for (size_t k = 0; k < 3; ++k) {
    int64_t dims[4];
    assert_int_equal(cleave_plan_output_shape(plan, k, dims, &err), CLEAVE_OK);
    assert_int_equal(dims[0], 6);
    assert_int_equal(dims[1], 4);
    assert_int_equal(dims[2], 10);
    assert_int_equal(dims[3], 24);
  }
  cleave_plan_destroy(plan);

  for (int k = 0; k < 3; ++k) {
    for (int a = 0; a < D0; ++a) {
      for (int b = 0; b < 4; ++b) {
        for (int c = 0; c < D2; ++c) {
          for (int d = 0; d < D3; ++d) {
            int want = ((a * D1 + (b + 4 * k)) * D2 + c) * D3 + d;
            int at = ((a * 4 + b) * D2 + c) * D3 + d;
            assert_true(outs[k][at] == (float)want);
          }
        }
      }
    }
    free(outs[k]);
  }
  free(data);
}

/* VariadicSplit-1 example 1: axis 0, split_lengths [1,2,3] -> [1,..], [2,..], [3,..]. */
static void test_variadic_example_1(void **state) {
  (void)state;
  float *data = make_data();
  cleave_tensor t = {data, cleave_type_of(CLEAVE_F32), 4, shape};
  const int64_t lens[3] = {1, 2, 3};
  enum { ROW = D1 * D2 * D3 };
  float *outs[3];
  for (int k = 0; k < 3; ++k) {
    outs[k] = calloc((size_t)(lens[k] * ROW), sizeof(float));
    assert_non_null(outs[k]);
  }
  cleave_error err;
  assert_int_equal(
      cleave_variadic_split(&t, 0, cleave_values_list(lens, 3), (void *const *)outs, 3, &err),
      CLEAVE_OK);

  const int64_t axis = 0;
  cleave_op op = cleave_op_variadic_split(&axis, lens, 3);
  cleave_split_info info;
  int64_t got[3];
  assert_int_equal(cleave_infer(&op, t.type, shape, 4, &info, got, 3, &err), CLEAVE_OK);
  assert_int_equal(got[0], 1);
  assert_int_equal(got[1], 2);
  assert_int_equal(got[2], 3);

  check_axis0_chunk(outs[0], 1, 0);
  check_axis0_chunk(outs[1], 2, 1);
  check_axis0_chunk(outs[2], 3, 3);
  for (int k = 0; k < 3; ++k) {
    free(outs[k]);
  }
  free(data);
}

/* VariadicSplit-1 example 2: axis 0, split_lengths [-1,2] -> [4,..] (4 = 6 - 2), [2,..]. */
static void test_variadic_example_2(void **state) {
  (void)state;
  float *data = make_data();
  cleave_tensor t = {data, cleave_type_of(CLEAVE_F32), 4, shape};
  const int64_t lens[2] = {-1, 2};
  enum { ROW = D1 * D2 * D3 };
  float *outs[2];
  outs[0] = calloc(4 * ROW, sizeof(float));
  outs[1] = calloc(2 * ROW, sizeof(float));
  assert_non_null(outs[0]);
  assert_non_null(outs[1]);
  cleave_error err;
  assert_int_equal(
      cleave_variadic_split(&t, 0, cleave_values_list(lens, 2), (void *const *)outs, 2, &err),
      CLEAVE_OK);

  const int64_t axis = 0;
  cleave_op op = cleave_op_variadic_split(&axis, lens, 2);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, t.type, shape, 4, &plan, &err), CLEAVE_OK);
  int64_t dims[4];
  assert_int_equal(cleave_plan_output_shape(plan, 0, dims, &err), CLEAVE_OK);
  assert_int_equal(dims[0], 4);
  assert_int_equal(dims[1], 12);
  assert_int_equal(cleave_plan_output_shape(plan, 1, dims, &err), CLEAVE_OK);
  assert_int_equal(dims[0], 2);
  assert_int_equal(dims[3], 24);
  cleave_plan_destroy(plan);

  check_axis0_chunk(outs[0], 4, 0);
  check_axis0_chunk(outs[1], 2, 4);
  free(outs[0]);
  free(outs[1]);
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_example),
      cmocka_unit_test(test_variadic_example_1),
      cmocka_unit_test(test_variadic_example_2),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
