/*
 * Nested use of the built-in pool (issue 13, defect 1): a task running inside
 * `cleave_threadpool_parallel_for(pool, ...)` runs a plan large enough to go parallel on the same
 * pool. Before the fix the inner call relocked the pool's job lock: on the thread that started
 * the job that is undefined, on a worker it blocked forever (the test has a timeout).
 *
 * Every thread of the pool takes part: the outer job has one task per pool thread and each task
 * waits until all of them have started, so no thread can take two of them and every thread runs
 * one (their thread ids are checked distinct). Each task then runs byte-aligned and bit-stream
 * plans through the same pool, with thresholds that make them parallel, a nested parallel-for of
 * its own, and a plan with the default thresholds on an input above them. Every output byte is
 * compared with a reference computed here.
 */
#include <cleave.h>

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

enum { MAX_THREADS = 4, NUM_OUT = 3 };

/* A [rows, cols] u8 tensor split on axis 1 into NUM_OUT outputs of these column counts. */
typedef struct split_setup {
  int64_t rows, cols;
  int64_t lengths[NUM_OUT];
  cleave_type type;
  cleave_plan *plan;
  unsigned char *input;
} split_setup;

static unsigned char pattern(size_t i) {
  return (unsigned char)((i * 131u + (i >> 9) * 7u + 1u) & 0xFF);
}

static void setup_init(split_setup *s, cleave_dtype dtype, int64_t rows, int64_t cols,
                       const int64_t lengths[NUM_OUT], const cleave_plan_options *options) {
  s->rows = rows;
  s->cols = cols;
  memcpy(s->lengths, lengths, sizeof s->lengths);
  s->type = cleave_type_of(dtype);
  int64_t axis = 1;
  cleave_op op = cleave_op_variadic_split(&axis, s->lengths, NUM_OUT);
  int64_t shape[2] = {rows, cols};
  cleave_error err;
  assert_int_equal(cleave_plan_create_with(&op, s->type, shape, 2, options, &s->plan, &err),
                   CLEAVE_OK);
  size_t bytes = (size_t)cleave_plan_output_bytes(s->plan, 0) +
                 (size_t)cleave_plan_output_bytes(s->plan, 1) +
                 (size_t)cleave_plan_output_bytes(s->plan, 2) + 8;
  s->input = malloc(bytes);
  assert_non_null(s->input);
  for (size_t i = 0; i < bytes; i++) {
    s->input[i] = pattern(i);
  }
}

static void setup_free(split_setup *s) {
  cleave_plan_destroy(s->plan);
  free(s->input);
}

/* Element (r, c) of the input: u8 is one byte; u4 (LSB first) one nibble. */
static unsigned element(const split_setup *s, int64_t r, int64_t c) {
  size_t k = (size_t)(r * s->cols + c);
  if (s->type.dtype == CLEAVE_U8) {
    return s->input[k];
  }
  return (s->input[k / 2] >> (4 * (k % 2))) & 0xFu;
}

/* Whether output i holds columns [c0, c0 + len) of every row, and zero padding bits. */
static int output_ok(const split_setup *s, int i, const unsigned char *out) {
  int64_t c0 = 0;
  for (int k = 0; k < i; k++) {
    c0 += s->lengths[k];
  }
  int64_t len = s->lengths[i];
  for (int64_t r = 0; r < s->rows; r++) {
    for (int64_t c = 0; c < len; c++) {
      size_t k = (size_t)(r * len + c);
      unsigned got = s->type.dtype == CLEAVE_U8 ? out[k] : (out[k / 2] >> (4 * (k % 2))) & 0xFu;
      if (got != element(s, r, c0 + c)) {
        return 0;
      }
    }
  }
  size_t n = (size_t)(s->rows * len);
  if (s->type.dtype == CLEAVE_U4 && n % 2 == 1 && (out[n / 2] >> 4) != 0) {
    return 0;
  }
  return 1;
}

/* Runs the plan through `exec` into fresh buffers and checks every output. */
static int run_and_check(const split_setup *s, const cleave_exec *exec) {
  unsigned char *outs[NUM_OUT];
  int ok = 1;
  for (int i = 0; i < NUM_OUT; i++) {
    outs[i] = calloc((size_t)cleave_plan_output_bytes(s->plan, (size_t)i) + 1, 1);
    ok = ok && outs[i] != NULL;
  }
  if (ok && cleave_plan_run_exec(s->plan, s->input, (void *const *)outs, exec, NULL) != CLEAVE_OK) {
    ok = 0;
  }
  for (int i = 0; i < NUM_OUT; i++) {
    ok = ok && output_ok(s, i, outs[i]);
    free(outs[i]);
  }
  return ok;
}

typedef struct inner_log {
  int hits[16];
} inner_log;

static void inner_mark(void *context, size_t index) {
  inner_log *log = context;
  __atomic_fetch_add(&log->hits[index], 1, __ATOMIC_RELAXED);
}

typedef struct outer_job {
  cleave_threadpool *pool;
  size_t threads;
  int arrived;
  pthread_t ids[MAX_THREADS];
  int failures;
  const split_setup *setups;
  size_t num_setups;
} outer_job;

static void outer_task(void *context, size_t index) {
  outer_job *job = context;
  job->ids[index] = pthread_self();
  /* Wait until every pool thread holds one task: then each runs exactly one. */
  __atomic_fetch_add(&job->arrived, 1, __ATOMIC_ACQ_REL);
  while (__atomic_load_n(&job->arrived, __ATOMIC_ACQUIRE) < (int)job->threads) {
    sched_yield();
  }
  cleave_exec exec = cleave_exec_threadpool(job->pool);
  int bad = 0;
  for (size_t k = 0; k < job->num_setups; k++) {
    bad += !run_and_check(&job->setups[k], &exec);
  }
  inner_log log;
  memset(&log, 0, sizeof log);
  cleave_threadpool_parallel_for(job->pool, inner_mark, &log, 16);
  for (int i = 0; i < 16; i++) {
    bad += log.hits[i] != 1;
  }
  __atomic_fetch_add(&job->failures, bad, __ATOMIC_RELAXED);
}

static void nested_from_every_thread(size_t threads) {
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(threads, &pool, NULL), CLEAVE_OK);
  /* Thresholds that make 64 KiB runs parallel, and the defaults with an input above them. */
  cleave_plan_options small = cleave_plan_options_default();
  small.parallel_bytes = 4096;
  cleave_plan_options defaults = cleave_plan_options_default();
  static const int64_t bytes_lengths[NUM_OUT] = {100, 0, 156};
  static const int64_t bits_lengths[NUM_OUT] = {37, 0, 90}; /* odd nibbles: the bit stream */
  static const int64_t big_lengths[NUM_OUT] = {1000, 24, 1024};
  split_setup setups[3];
  setup_init(&setups[0], CLEAVE_U8, 256, 256, bytes_lengths, &small);
  setup_init(&setups[1], CLEAVE_U4, 512, 127, bits_lengths, &small);
  /* 2048 x 2048 bytes = 4 MiB, above the default parallel_bytes (checked below). */
  setup_init(&setups[2], CLEAVE_U8, 2048, 2048, big_lengths, &defaults);
  assert_true(2048 * 2048 >= defaults.parallel_bytes);
  assert_true(strcmp(cleave_plan_description(setups[1].plan), "bits") == 0);

  outer_job job;
  memset(&job, 0, sizeof job);
  job.pool = pool;
  job.threads = threads;
  job.setups = setups;
  job.num_setups = 3;
  cleave_threadpool_parallel_for(pool, outer_task, &job, threads);
  assert_int_equal(job.failures, 0);
  for (size_t a = 0; a < threads; a++) {
    for (size_t b = a + 1; b < threads; b++) {
      assert_false(pthread_equal(job.ids[a], job.ids[b]));
    }
  }
  /* The pool still works for ordinary runs afterwards. */
  cleave_exec exec = cleave_exec_threadpool(pool);
  for (size_t k = 0; k < 3; k++) {
    assert_true(run_and_check(&setups[k], &exec));
    setup_free(&setups[k]);
  }
  cleave_threadpool_destroy(pool);
}

static void test_nested_2(void **state) {
  (void)state;
  nested_from_every_thread(2);
}

static void test_nested_3(void **state) {
  (void)state;
  nested_from_every_thread(3);
}

static void test_nested_4(void **state) {
  (void)state;
  nested_from_every_thread(4);
}

/* A task of a job that calls the pool from another thread and waits for it: that call finds the
 * pool busy and must run on its own thread rather than wait for the job that waits for it. */
typedef struct cross_call {
  cleave_threadpool *pool;
  inner_log log;
} cross_call;

static void *cross_main(void *arg) {
  cross_call *c = arg;
  cleave_threadpool_parallel_for(c->pool, inner_mark, &c->log, 16);
  return NULL;
}

static void cross_task(void *context, size_t index) {
  cross_call *c = context;
  if (index == 0) {
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, cross_main, c), 0);
    pthread_join(t, NULL);
  }
}

static void test_busy_pool_from_another_thread(void **state) {
  (void)state;
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, NULL), CLEAVE_OK);
  cross_call c;
  memset(&c, 0, sizeof c);
  c.pool = pool;
  cleave_threadpool_parallel_for(pool, cross_task, &c, 2);
  for (int i = 0; i < 16; i++) {
    assert_int_equal(c.log.hits[i], 1);
  }
  cleave_threadpool_destroy(pool);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nested_2),
      cmocka_unit_test(test_nested_3),
      cmocka_unit_test(test_nested_4),
      cmocka_unit_test(test_busy_pool_from_another_thread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
