/*
 * cleave_infer's capacity protocol and the plan life cycle (cleave.h "Shape inference" and
 * "Plans"): counting with NULL lengths, CAPACITY when the array is too small, plans that copy the
 * op's values, accessors, many runs with different data pointers, and runs from two threads.
 */
#include "test_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NULL lengths: the count, and OK. An exact capacity: OK. One short: CAPACITY with info filled
 * and the array untouched; the message names both numbers. */
static void test_capacity_protocol(void **state) {
  (void)state;
  const int64_t shape[2] = {7, 3};
  const int64_t axis = 0;
  const int64_t three = 3;
  cleave_op op = cleave_op_split_to_sequence(11);
  op.axis = cleave_values_scalar(&axis);
  op.lengths = cleave_values_scalar(&three); /* 7 -> 3, 3, 1 */
  cleave_split_info info;
  cleave_error err;
  memset(&info, 0, sizeof info);
  assert_int_equal(cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape, 2, &info, NULL, 0, &err),
                   CLEAVE_OK);
  assert_int_equal(info.num_outputs, 3);
  assert_int_equal(info.axis_dim, 7);
  assert_int_equal(info.element_size, 4);

  /* NULL lengths with a non-zero capacity is still a count query. */
  assert_int_equal(cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape, 2, &info, NULL, 5, &err),
                   CLEAVE_OK);

  int64_t lens[3] = {-9, -9, -9};
  assert_int_equal(cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape, 2, &info, lens, 3, &err),
                   CLEAVE_OK);
  assert_int_equal(lens[0], 3);
  assert_int_equal(lens[1], 3);
  assert_int_equal(lens[2], 1);

  for (size_t cap = 0; cap < 3; ++cap) {
    int64_t small[3] = {-9, -9, -9};
    memset(&info, 0, sizeof info);
    err.status = CLEAVE_OK;
    cleave_status st =
        cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape, 2, &info, small, cap, &err);
    tu_context("capacity %zu", cap);
    TU_CHECK(st == CLEAVE_ERROR_CAPACITY);
    TU_CHECK(err.status == CLEAVE_ERROR_CAPACITY);
    TU_CHECK(info.num_outputs == 3);
    TU_CHECK(info.axis_dim == 7);
    TU_CHECK(small[0] == -9 && small[1] == -9 && small[2] == -9);
    char cap_text[8];
    snprintf(cap_text, sizeof cap_text, "%zu", cap);
    TU_CHECK(tu_message_has(err.message, cap_text));
    TU_CHECK(tu_message_has(err.message, "3"));
    TU_CHECK(cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape, 2, &info, small, cap, NULL) ==
             CLEAVE_ERROR_CAPACITY);
  }
}

/* Zero outputs need no capacity at all. */
static void test_capacity_zero_outputs(void **state) {
  (void)state;
  const int64_t shape[1] = {0};
  cleave_op op = cleave_op_split_to_sequence(11);
  cleave_split_info info;
  int64_t lens[1] = {-9};
  assert_int_equal(cleave_infer(&op, cleave_type_of(CLEAVE_U8), shape, 1, &info, lens, 0, NULL),
                   CLEAVE_OK);
  assert_int_equal(info.num_outputs, 0);
  assert_int_equal(lens[0], -9);
}

/* A huge but valid output count (d = 0, n = 2^40) is countable without allocating. */
static void test_capacity_huge_count(void **state) {
  (void)state;
  const int64_t shape[2] = {3, 0};
  const int64_t axis = 1;
  const int64_t n = INT64_C(1) << 40;
  cleave_op op = cleave_op_split(&axis, n);
  cleave_split_info info;
  cleave_error err;
  assert_int_equal(cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape, 2, &info, NULL, 0, &err),
                   CLEAVE_OK);
  assert_true(info.num_outputs == n);
  int64_t lens[4] = {-9, -9, -9, -9};
  assert_int_equal(cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape, 2, &info, lens, 4, &err),
                   CLEAVE_ERROR_CAPACITY);
  assert_true(lens[0] == -9);
  assert_true(tu_message_has(err.message, "1099511627776"));
}

static void expect_infer(const cleave_op *op, const int64_t *shape, size_t rank,
                         const int64_t *want, size_t n) {
  cleave_split_info info;
  cleave_error err;
  int64_t lens[4] = {-9, -9, -9, -9};
  cleave_status st = cleave_infer(op, cleave_type_of(CLEAVE_I8), shape, rank, &info, lens, 4, &err);
  if (st != CLEAVE_OK) {
    print_error("status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == CLEAVE_OK);
  TU_CHECK(info.num_outputs == n);
  for (size_t i = 0; i < n; ++i) {
    if (lens[i] != want[i]) {
      print_error("length %zu is %lld, expected %lld\n", i, (long long)lens[i], (long long)want[i]);
    }
    TU_CHECK(lens[i] == want[i]);
  }
}

/* Lengths near INT64_MAX: ceil(d/n), remainders and -1 resolution must not overflow on the way
 * (d + n - 1 would). Inference only: nothing that large is allocated. */
static void test_infer_extreme_lengths(void **state) {
  (void)state;
  const int64_t shape[1] = {INT64_MAX};
  cleave_op op = cleave_op_onnx_split(18);
  op.num_outputs = tu_count_value(2);
  const int64_t two[2] = {INT64_C(1) << 62, (INT64_C(1) << 62) - 1};
  tu_context("Split-18 num_outputs 2 on [INT64_MAX]");
  expect_infer(&op, shape, 1, two, 2);
  op.num_outputs = tu_count_value(3);
  const int64_t three[3] = {INT64_C(3074457345618258603), INT64_C(3074457345618258603),
                            INT64_C(3074457345618258601)};
  tu_context("Split-18 num_outputs 3 on [INT64_MAX]");
  expect_infer(&op, shape, 1, three, 3);

  const int64_t big_s = INT64_MAX - 1;
  cleave_op seq = cleave_op_split_to_sequence(11);
  seq.lengths = cleave_values_scalar(&big_s);
  const int64_t chunks[2] = {INT64_MAX - 1, 1};
  tu_context("SplitToSequence split INT64_MAX-1 on [INT64_MAX]");
  expect_infer(&seq, shape, 1, chunks, 2);
  const int64_t max_s = INT64_MAX;
  seq.lengths = cleave_values_scalar(&max_s);
  const int64_t whole[1] = {INT64_MAX};
  tu_context("SplitToSequence split INT64_MAX on [INT64_MAX]");
  expect_infer(&seq, shape, 1, whole, 1);

  const int64_t axis = 0;
  const int64_t lens[2] = {1, -1};
  cleave_op vs = cleave_op_variadic_split(&axis, lens, 2);
  const int64_t resolved[2] = {1, INT64_MAX - 1};
  tu_context("VariadicSplit [1,-1] on [INT64_MAX]");
  expect_infer(&vs, shape, 1, resolved, 2);

  /* num_outputs INT64_MAX on a short axis: the last length would be hugely negative. */
  const int64_t seven[1] = {7};
  const int64_t max_n = INT64_MAX;
  op.num_outputs = cleave_values_scalar(&max_n);
  const char *needles[] = {"num_outputs", "9223372036854775807", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_I8), seven, 1, 1, CLEAVE_ERROR_INVALID_SPLIT, needles);
}

/* A plan runs many times with different input and output addresses; each run is compared with
 * the reference of the data it was given. */
static void test_plan_many_runs(void **state) {
  (void)state;
  const int64_t shape[3] = {3, 9, 5};
  const int64_t axis = -2;
  const int64_t lens[4] = {2, -1, 0, 3};
  const int64_t resolved[4] = {2, 4, 0, 3};
  cleave_op op = cleave_op_variadic_split(&axis, lens, 4);
  cleave_type type = {CLEAVE_BYTES, 3};
  cleave_plan *plan = NULL;
  cleave_error err;
  assert_int_equal(cleave_plan_create(&op, type, shape, 3, &plan, &err), CLEAVE_OK);
  for (unsigned run = 0; run < 20; ++run) {
    tu_input in;
    tu_input_make(&in, type, shape, 3, run * 13u);
    size_t sizes[4];
    unsigned char *refs[4];
    int64_t offset = 0;
    for (size_t i = 0; i < 4; ++i) {
      sizes[i] = (size_t)(3 * resolved[i] * 5 * 3);
      refs[i] = malloc(sizes[i] + 1);
      assert_non_null(refs[i]);
      tu_reference_chunk(in.bytes, shape, 3, 1, offset, resolved[i], 3, refs[i]);
      offset += resolved[i];
      assert_true(cleave_plan_output_bytes(plan, i) == (int64_t)sizes[i]);
    }
    tu_outputs out;
    tu_outputs_make(&out, 4, sizes, 0);
    assert_int_equal(cleave_plan_run(plan, in.bytes, (void *const *)out.buffers, &err), CLEAVE_OK);
    for (size_t i = 0; i < 4; ++i) {
      assert_memory_equal(out.buffers[i], refs[i], sizes[i]);
      free(refs[i]);
    }
    tu_outputs_free(&out);
    tu_input_free(&in);
  }
  cleave_plan_destroy(plan);
}

/* cleave_plan_create copies the op's values: changing them afterwards changes nothing. */
static void test_plan_copies_values(void **state) {
  (void)state;
  const int64_t shape[1] = {10};
  int64_t axis = 0;
  int64_t lens[3] = {5, 3, 2};
  cleave_op op = cleave_op_variadic_split(&axis, lens, 3);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_I32), shape, 1, &plan, NULL),
                   CLEAVE_OK);
  lens[0] = 1;
  lens[1] = 1;
  lens[2] = 8;
  axis = 5;
  memset(&op, 0xFF, sizeof op);
  assert_int_equal(cleave_plan_output_length(plan, 0), 5);
  assert_int_equal(cleave_plan_output_length(plan, 2), 2);
  int32_t data[10];
  for (int i = 0; i < 10; ++i) {
    data[i] = i * 10;
  }
  int32_t a[5], b[3], c[2];
  void *outs[3] = {a, b, c};
  assert_int_equal(cleave_plan_run(plan, data, outs, NULL), CLEAVE_OK);
  assert_int_equal(a[4], 40);
  assert_int_equal(b[0], 50);
  assert_int_equal(b[2], 70);
  assert_int_equal(c[0], 80);
  assert_int_equal(c[1], 90);
  cleave_plan_destroy(plan);
}

/* Accessors against hand-computed numbers for the OpenVINO Split example. */
static void test_plan_accessors(void **state) {
  (void)state;
  const int64_t shape[4] = {6, 12, 10, 24};
  const int64_t axis = 1;
  cleave_op op = cleave_op_split(&axis, 3);
  cleave_plan *plan = NULL;
  cleave_error err;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), shape, 4, &plan, &err),
                   CLEAVE_OK);
  assert_non_null(plan);
  const cleave_split_info *info = cleave_plan_info(plan);
  assert_int_equal(info->axis, 1);
  assert_int_equal(info->axis_dim, 12);
  assert_int_equal(info->num_outputs, 3);
  assert_int_equal(info->output_rank, 4);
  assert_int_equal(info->axis_removed, 0);
  assert_int_equal(info->element_size, 4);
  for (size_t i = 0; i < 3; ++i) {
    int64_t dims[4] = {0, 0, 0, 0};
    assert_int_equal(cleave_plan_output_length(plan, i), 4);
    assert_int_equal(cleave_plan_output_bytes(plan, i), 6 * 4 * 10 * 24 * 4);
    assert_int_equal(cleave_plan_output_shape(plan, i, dims, &err), CLEAVE_OK);
    assert_int_equal(dims[0], 6);
    assert_int_equal(dims[1], 4);
    assert_int_equal(dims[2], 10);
    assert_int_equal(dims[3], 24);
  }
  assert_int_equal(cleave_plan_output_length(plan, 3), -1);
  assert_int_equal(cleave_plan_output_bytes(plan, 3), -1);
  assert_int_equal(cleave_plan_output_length(plan, SIZE_MAX), -1);
  int64_t dims[4];
  assert_int_equal(cleave_plan_output_shape(plan, 3, dims, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_int_equal(err.status, CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_true(tu_message_has(err.message, "3"));
  cleave_plan_destroy(plan);
}

/* A failed plan_create sets *plan to NULL (tested for every rule through tu_check_error); here
 * the empty-sequence plan, which has no outputs at all. */
static void test_plan_empty_sequence(void **state) {
  (void)state;
  const int64_t shape[2] = {0, 4};
  cleave_op op = cleave_op_split_to_sequence(11);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), shape, 2, &plan, NULL),
                   CLEAVE_OK);
  assert_int_equal(cleave_plan_info(plan)->num_outputs, 0);
  assert_int_equal(cleave_plan_output_bytes(plan, 0), -1);
  float dummy_in = 0.0f;
  void *none[1] = {NULL};
  assert_int_equal(cleave_plan_run(plan, &dummy_in, none, NULL), CLEAVE_OK);
  cleave_plan_destroy(plan);
}

typedef struct thread_job {
  const cleave_plan *plan;
  const tu_input *in;
  unsigned char *outs[2];
  cleave_status status;
} thread_job;

static void *run_plan_job(void *arg) {
  thread_job *job = arg;
  for (int i = 0; i < 50 && job->status == CLEAVE_OK; ++i) {
    job->status = cleave_plan_run(job->plan, job->in->bytes, (void *const *)job->outs, NULL);
  }
  return NULL;
}

/* One plan run from two threads at once, into different outputs. */
static void test_plan_two_threads(void **state) {
  (void)state;
  const int64_t shape[2] = {64, 33};
  const int64_t axis = 1;
  const int64_t lens[2] = {11, 22};
  cleave_op op = cleave_op_variadic_split(&axis, lens, 2);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_F64), shape, 2, &plan, NULL),
                   CLEAVE_OK);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F64), shape, 2, 21);
  unsigned char *ref[2];
  size_t sizes[2] = {64 * 11 * 8, 64 * 22 * 8};
  thread_job jobs[2];
  for (size_t i = 0; i < 2; ++i) {
    ref[i] = malloc(sizes[i]);
    assert_non_null(ref[i]);
    tu_reference_chunk(in.bytes, shape, 2, 1, i == 0 ? 0 : 11, lens[i], 8, ref[i]);
  }
  pthread_t threads[2];
  for (size_t j = 0; j < 2; ++j) {
    jobs[j].plan = plan;
    jobs[j].in = &in;
    jobs[j].status = CLEAVE_OK;
    for (size_t i = 0; i < 2; ++i) {
      jobs[j].outs[i] = calloc(1, sizes[i]);
      assert_non_null(jobs[j].outs[i]);
    }
    assert_int_equal(pthread_create(&threads[j], NULL, run_plan_job, &jobs[j]), 0);
  }
  for (size_t j = 0; j < 2; ++j) {
    assert_int_equal(pthread_join(threads[j], NULL), 0);
    assert_int_equal(jobs[j].status, CLEAVE_OK);
    for (size_t i = 0; i < 2; ++i) {
      assert_memory_equal(jobs[j].outs[i], ref[i], sizes[i]);
      free(jobs[j].outs[i]);
    }
  }
  free(ref[0]);
  free(ref[1]);
  tu_input_free(&in);
  cleave_plan_destroy(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_capacity_protocol),   cmocka_unit_test(test_capacity_zero_outputs),
      cmocka_unit_test(test_capacity_huge_count), cmocka_unit_test(test_infer_extreme_lengths),
      cmocka_unit_test(test_plan_many_runs),      cmocka_unit_test(test_plan_copies_values),
      cmocka_unit_test(test_plan_accessors),      cmocka_unit_test(test_plan_empty_sequence),
      cmocka_unit_test(test_plan_two_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
