/*
 * The built-in pool under contention: several threads hand it many small jobs at once, so that
 * a worker often comes back to the job word just as one job ends and the next is being written.
 * Every task of every job must run exactly once, and every call must return (the test has a
 * timeout). A job that was being set up used to be claimable under the previous job's exhausted
 * word: a worker then ran a task twice and counted it twice, and its caller waited forever.
 */
#include <cleave.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

enum { MAX_TASKS = 9, ROUNDS = 30000, CALLERS = 3 };

typedef struct job_log {
  int hits[MAX_TASKS];
} job_log;

static void mark(void *context, size_t index) {
  job_log *log = context;
  __atomic_fetch_add(&log->hits[index], 1, __ATOMIC_RELAXED);
}

typedef struct caller {
  cleave_threadpool *pool;
  unsigned seed;
  long wrong; /* tasks that did not run exactly once */
} caller;

static void *caller_main(void *arg) {
  caller *c = arg;
  for (int round = 0; round < ROUNDS; round++) {
    c->seed = c->seed * 1103515245u + 12345u;
    size_t count = 2 + (c->seed >> 16) % (MAX_TASKS - 1); /* 2..MAX_TASKS: always a pool job */
    job_log log;
    memset(&log, 0, sizeof log);
    cleave_threadpool_parallel_for(c->pool, mark, &log, count);
    for (size_t i = 0; i < MAX_TASKS; i++) {
      if (log.hits[i] != (i < count ? 1 : 0)) {
        c->wrong++;
      }
    }
  }
  return NULL;
}

static void run_contended(size_t threads) {
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(threads, &pool, NULL), CLEAVE_OK);
  caller callers[CALLERS];
  pthread_t ids[CALLERS];
  for (int k = 0; k < CALLERS; k++) {
    callers[k].pool = pool;
    callers[k].seed = 7u + (unsigned)k;
    callers[k].wrong = 0;
    assert_int_equal(pthread_create(&ids[k], NULL, caller_main, &callers[k]), 0);
  }
  for (int k = 0; k < CALLERS; k++) {
    assert_int_equal(pthread_join(ids[k], NULL), 0);
    assert_int_equal(callers[k].wrong, 0);
  }
  cleave_threadpool_destroy(pool);
}

static void test_two_threads(void **state) {
  (void)state;
  run_contended(2);
}

static void test_four_threads(void **state) {
  (void)state;
  run_contended(4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_threads),
      cmocka_unit_test(test_four_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
