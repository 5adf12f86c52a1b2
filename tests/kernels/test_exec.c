/*
 * How a plan runs: every copy path split across threads (the built-in pool, a caller's
 * parallel-for, reversed task order) gives the bytes of one thread, small work never leaves the
 * calling thread, the pool's own contract, the plan options and the run-time checks of
 * cleave_plan_run_exec.
 */
/* nanosleep is POSIX. */
#define _POSIX_C_SOURCE 200809L

#include "kernel_check.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

/* ---- threads ----------------------------------------------------------------------------- */

/* Every path split across 2 threads (the pool, a caller's parallel-for, reversed task order)
 * gives the same bytes; the caller's parallel-for is really used. */
static void test_threads(void **state) {
  (void)state;
  int64_t lengths[4][64], axis0 = 0, axis1 = 1;
  int64_t contiguous[2] = {16, 1000};
  int64_t streamed[3] = {40, 12, 30};
  int64_t tiny[2] = {301, 33};
  static const int64_t mixed_lengths[6] = {1, 30, 2, 0, 1, 6};
  int64_t mixed[2] = {123, 40};
  for (size_t f = 0; f < kc_num_families(); f++) {
    for (int nt = 0; nt < 2; nt++) {
      cleave_plan_options o = kc_options(kc_families[f], nt ? 0 : KC_NEVER, 0, 64);
      kc_case cases[5];
      cases[0] =
          kc_split_case(cleave_type_of(CLEAVE_U8), 1, contiguous, 2, 0, 4, lengths[0], &axis0);
      cases[1] =
          kc_split_case(cleave_type_of(CLEAVE_I16), 2, streamed, 3, 1, 3, lengths[1], &axis1);
      cases[2] = kc_split_case(cleave_type_of(CLEAVE_F32), 4, tiny, 2, 1, 33, lengths[2], &axis1);
      cases[3] = kc_split_case(cleave_type_of(CLEAVE_U8), 1, tiny, 2, 1, 33, lengths[3], &axis1);
      cases[4] =
          kc_variadic_case(cleave_type_of(CLEAVE_F64), 8, mixed, 2, 1, mixed_lengths, 6, &axis1);
      for (size_t k = 0; k < 5; k++) {
        cases[k].in_misalign = k;
        cases[k].out_misalign = 2 * k + 1;
        kc_check(&cases[k], &o, KC_POOL_2, NULL);
        kc_check(&cases[k], &o, KC_EXEC_NULL, NULL);
        assert_int_equal(kc_check(&cases[k], &o, KC_CUSTOM_2, NULL), 1);
      }
    }
  }
}

/* Small work never leaves the calling thread: under parallel_bytes no parallel-for call. */
static void test_small_work_stays(void **state) {
  (void)state;
  int64_t lengths[8], axis = 1;
  int64_t shape[4] = {6, 12, 10, 24};
  kc_case c = kc_split_case(cleave_type_of(CLEAVE_F32), 4, shape, 4, 1, 3, lengths, &axis);
  cleave_plan_options o = cleave_plan_options_default();
  assert_int_equal(kc_check(&c, &o, KC_CUSTOM_2, NULL), 0);
  o.parallel_bytes = 6 * 12 * 10 * 24 * 4 + 1;
  assert_int_equal(kc_check(&c, &o, KC_CUSTOM_2, NULL), 0);
  o.parallel_bytes = 6 * 12 * 10 * 24 * 4;
  assert_int_equal(kc_check(&c, &o, KC_CUSTOM_2, NULL), 1);
}

typedef struct task_log {
  int hits[100];
} task_log;

static void mark(void *context, size_t index) {
  task_log *log = context;
  __atomic_fetch_add(&log->hits[index], 1, __ATOMIC_RELAXED);
}

static void test_threadpool(void **state) {
  (void)state;
  cleave_error err;
  cleave_threadpool *pool = (cleave_threadpool *)&err; /* must be reset on failure */
  assert_int_equal(cleave_threadpool_create(0, &pool, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_null(pool);
  assert_non_null(strstr(err.message, "num_threads is 0"));
  assert_int_equal(cleave_threadpool_create(5000, &pool, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "5000"));
  assert_int_equal(cleave_threadpool_create(2, NULL, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cleave_threadpool_threads(NULL), 0);
  cleave_exec none = cleave_exec_threadpool(NULL);
  assert_null(none.parallel_for);
  assert_int_equal(none.num_threads, 0);
  for (size_t n = 1; n <= 3; n++) {
    assert_int_equal(cleave_threadpool_create(n, &pool, &err), CLEAVE_OK);
    assert_int_equal(cleave_threadpool_threads(pool), n);
    cleave_exec exec = cleave_exec_threadpool(pool);
    assert_int_equal(exec.num_threads, n);
    assert_ptr_equal(exec.context, pool);
    for (size_t count = 0; count <= 100; count += 33) {
      for (int round = 0; round < 20; round++) {
        task_log log;
        memset(&log, 0, sizeof log);
        exec.parallel_for(exec.context, mark, &log, count);
        for (size_t i = 0; i < 100; i++) {
          assert_int_equal(log.hits[i], i < count ? 1 : 0);
        }
      }
    }
    cleave_threadpool_destroy(pool);
  }
  cleave_threadpool_destroy(NULL);
}

typedef struct caller_args {
  cleave_threadpool *pool;
  int ok;
} caller_args;

static void *caller_main(void *arg) {
  caller_args *a = arg;
  a->ok = 1;
  for (int round = 0; round < 200; round++) {
    task_log log;
    memset(&log, 0, sizeof log);
    size_t count = (size_t)(round % 100) + 1;
    cleave_threadpool_parallel_for(a->pool, mark, &log, count);
    for (size_t i = 0; i < 100; i++) {
      if (log.hits[i] != (i < count ? 1 : 0)) {
        a->ok = 0;
      }
    }
  }
  return NULL;
}

typedef struct slow_log {
  pthread_t caller;
  int hits[64];
} slow_log;

/* Tasks that run on a worker take a few milliseconds, so the caller runs out of tasks first and
 * has to sleep until the worker's last one returns. */
static void slow_on_worker(void *context, size_t index) {
  slow_log *log = context;
  if (!pthread_equal(pthread_self(), log->caller)) {
    struct timespec ts = {0, 3000000};
    nanosleep(&ts, NULL);
  }
  __atomic_fetch_add(&log->hits[index], 1, __ATOMIC_RELAXED);
}

static void test_threadpool_waits_for_claimed_tasks(void **state) {
  (void)state;
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, NULL), CLEAVE_OK);
  for (int round = 0; round < 5; round++) {
    slow_log log;
    memset(&log, 0, sizeof log);
    log.caller = pthread_self();
    cleave_threadpool_parallel_for(pool, slow_on_worker, &log, 64);
    /* Every task ran exactly once, and all had returned when the call returned. */
    for (int i = 0; i < 64; i++) {
      assert_int_equal(log.hits[i], 1);
    }
  }
  cleave_threadpool_destroy(pool);
}

/* Several threads submitting jobs to one pool at once: each job still runs every task once. */
static void test_threadpool_concurrent_callers(void **state) {
  (void)state;
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, NULL), CLEAVE_OK);
  pthread_t threads[3];
  caller_args args[3];
  for (int t = 0; t < 3; t++) {
    args[t].pool = pool;
    assert_int_equal(pthread_create(&threads[t], NULL, caller_main, &args[t]), 0);
  }
  for (int t = 0; t < 3; t++) {
    pthread_join(threads[t], NULL);
    assert_int_equal(args[t].ok, 1);
  }
  cleave_threadpool_destroy(pool);
}

/* ---- options ----------------------------------------------------------------------------- */

static void test_options(void **state) {
  (void)state;
  int64_t shape[2] = {4, 6}, axis = 1;
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_type f32 = cleave_type_of(CLEAVE_F32);
  cleave_plan_options d = cleave_plan_options_default();
  assert_true(d.nontemporal_bytes > 0);
  assert_true(d.parallel_bytes > 0);
  assert_int_equal(d.tiny_bytes, 64);
  assert_int_equal(d.kernels, CLEAVE_KERNELS_AUTO);
  struct bad {
    cleave_plan_options o;
    const char *needle1, *needle2;
  } bad[] = {
      {d, "nontemporal_bytes", "-1"},
      {d, "parallel_bytes", "-5"},
      {d, "tiny_bytes", "0"},
      {d, "kernels", "7"},
  };
  bad[0].o.nontemporal_bytes = -1;
  bad[1].o.parallel_bytes = -5;
  bad[2].o.tiny_bytes = 0;
  bad[3].o.kernels = (cleave_kernels_choice)7;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cleave_error err;
    cleave_plan *plan = (cleave_plan *)&err;
    assert_int_equal(cleave_plan_create_with(&op, f32, shape, 2, &bad[i].o, &plan, &err),
                     CLEAVE_ERROR_INVALID_ARGUMENT);
    assert_null(plan);
    assert_int_equal(err.status, CLEAVE_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, bad[i].needle1));
    assert_non_null(strstr(err.message, bad[i].needle2));
  }
  /* An inference error wins over the options: the rules come first. */
  cleave_error err;
  cleave_plan *plan = NULL;
  cleave_op bad_op = cleave_op_split(&axis, 4);
  assert_int_equal(cleave_plan_create_with(&bad_op, f32, shape, 2, &bad[0].o, &plan, &err),
                   CLEAVE_ERROR_INVALID_SPLIT);
  /* NULL options: the defaults, same as cleave_plan_create. */
  assert_int_equal(cleave_plan_create_with(&op, f32, shape, 2, NULL, &plan, &err), CLEAVE_OK);
  cleave_plan *plain = NULL;
  assert_int_equal(cleave_plan_create(&op, f32, shape, 2, &plain, &err), CLEAVE_OK);
  assert_string_equal(cleave_plan_description(plan), cleave_plan_description(plain));
  cleave_plan_destroy(plan);
  cleave_plan_destroy(plain);
  assert_null(cleave_plan_description(NULL));
  /* AVX2 on request: created exactly when the CPU has it; portable always. */
  cleave_plan_options avx2 = d;
  avx2.kernels = CLEAVE_KERNELS_AVX2;
  cleave_status st = cleave_plan_create_with(&op, f32, shape, 2, &avx2, &plan, &err);
  if (kc_num_families() == 2) {
    assert_int_equal(st, CLEAVE_OK);
    assert_non_null(strstr(cleave_plan_description(plan), "avx2"));
    cleave_plan_destroy(plan);
  } else {
    assert_int_equal(st, CLEAVE_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "AVX2"));
  }
  cleave_plan_options portable = d;
  portable.kernels = CLEAVE_KERNELS_PORTABLE;
  assert_int_equal(cleave_plan_create_with(&op, f32, shape, 2, &portable, &plan, &err), CLEAVE_OK);
  assert_non_null(strstr(cleave_plan_description(plan), "portable"));
  cleave_plan_destroy(plan);
}

/* Run-time checks of cleave_plan_run_exec: the same as cleave_plan_run's, nothing written. */
static void test_run_exec_errors(void **state) {
  (void)state;
  int64_t shape[2] = {4, 6}, axis = 1;
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), shape, 2, &plan, NULL),
                   CLEAVE_OK);
  float in[24] = {0}, a[12], b[12];
  memset(a, 0x7F, sizeof a);
  void *outs[2] = {a, NULL};
  cleave_error err;
  assert_int_equal(cleave_plan_run_exec(NULL, in, outs, NULL, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "plan"));
  assert_int_equal(cleave_plan_run_exec(plan, in, outs, NULL, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "outputs[1]"));
  unsigned char *bytes = (unsigned char *)a;
  for (size_t i = 0; i < sizeof a; i++) {
    assert_int_equal(bytes[i], 0x7F);
  }
  outs[1] = b;
  assert_int_equal(cleave_plan_run_exec(plan, NULL, outs, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "input"));
  cleave_plan_destroy(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_small_work_stays),
      cmocka_unit_test(test_threadpool),
      cmocka_unit_test(test_threadpool_concurrent_callers),
      cmocka_unit_test(test_threadpool_waits_for_claimed_tasks),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_run_exec_errors),
  };
  return cmocka_run_group_tests_name("exec", tests, NULL, NULL);
}
