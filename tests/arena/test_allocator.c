/*
 * The allocating calls with a caller's allocator: every output equals the reference (and the
 * caller-buffer run), one `alloc` and one matching `free` per run with the requested alignment,
 * the schedules for fresh and reused memory, and failures that leave nothing allocated.
 */
#define _DEFAULT_SOURCE 1 /* mmap's MAP_ANONYMOUS */

#include "kernel_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- a counting allocator ----------------------------------------------------------------- */

#define MAX_LIVE 16

typedef struct counting {
  int allocs, frees, fail_next;
  int map_fresh; /* hand out freshly mapped (never touched) memory */
  size_t last_alignment;
  void *live[MAX_LIVE];
  size_t live_size[MAX_LIVE];
  int num_live;
} counting;

static void *counting_alloc(size_t size, size_t alignment, void *user) {
  counting *c = user;
  assert_true(size >= 1);
  assert_true(alignment >= 1 && (alignment & (alignment - 1)) == 0);
  assert_true(alignment <= CLEAVE_ALLOCATOR_MAX_ALIGNMENT);
  c->allocs++;
  c->last_alignment = alignment;
  if (c->fail_next) {
    return NULL;
  }
  void *p = NULL;
  if (c->map_fresh) {
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
  } else {
    p = aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    assert_non_null(p);
  }
  assert_true(c->num_live < MAX_LIVE);
  c->live[c->num_live] = p;
  c->live_size[c->num_live] = size;
  c->num_live++;
  return p;
}

static void counting_free(void *ptr, size_t size, void *user) {
  counting *c = user;
  c->frees++;
  for (int i = 0; i < c->num_live; i++) {
    if (c->live[i] == ptr) {
      /* Freed with the size it was allocated with. */
      assert_int_equal(c->live_size[i], size);
      c->live[i] = c->live[c->num_live - 1];
      c->live_size[i] = c->live_size[c->num_live - 1];
      c->num_live--;
      if (c->map_fresh) {
        munmap(ptr, size);
      } else {
        free(ptr);
      }
      return;
    }
  }
  fail_msg("free of a block the allocator never handed out: %p", ptr);
}

static cleave_allocator counting_allocator(counting *c) {
  memset(c, 0, sizeof *c);
  cleave_allocator a = {counting_alloc, counting_free, c};
  return a;
}

/* ---- a parallel-for that counts its tasks (it runs them in reverse on this thread) --------- */

#define MAX_CALLS 4

typedef struct task_count {
  size_t calls, tasks;
  size_t tasks_of_call[MAX_CALLS]; /* the tasks of each of the first calls */
} task_count;

static void counting_for(void *ctx, cleave_task_fn task, void *task_ctx, size_t count) {
  task_count *t = ctx;
  if (t->calls < MAX_CALLS) {
    t->tasks_of_call[t->calls] = count;
  }
  t->calls++;
  t->tasks += count;
  for (size_t i = count; i-- > 0;) {
    task(task_ctx, i);
  }
}

/* ---- the check ------------------------------------------------------------------------------ */

/* Runs `c` through cleave_plan_run_alloc_with(allocator) and checks every output against the
 * reference, then frees. `exec` NULL: a counting parallel-for announcing 2 threads. Returns the
 * parallel-for calls and tasks made. */
static task_count check_case_counted(const kc_case *c, const cleave_plan_options *options,
                                     const cleave_exec *exec, const cleave_allocator *allocator,
                                     unsigned seed) {
  size_t total = c->esize;
  for (size_t k = 0; k < c->rank; k++) {
    total *= (size_t)c->shape[k];
  }
  unsigned char *in_raw = aligned_alloc(64, (total + 64 + 63) / 64 * 64);
  assert_non_null(in_raw);
  unsigned char *in = in_raw + c->in_misalign;
  kc_fill(in, total, seed);
  cleave_plan *plan = NULL;
  assert_int_equal(
      cleave_plan_create_with(&c->op, c->type, c->shape, c->rank, options, &plan, NULL), CLEAVE_OK);
  void *outs[KC_MAX_OUTPUTS];
  cleave_error err;
  task_count tc = {0, 0, {0}};
  cleave_exec counted = {counting_for, &tc, 2};
  const cleave_exec *run_exec = exec != NULL ? exec : &counted;
  assert_int_equal(cleave_plan_run_alloc_with(plan, in, run_exec, allocator, outs, &err),
                   CLEAVE_OK);
  assert_int_equal(err.status, CLEAVE_OK);
  kc_check_allocated(c, in, outs);
  cleave_outputs_free(outs, c->num_outputs);
  for (size_t i = 0; i < c->num_outputs; i++) {
    assert_null(outs[i]);
  }
  cleave_plan_destroy(plan);
  free(in_raw);
  return tc;
}

static size_t check_case(const kc_case *c, const cleave_plan_options *options,
                         const cleave_exec *exec, const cleave_allocator *allocator,
                         unsigned seed) {
  return check_case_counted(c, options, exec, allocator, seed).tasks;
}

/* Whether this system populates memory ahead of use (Linux 5.14's MADV_POPULATE_WRITE). Run as
 * arena.test_allocator_no_populate (CLEAVE_TEST_NO_POPULATE set, a preloaded madvise refusing
 * it), the answer must be no: otherwise that test would silently repeat this one. */
static int system_populates(void) {
  int ok = 0;
#if defined(MADV_POPULATE_WRITE)
  void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(p != MAP_FAILED);
  ok = madvise(p, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(p, 4096);
#endif
  if (getenv("CLEAVE_TEST_NO_POPULATE") != NULL) {
    assert_int_equal(ok, 0);
  }
  return ok;
}

static void test_values_and_ownership(void **state) {
  (void)state;
  int64_t axis0 = 0, axis1 = 1, lengths[1024];
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, NULL), CLEAVE_OK);
  cleave_exec pooled = cleave_exec_threadpool(pool);
  cleave_exec single = {NULL, NULL, 0};
  cleave_arena *arena = NULL;
  assert_int_equal(cleave_arena_create((size_t)64 << 20, NULL, &arena, NULL), CLEAVE_OK);
  cleave_allocator arena_alloc = cleave_arena_allocator(arena);
  counting cnt;
  cleave_allocator counted = counting_allocator(&cnt);
  const cleave_allocator *allocators[3] = {NULL, &counted, &arena_alloc};
  /* Thresholds of 0 put even small runs on streaming stores and threads, where the schedule for
   * reused memory differs from the one for fresh memory. */
  cleave_plan_options fast = cleave_plan_options_default();
  fast.nontemporal_bytes = 0;
  fast.parallel_bytes = 0;
  for (size_t f = 0; f < kc_num_families(); f++) {
    fast.kernels = kc_families[f];
    for (int a = 0; a < 3; a++) {
      for (int t = 0; t < 3; t++) {
        /* The calling thread only; the built-in pool; a counting parallel-for (NULL). */
        const cleave_exec *exec = t == 0 ? &single : t == 1 ? &pooled : NULL;
        const cleave_plan_options *opts = t == 2 ? &fast : NULL;
        unsigned seed = (unsigned)(f * 100 + (size_t)a * 10 + (size_t)t);
        /* Odd sizes on the heap. */
        int64_t s1[2] = {3, 7};
        kc_case c1 = kc_split_case(cleave_type_of(CLEAVE_U8), 1, s1, 2, 0, 3, lengths, &axis0);
        c1.in_misalign = 1;
        check_case(&c1, opts, exec, allocators[a], seed);
        /* Rows into many outputs (tiny kernels: 4-byte transposition). */
        int64_t s2[2] = {300, 64};
        kc_case c2 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s2, 2, 1, 64, lengths, &axis1);
        check_case(&c2, opts, exec, allocators[a], seed + 1);
        /* 6 MiB: mapped by the system allocator, one output of 1 MiB or more (page phase). */
        int64_t s3[2] = {6, 256 * 1024};
        kc_case c3 = kc_split_case(cleave_type_of(CLEAVE_F32), 4, s3, 2, 1, 4, lengths, &axis1);
        c3.in_misalign = 16;
        check_case(&c3, opts, exec, allocators[a], seed + 2);
        /* Run twice: the second run of the arena reuses the first block (stale bytes). */
        check_case(&c3, opts, exec, allocators[a], seed + 3);
        static const int64_t l4[4] = {0, 5, 0, 2};
        kc_case c4 = kc_make_case(cleave_op_variadic_split(&axis1, l4, 4),
                                  cleave_type_of(CLEAVE_I64), 8, (int64_t[]){9, 7}, 2, 1, l4, 4);
        check_case(&c4, opts, exec, allocators[a], seed + 4);
      }
    }
  }
  /* One alloc and one free of the same block per run, with a page alignment for the 6 MiB
   * case's large outputs and a line for the others; nothing left. */
  assert_int_equal(cnt.allocs, cnt.frees);
  assert_int_equal(cnt.allocs, (int)kc_num_families() * 3 * 5);
  assert_int_equal(cnt.num_live, 0);
  cleave_arena_stats st = cleave_arena_get_stats(arena);
  assert_int_equal(st.used_blocks, 0);
  assert_true(st.reused > 0);
  cleave_arena_destroy(arena);
  cleave_threadpool_destroy(pool);
}

static void test_alignment_asked(void **state) {
  (void)state;
  int64_t axis = 0;
  counting cnt;
  cleave_allocator counted = counting_allocator(&cnt);
  void *outs[2];
  const int64_t sizes[2] = {1000, (int64_t)4 << 20};
  const size_t expect[2] = {64, 4096};
  for (int k = 0; k < 2; k++) {
    int64_t shape[1] = {sizes[k]};
    cleave_op op = cleave_op_split(&axis, 2);
    cleave_plan *plan = NULL;
    assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U8), shape, 1, &plan, NULL),
                     CLEAVE_OK);
    unsigned char *in = calloc((size_t)sizes[k], 1);
    assert_non_null(in);
    assert_int_equal(cleave_plan_run_alloc_with(plan, in, NULL, &counted, outs, NULL), CLEAVE_OK);
    assert_int_equal(cnt.last_alignment, expect[k]);
    assert_int_equal(cnt.num_live, 1);
    /* The outputs lie inside the block the allocator handed out. */
    unsigned char *base = cnt.live[0];
    assert_true((unsigned char *)outs[0] >= base);
    assert_true((unsigned char *)outs[1] + sizes[k] / 2 <= base + cnt.live_size[0]);
    cleave_outputs_free(outs, 2);
    assert_int_equal(cnt.num_live, 0);
    free(in);
    cleave_plan_destroy(plan);
  }
}

/* Fresh memory is first made resident in a few long ranges per thread (8, of at least 2 MiB) and
 * then written with the plan's own schedule (tasks of an eighth of the parallel threshold, 512
 * KiB by default), as reused memory is. Where the system cannot populate memory, fresh memory is
 * written in those long ranges instead (each thread first-touches its own pages). */
static void expect_fresh(task_count tc, size_t ranges, size_t schedule) {
  if (system_populates()) {
    assert_int_equal(tc.calls, 2);
    assert_int_equal(tc.tasks_of_call[0], ranges);
    assert_int_equal(tc.tasks_of_call[1], schedule);
  } else {
    assert_int_equal(tc.calls, 1);
    assert_int_equal(tc.tasks_of_call[0], ranges);
  }
}

static void test_fresh_and_reused_schedules(void **state) {
  (void)state;
  int64_t axis = 1, lengths[4];
  int64_t shape[2] = {64, 64 * 1024}; /* 16 MiB of f32: 8 ranges of 2 MiB when fresh */
  kc_case c = kc_split_case(cleave_type_of(CLEAVE_F32), 4, shape, 2, 1, 4, lengths, &axis);
  counting cnt;
  cleave_allocator fresh = counting_allocator(&cnt);
  cnt.map_fresh = 1;
  expect_fresh(check_case_counted(&c, NULL, NULL, &fresh, 5), 8, 32);
  /* On the calling thread alone: populated in one call (or first touched by the copy). */
  cleave_exec single = {NULL, NULL, 0};
  check_case(&c, NULL, &single, &fresh, 9);
  cleave_arena *arena = NULL;
  assert_int_equal(cleave_arena_create((size_t)64 << 20, NULL, &arena, NULL), CLEAVE_OK);
  cleave_allocator reused = cleave_arena_allocator(arena);
  /* A new block: fresh pages. */
  expect_fresh(check_case_counted(&c, NULL, NULL, &reused, 6), 8, 32);
  /* The same block again: resident, the plan's schedule alone. */
  task_count again = check_case_counted(&c, NULL, NULL, &reused, 7);
  assert_int_equal(again.calls, 1);
  assert_int_equal(again.tasks, 32);
  assert_int_equal(cleave_arena_get_stats(arena).reused, 1);
  /* 64 MiB fresh: 16 ranges of 4 MiB (an eighth of each thread's half), then 128 tasks. */
  int64_t big[2] = {64, 256 * 1024};
  kc_case b = kc_split_case(cleave_type_of(CLEAVE_F32), 4, big, 2, 1, 4, lengths, &axis);
  expect_fresh(check_case_counted(&b, NULL, NULL, &fresh, 8), 16, 128);
  cleave_arena_destroy(arena);
}

/* Outputs of 0 bytes with threads allowed for any size (parallel_bytes 0): nothing to allocate
 * into or populate, a valid block all the same (this once divided by zero). */
static void test_empty_outputs_on_threads(void **state) {
  (void)state;
  int64_t axis = 0, shape[2] = {2, 0};
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_plan_options o = cleave_plan_options_default();
  o.parallel_bytes = 0;
  o.nontemporal_bytes = 0;
  cleave_plan *plan = NULL;
  assert_int_equal(
      cleave_plan_create_with(&op, cleave_type_of(CLEAVE_U8), shape, 2, &o, &plan, NULL),
      CLEAVE_OK);
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, NULL), CLEAVE_OK);
  cleave_exec pooled = cleave_exec_threadpool(pool);
  task_count tc = {0, 0, {0}};
  cleave_exec counted = {counting_for, &tc, 2};
  const cleave_exec *execs[2] = {&pooled, &counted};
  unsigned char in[1] = {0};
  for (int k = 0; k < 2; k++) {
    void *outs[2] = {NULL, NULL};
    cleave_error err;
    assert_int_equal(cleave_plan_run_alloc(plan, in, execs[k], outs, &err), CLEAVE_OK);
    assert_non_null(outs[0]);
    assert_non_null(outs[1]);
    cleave_outputs_free(outs, 2);
  }
  /* Nothing to copy or populate: no task handed out. */
  assert_int_equal(tc.tasks, 0);
  cleave_threadpool_destroy(pool);
  cleave_plan_destroy(plan);
}

static void test_failures_leave_nothing(void **state) {
  (void)state;
  int64_t axis = 0;
  cleave_error err;
  void *outs[8];
  counting cnt;
  cleave_allocator counted = counting_allocator(&cnt);
  int64_t shape[1] = {4096};
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U8), shape, 1, &plan, NULL),
                   CLEAVE_OK);
  unsigned char in[4096] = {0};

  /* The allocator has no memory: out of memory, outputs NULL, nothing to free. */
  cnt.fail_next = 1;
  outs[0] = outs[1] = &err;
  assert_int_equal(cleave_plan_run_alloc_with(plan, in, NULL, &counted, outs, &err),
                   CLEAVE_ERROR_OUT_OF_MEMORY);
  assert_int_equal(err.status, CLEAVE_ERROR_OUT_OF_MEMORY);
  assert_non_null(strstr(err.message, "cannot allocate"));
  assert_non_null(strstr(err.message, "2 outputs"));
  assert_null(outs[0]);
  assert_null(outs[1]);
  assert_int_equal(cnt.allocs, 1);
  assert_int_equal(cnt.frees, 0);
  assert_int_equal(cnt.num_live, 0);
  cnt.fail_next = 0;

  /* An allocator without one of its functions: refused before anything is asked of it. */
  cleave_allocator no_free = {counting_alloc, NULL, &cnt};
  outs[0] = outs[1] = &err;
  assert_int_equal(cleave_plan_run_alloc_with(plan, in, NULL, &no_free, outs, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "free function is NULL"));
  assert_null(outs[0]);
  assert_null(outs[1]);
  cleave_allocator no_alloc = {NULL, counting_free, &cnt};
  assert_int_equal(cleave_plan_run_alloc_with(plan, in, NULL, &no_alloc, outs, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "alloc function is NULL"));
  /* The allocator of a NULL arena has no functions: refused the same way. */
  cleave_allocator of_null = cleave_arena_allocator(NULL);
  assert_null(of_null.alloc);
  assert_null(of_null.free);
  assert_null(of_null.user);
  outs[0] = outs[1] = &err;
  assert_int_equal(cleave_plan_run_alloc_with(plan, in, NULL, &of_null, outs, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "alloc function is NULL"));
  assert_null(outs[0]);
  assert_null(outs[1]);
  /* NULL input for a non-empty tensor, NULL outputs array, NULL plan: nothing asked. */
  assert_int_equal(cleave_plan_run_alloc_with(plan, NULL, NULL, &counted, outs, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "input"));
  assert_int_equal(cleave_plan_run_alloc_with(plan, in, NULL, &counted, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "outputs"));
  assert_int_equal(cleave_plan_run_alloc_with(NULL, in, NULL, &counted, outs, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "plan"));
  assert_int_equal(cnt.allocs, 1);
  cleave_plan_destroy(plan);

  /* Sizes above 2^63-1 after placement: overflow, the allocator never called. */
  int64_t huge[1] = {INT64_MAX};
  cleave_op seven = cleave_op_split(&axis, 7);
  assert_int_equal(cleave_plan_create(&seven, cleave_type_of(CLEAVE_U8), huge, 1, &plan, NULL),
                   CLEAVE_OK);
  for (int i = 0; i < 7; i++) {
    outs[i] = &err;
  }
  assert_int_equal(cleave_plan_run_alloc_with(plan, huge, NULL, &counted, outs, &err),
                   CLEAVE_ERROR_OVERFLOW);
  assert_non_null(strstr(err.message, "7 outputs"));
  for (int i = 0; i < 7; i++) {
    assert_null(outs[i]);
  }
  assert_int_equal(cnt.allocs, 1);
  cleave_plan_destroy(plan);

  /* 2^62 bytes from an arena over the system allocator: out of memory, the arena holds nothing
   * in use and keeps what it kept. */
  int64_t big[1] = {(int64_t)1 << 62};
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U8), big, 1, &plan, NULL),
                   CLEAVE_OK);
  cleave_arena *arena = NULL;
  assert_int_equal(cleave_arena_create(1 << 20, NULL, &arena, NULL), CLEAVE_OK);
  cleave_allocator from_arena = cleave_arena_allocator(arena);
  outs[0] = outs[1] = &err;
  assert_int_equal(cleave_plan_run_alloc_with(plan, big, NULL, &from_arena, outs, &err),
                   CLEAVE_ERROR_OUT_OF_MEMORY);
  assert_null(outs[0]);
  assert_null(outs[1]);
  cleave_arena_stats st = cleave_arena_get_stats(arena);
  assert_int_equal(st.used_blocks, 0);
  assert_int_equal(st.used_bytes, 0);
  assert_int_equal(st.allocated, 0);
  cleave_arena_destroy(arena);
  cleave_plan_destroy(plan);
}

/* The system allocator on its own: alignment honoured, bad requests refused. */
static void test_system_allocator(void **state) {
  (void)state;
  cleave_allocator sys = cleave_allocator_system();
  assert_non_null(sys.alloc);
  assert_non_null(sys.free);
  assert_null(sys.user);
  const size_t sizes[3] = {1, 100000, (size_t)5 << 20};
  for (int i = 0; i < 3; i++) {
    for (size_t align = 1; align <= CLEAVE_ALLOCATOR_MAX_ALIGNMENT; align *= 4) {
      unsigned char *p = sys.alloc(sizes[i], align, sys.user);
      assert_non_null(p);
      assert_int_equal((uintptr_t)p % align, 0);
      memset(p, 0xA5, sizes[i]);
      sys.free(p, sizes[i], sys.user);
    }
  }
  assert_null(sys.alloc(0, 64, NULL));
  assert_null(sys.alloc(64, 3, NULL));
  assert_null(sys.alloc(64, 2 * CLEAVE_ALLOCATOR_MAX_ALIGNMENT, NULL));
  assert_null(sys.alloc(SIZE_MAX - 10, 64, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_values_and_ownership),
      cmocka_unit_test(test_alignment_asked),
      cmocka_unit_test(test_fresh_and_reused_schedules),
      cmocka_unit_test(test_empty_outputs_on_threads),
      cmocka_unit_test(test_failures_leave_nothing),
      cmocka_unit_test(test_system_allocator),
  };
  return cmocka_run_group_tests_name("allocator", tests, NULL, NULL);
}
