/*
 * Library-allocated outputs: contents equal the reference, alignment, one-thread and pooled
 * runs, the mapped (large) and heap (small) blocks, empty outputs, and all-or-nothing failures.
 */
#include "kernel_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_alloc(const kc_case *c, const cleave_exec *exec) {
  size_t total = c->esize;
  for (size_t k = 0; k < c->rank; k++) {
    total *= (size_t)c->shape[k];
  }
  unsigned char *in_raw = aligned_alloc(64, (total + 64 + 63) / 64 * 64);
  assert_non_null(in_raw);
  unsigned char *in = in_raw + c->in_misalign;
  kc_fill(in, total, 11);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&c->op, c->type, c->shape, c->rank, &plan, NULL), CLEAVE_OK);
  void *outs[64];
  cleave_error err;
  assert_int_equal(cleave_plan_run_alloc(plan, in, exec, outs, &err), CLEAVE_OK);
  assert_int_equal(err.status, CLEAVE_OK);
  kc_check_allocated(c, in, outs);
  cleave_outputs_free(outs, c->num_outputs);
  for (size_t i = 0; i < c->num_outputs; i++) {
    assert_null(outs[i]);
  }
  cleave_plan_destroy(plan);
  free(in_raw);
}

static void test_alloc_contents(void **state) {
  (void)state;
  int64_t axis0 = 0, axis1 = 1, lengths[64];
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, NULL), CLEAVE_OK);
  cleave_exec pooled = cleave_exec_threadpool(pool);
  const cleave_exec *execs[2] = {NULL, &pooled};
  for (int e = 0; e < 4; e++) {
    /* Runs 2 and 3 repeat 0 and 1 with an input 16 bytes past a line. */
    size_t misalign = e >= 2 ? 16 : 0;
    /* Small blocks (heap), odd output sizes. */
    int64_t s1[2] = {3, 7};
    kc_case c1 = kc_split_case(cleave_type_of(CLEAVE_U8), 1, s1, 2, 0, 3, lengths, &axis0);
    c1.in_misalign = misalign + 1;
    check_alloc(&c1, execs[e % 2]);
    int64_t s2[2] = {50, 33};
    kc_case c2 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s2, 2, 1, 33, lengths, &axis1);
    c2.in_misalign = misalign;
    check_alloc(&c2, execs[e % 2]);
    /* A large block (mapped, huge-page advice) of 6 MiB, split on both axes. */
    int64_t s3[2] = {6, 256 * 1024};
    kc_case c3 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s3, 2, 0, 2, lengths, &axis0);
    c3.in_misalign = misalign;
    check_alloc(&c3, execs[e % 2]);
    kc_case c4 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s3, 2, 1, 4, lengths, &axis1);
    c4.in_misalign = misalign;
    check_alloc(&c4, execs[e % 2]);
    /* Empty outputs still get valid, distinct-or-equal pointers and free cleanly. */
    static const int64_t l5[3] = {0, 3, 0};
    int64_t s5[2] = {2, 3};
    kc_case c5;
    memset(&c5, 0, sizeof c5);
    c5.op = cleave_op_variadic_split(&axis1, l5, 3);
    c5.type = cleave_type_of(CLEAVE_I64);
    c5.esize = 8;
    memcpy(c5.shape, s5, sizeof s5);
    c5.rank = 2;
    c5.axis = 1;
    c5.lengths = l5;
    c5.num_outputs = 3;
    c5.in_misalign = misalign;
    check_alloc(&c5, execs[e % 2]);
    int64_t s6[2] = {0, 4};
    kc_case c6 = kc_split_case(cleave_type_of(CLEAVE_U8), 1, s6, 2, 1, 2, lengths, &axis1);
    check_alloc(&c6, execs[e % 2]);
  }
  cleave_threadpool_destroy(pool);
}

static void test_alloc_errors(void **state) {
  (void)state;
  int64_t axis = 0;
  cleave_error err;
  void *outs[8];
  /* NULL plan. */
  assert_int_equal(cleave_plan_run_alloc(NULL, NULL, NULL, outs, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "plan"));
  int64_t shape[1] = {8};
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U8), shape, 1, &plan, NULL),
                   CLEAVE_OK);
  /* NULL outputs array. */
  assert_int_equal(cleave_plan_run_alloc(plan, shape, NULL, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "outputs"));
  assert_non_null(strstr(err.message, "2"));
  /* NULL input: every entry is reset, nothing allocated. */
  outs[0] = outs[1] = &err;
  assert_int_equal(cleave_plan_run_alloc(plan, NULL, NULL, outs, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "input"));
  assert_null(outs[0]);
  assert_null(outs[1]);
  cleave_plan_destroy(plan);

  /* Output sizes that sum above 2^63-1 once each is rounded up to 64 bytes. INT64_MAX is a
   * multiple of 7; the data is never read because the size check comes first. */
  int64_t huge[1] = {INT64_MAX};
  cleave_op seven = cleave_op_split(&axis, 7);
  assert_int_equal(cleave_plan_create(&seven, cleave_type_of(CLEAVE_U8), huge, 1, &plan, NULL),
                   CLEAVE_OK);
  for (int i = 0; i < 7; i++) {
    outs[i] = &err;
  }
  assert_int_equal(cleave_plan_run_alloc(plan, huge, NULL, outs, &err), CLEAVE_ERROR_OVERFLOW);
  assert_non_null(strstr(err.message, "7 outputs"));
  for (int i = 0; i < 7; i++) {
    assert_null(outs[i]);
  }
  cleave_plan_destroy(plan);

  /* 2^62 bytes cannot be had: out of memory, nothing left allocated. */
  int64_t big[1] = {(int64_t)1 << 62};
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U8), big, 1, &plan, NULL),
                   CLEAVE_OK);
  outs[0] = outs[1] = &err;
  assert_int_equal(cleave_plan_run_alloc(plan, big, NULL, outs, &err), CLEAVE_ERROR_OUT_OF_MEMORY);
  /* The size named is 2^62 plus at most a few KiB of placement. */
  assert_non_null(strstr(err.message, "cannot allocate 461168601842"));
  assert_non_null(strstr(err.message, "2 outputs"));
  assert_null(outs[0]);
  assert_null(outs[1]);
  cleave_plan_destroy(plan);

  /* Freeing nothing is a no-op. */
  cleave_outputs_free(NULL, 3);
  cleave_outputs_free(outs, 0);
  cleave_outputs_free(outs, 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alloc_contents),
      cmocka_unit_test(test_alloc_errors),
  };
  return cmocka_run_group_tests_name("alloc", tests, NULL, NULL);
}
