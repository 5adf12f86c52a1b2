/*
 * Concurrent use of one arena: several threads run allocating splits of different sizes
 * through it (and through the system allocator), allocate and free raw blocks, trim and read
 * the figures, all at once. Every output is checked; at the end nothing is in use and the kept
 * bytes are within the limit. Run under ASan (the sanitizer build) and TSan (.ci/run).
 */
#include "kernel_check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 60
#define LIMIT ((size_t)24 << 20)

typedef struct shared {
  cleave_arena *arena;
  cleave_plan *plans[3];
  size_t bytes[3];
  unsigned char *input;
  cleave_threadpool *pool;
  int failures;
  pthread_mutex_t lock;
} shared;

typedef struct worker {
  shared *s;
  int id;
} worker;

static void note_failure(shared *s) {
  pthread_mutex_lock(&s->lock);
  s->failures++;
  pthread_mutex_unlock(&s->lock);
}

static void *work(void *arg) {
  worker *w = arg;
  shared *s = w->s;
  cleave_allocator from_arena = cleave_arena_allocator(s->arena);
  cleave_exec pooled = cleave_exec_threadpool(s->pool);
  for (int r = 0; r < ROUNDS; r++) {
    int k = (w->id + r) % 3;
    const cleave_allocator *alloc = (r % 5 == 4) ? NULL : &from_arena;
    const cleave_exec *exec = (w->id == 0 && r % 2 == 0) ? &pooled : NULL;
    void *outs[4];
    if (cleave_plan_run_alloc_with(s->plans[k], s->input, exec, alloc, outs, NULL) != CLEAVE_OK) {
      note_failure(s);
      continue;
    }
    /* Split along axis 0 into 4: output i is the i-th quarter of the input. */
    size_t quarter = s->bytes[k] / 4;
    for (int i = 0; i < 4; i++) {
      if (memcmp(outs[i], s->input + (size_t)i * quarter, quarter) != 0) {
        note_failure(s);
      }
    }
    cleave_outputs_free(outs, 4);
    /* Raw blocks of the arena's allocator, written whole. */
    size_t size = (size_t)(1 + (w->id * 7919 + r * 104729) % 300000);
    unsigned char *p = from_arena.alloc(size, 64, from_arena.user);
    if (p == NULL) {
      note_failure(s);
    } else {
      memset(p, w->id, size);
      from_arena.free(p, size, from_arena.user);
    }
    if (w->id == THREADS - 1 && r % 10 == 0) {
      cleave_arena_trim(s->arena, LIMIT / 2);
    }
    cleave_arena_stats st = cleave_arena_get_stats(s->arena);
    if (st.kept_bytes > LIMIT) {
      note_failure(s);
    }
  }
  return NULL;
}

static void test_concurrent_use(void **state) {
  (void)state;
  shared s;
  memset(&s, 0, sizeof s);
  pthread_mutex_init(&s.lock, NULL);
  assert_int_equal(cleave_arena_create(LIMIT, NULL, &s.arena, NULL), CLEAVE_OK);
  assert_int_equal(cleave_threadpool_create(2, &s.pool, NULL), CLEAVE_OK);
  /* 8 KiB, 1 MiB and 6 MiB of u8 (heap-sized and mapped blocks; the pool runs the large one). */
  const int64_t sizes[3] = {8192, 1 << 20, 6 << 20};
  int64_t axis = 0;
  cleave_op op = cleave_op_split(&axis, 4);
  for (int k = 0; k < 3; k++) {
    assert_int_equal(
        cleave_plan_create(&op, cleave_type_of(CLEAVE_U8), &sizes[k], 1, &s.plans[k], NULL),
        CLEAVE_OK);
    s.bytes[k] = (size_t)sizes[k];
  }
  s.input = malloc((size_t)sizes[2]);
  assert_non_null(s.input);
  kc_fill(s.input, (size_t)sizes[2], 17);
  pthread_t threads[THREADS];
  worker workers[THREADS];
  for (int t = 0; t < THREADS; t++) {
    workers[t] = (worker){&s, t};
    assert_int_equal(pthread_create(&threads[t], NULL, work, &workers[t]), 0);
  }
  for (int t = 0; t < THREADS; t++) {
    pthread_join(threads[t], NULL);
  }
  assert_int_equal(s.failures, 0);
  cleave_arena_stats st = cleave_arena_get_stats(s.arena);
  assert_int_equal(st.used_blocks, 0);
  assert_int_equal(st.used_bytes, 0);
  assert_true(st.kept_bytes <= LIMIT);
  assert_true(st.reused > 0);
  cleave_arena_destroy(s.arena);
  cleave_threadpool_destroy(s.pool);
  for (int k = 0; k < 3; k++) {
    cleave_plan_destroy(s.plans[k]);
  }
  free(s.input);
  pthread_mutex_destroy(&s.lock);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_concurrent_use),
  };
  return cmocka_run_group_tests_name("arena_threads", tests, NULL, NULL);
}
