/*
 * The arena's release when its last user leaves (issue 26): whichever thread ends the arena, no
 * other thread may touch it afterwards. The backing allocator's `free` can hold one thread in
 * the middle of releasing blocks while another thread ends the arena, so that the interleavings
 * that used to read the freed arena (its backing allocator, read after the lock was released)
 * happen on every run:
 *   - a thread whose free evicts older blocks releases them while the owner destroys the arena;
 *   - the owner's destroy releases the kept blocks while a thread frees the last block in use;
 *   - threads free their last blocks at once after a destroy (a race without a pause point,
 *     repeated; ThreadSanitizer reports it on every run, AddressSanitizer when it hits).
 * Every block goes back to the backing allocator exactly once. Run under ASan (the sanitizer
 * build) and TSan (.ci/run).
 */
/* pthread barriers are POSIX. */
#define _POSIX_C_SOURCE 200809L

#include "kernel_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAGE ((size_t)4096)
#define MAX_BLOCKS 64
#define RACE_ROUNDS 200
#define RACE_THREADS 4

/* ---- a backing allocator that counts, and can hold one thread inside `free` ---------------- */

/*
 * The counts are relaxed atomics and an unarmed `free` takes no lock, so that the allocator itself
 * orders nothing between the threads that call it: a thread that reads the arena after leaving
 * its lock is not ordered before another thread's release of the arena by this test's own code,
 * and ThreadSanitizer sees the race.
 */
typedef struct backing_state {
  atomic_size_t allocs, frees;
  atomic_int armed; /* the next free of `hold_thread` is held (written under `lock`) */
  pthread_mutex_t lock;
  pthread_cond_t changed;
  pthread_t hold_thread;
  int held, resumed; /* the held thread is inside free; it may go on */
} backing_state;

static backing_state g_backing = {.lock = PTHREAD_MUTEX_INITIALIZER,
                                  .changed = PTHREAD_COND_INITIALIZER};

static void *backing_alloc(size_t size, size_t alignment, void *user) {
  (void)user;
  void *p = aligned_alloc(alignment < PAGE ? PAGE : alignment, (size + PAGE - 1) / PAGE * PAGE);
  if (p != NULL) {
    atomic_fetch_add_explicit(&g_backing.allocs, 1, memory_order_relaxed);
  }
  return p;
}

static void backing_free(void *ptr, size_t size, void *user) {
  (void)size;
  (void)user;
  atomic_fetch_add_explicit(&g_backing.frees, 1, memory_order_relaxed);
  if (atomic_load_explicit(&g_backing.armed, memory_order_relaxed)) {
    pthread_mutex_lock(&g_backing.lock);
    if (atomic_load_explicit(&g_backing.armed, memory_order_relaxed) &&
        pthread_equal(pthread_self(), g_backing.hold_thread)) {
      atomic_store_explicit(&g_backing.armed, 0, memory_order_relaxed);
      g_backing.held = 1;
      pthread_cond_broadcast(&g_backing.changed);
      while (!g_backing.resumed) {
        pthread_cond_wait(&g_backing.changed, &g_backing.lock);
      }
    }
    pthread_mutex_unlock(&g_backing.lock);
  }
  free(ptr);
}

static const cleave_allocator g_allocator = {backing_alloc, backing_free, NULL};

/* Holds `thread` at its next backing free. */
static void hold_next_free(pthread_t thread) {
  pthread_mutex_lock(&g_backing.lock);
  g_backing.hold_thread = thread;
  g_backing.held = 0;
  g_backing.resumed = 0;
  atomic_store_explicit(&g_backing.armed, 1, memory_order_relaxed);
  pthread_mutex_unlock(&g_backing.lock);
}

static void wait_until_held(void) {
  pthread_mutex_lock(&g_backing.lock);
  while (!g_backing.held) {
    pthread_cond_wait(&g_backing.changed, &g_backing.lock);
  }
  pthread_mutex_unlock(&g_backing.lock);
}

static void resume_held(void) {
  pthread_mutex_lock(&g_backing.lock);
  g_backing.resumed = 1;
  pthread_cond_broadcast(&g_backing.changed);
  pthread_mutex_unlock(&g_backing.lock);
}

/* Called between tests, with no other thread running. */
static void reset_counts(void) {
  atomic_store(&g_backing.allocs, 0);
  atomic_store(&g_backing.frees, 0);
}

/* Every block the arena took from the backing allocator went back to it (after the threads that
 * freed them were joined). */
static void assert_all_returned(size_t allocs) {
  assert_int_equal(atomic_load(&g_backing.allocs), allocs);
  assert_int_equal(atomic_load(&g_backing.frees), allocs);
}

/* ---- threads that free one block, or several at a signal ----------------------------------- */

typedef struct freer {
  cleave_allocator alloc;
  void *blocks[MAX_BLOCKS];
  size_t sizes[MAX_BLOCKS];
  size_t count;
  pthread_barrier_t *start; /* NULL: start at once */
} freer;

static void *free_blocks(void *arg) {
  freer *f = arg;
  if (f->start != NULL) {
    pthread_barrier_wait(f->start);
  }
  for (size_t i = 0; i < f->count; i++) {
    f->alloc.free(f->blocks[i], f->sizes[i], f->alloc.user);
  }
  return NULL;
}

static cleave_arena *make_arena(size_t limit) {
  cleave_arena *arena = NULL;
  cleave_error err;
  assert_int_equal(cleave_arena_create(limit, &g_allocator, &arena, &err), CLEAVE_OK);
  return arena;
}

static void *take(cleave_allocator *a, size_t size) {
  void *p = a->alloc(size, 64, a->user);
  assert_non_null(p);
  memset(p, 0x3C, size);
  return p;
}

/*
 * A thread frees a block that evicts two kept ones, and is held while releasing the first of
 * them (outside the arena's lock); the owner then destroys the arena, which ends it, since no
 * block is in use any more. The thread then releases the second evicted block: it must not read
 * the arena to do so.
 */
static void test_evicting_free_during_destroy(void **state) {
  (void)state;
  reset_counts();
  /* Three kept blocks of a page fill the limit; a freed block of two pages evicts two. */
  cleave_arena *arena = make_arena(3 * PAGE);
  cleave_allocator a = cleave_arena_allocator(arena);
  void *kept[3];
  for (int i = 0; i < 3; i++) {
    kept[i] = take(&a, PAGE);
  }
  pthread_barrier_t start;
  assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
  freer worker = {a, {take(&a, 2 * PAGE)}, {2 * PAGE}, 1, &start};
  for (int i = 0; i < 3; i++) {
    a.free(kept[i], PAGE, a.user);
  }
  cleave_arena_stats s = cleave_arena_get_stats(arena);
  assert_int_equal(s.kept_blocks, 3);
  assert_int_equal(s.used_blocks, 1);
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, free_blocks, &worker), 0);
  hold_next_free(thread);
  pthread_barrier_wait(&start);
  wait_until_held();
  /* The worker's block is kept, two older ones are on their way out: nothing is in use. */
  cleave_arena_destroy(arena);
  resume_held();
  pthread_join(thread, NULL);
  pthread_barrier_destroy(&start);
  assert_all_returned(4);
}

/* Frees the worker's blocks once the owner is held, then lets the owner go on. */
static void *free_while_owner_held(void *arg) {
  wait_until_held();
  free_blocks(arg);
  resume_held();
  return NULL;
}

/*
 * The owner destroys the arena while a block is still in use, and is held while releasing the
 * kept blocks (outside the lock); a thread then frees the block in use, which ends the arena.
 * The owner then releases the rest of the kept blocks: it must not read the arena to do so.
 */
static void test_last_free_during_destroy(void **state) {
  (void)state;
  reset_counts();
  cleave_arena *arena = make_arena(64 * PAGE);
  cleave_allocator a = cleave_arena_allocator(arena);
  void *kept[3];
  for (int i = 0; i < 3; i++) {
    kept[i] = take(&a, PAGE);
  }
  freer worker = {a, {take(&a, PAGE)}, {PAGE}, 1, NULL};
  for (int i = 0; i < 3; i++) {
    a.free(kept[i], PAGE, a.user);
  }
  hold_next_free(pthread_self());
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, free_while_owner_held, &worker), 0);
  cleave_arena_destroy(arena);
  pthread_join(thread, NULL);
  assert_all_returned(4);
}

/*
 * After a destroy with blocks in use, several threads free their last blocks at once: exactly
 * one of them ends the arena, and the others must not read it after leaving its lock.
 */
static void test_concurrent_last_frees(void **state) {
  (void)state;
  for (int round = 0; round < RACE_ROUNDS; round++) {
    reset_counts();
    cleave_arena *arena = make_arena(64 * PAGE);
    cleave_allocator a = cleave_arena_allocator(arena);
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, RACE_THREADS), 0);
    freer workers[RACE_THREADS];
    for (int t = 0; t < RACE_THREADS; t++) {
      workers[t] = (freer){a, {take(&a, PAGE)}, {PAGE}, 1, &start};
    }
    cleave_arena_destroy(arena);
    pthread_t threads[RACE_THREADS];
    for (int t = 0; t < RACE_THREADS; t++) {
      assert_int_equal(pthread_create(&threads[t], NULL, free_blocks, &workers[t]), 0);
    }
    for (int t = 0; t < RACE_THREADS; t++) {
      pthread_join(threads[t], NULL);
    }
    pthread_barrier_destroy(&start);
    assert_all_returned(RACE_THREADS);
  }
}

/* An argument runs only the tests whose names match it (cmocka's filter, * as a wildcard). */
int main(int argc, char **argv) {
  if (argc > 1) {
    cmocka_set_test_filter(argv[1]);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_evicting_free_during_destroy),
      cmocka_unit_test(test_last_free_during_destroy),
      cmocka_unit_test(test_concurrent_last_frees),
  };
  return cmocka_run_group_tests_name("arena_release", tests, NULL, NULL);
}
