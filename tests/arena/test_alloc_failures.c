/*
 * Every allocating entry point of the library (the public functions whose name ends in `_alloc`
 * or `_alloc_with`: cleave_plan_run_alloc, cleave_plan_run_alloc_with,
 * cleave_concat_plan_run_alloc) keeps the header's promise on each of its failure paths: the
 * status and message, the caller's result pointers set to NULL (a NULL plan's included, except
 * the split's array whose length only the plan knows), nothing left allocated, and the allocator
 * asked for nothing when the arguments are wrong. The failures: NULL arguments, inputs that do not
 * fit the plan, allocators without their functions, an allocator out of memory, an arena whose
 * backing is out of memory (with and without kept blocks), sizes that overflow, with and without
 * a cleave_error and with threads.
 */
#include "kernel_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- an allocator that fails on request and counts what is live ----------------------------- */

typedef struct tally {
  int allocs, frees, live, fail;
} tally;

static void *tally_alloc(size_t size, size_t alignment, void *user) {
  tally *t = user;
  t->allocs++;
  if (t->fail) {
    return NULL;
  }
  void *p = aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  assert_non_null(p);
  t->live++;
  return p;
}

static void tally_free(void *ptr, size_t size, void *user) {
  (void)size;
  tally *t = user;
  t->frees++;
  t->live--;
  free(ptr);
}

/* ---- the entry points, each behind one signature ------------------------------------------- */

/* The plans an entry point runs: a split of a [rows] u8 tensor in two, or a concat of two such
 * tensors; `results` holds the two outputs of a split or the one of a concat. */
typedef struct entry {
  const char *name;
  int takes_allocator;
  size_t results;
  cleave_status (*run)(const void *plan, const void *input, const cleave_exec *exec,
                       const cleave_allocator *a, void **results, cleave_error *err);
  void *(*make)(int64_t rows);
  void (*destroy)(void *plan);
} entry;

static cleave_status run_split(const void *plan, const void *input, const cleave_exec *exec,
                               const cleave_allocator *a, void **results, cleave_error *err) {
  (void)a;
  return cleave_plan_run_alloc(plan, input, exec, results, err);
}

static cleave_status run_split_with(const void *plan, const void *input, const cleave_exec *exec,
                                    const cleave_allocator *a, void **results, cleave_error *err) {
  return cleave_plan_run_alloc_with(plan, input, exec, a, results, err);
}

static cleave_status run_concat(const void *plan, const void *input, const cleave_exec *exec,
                                const cleave_allocator *a, void **results, cleave_error *err) {
  /* Both inputs of the concat are the one buffer `input` (NULL: both NULL). */
  const void *inputs[2] = {input, input};
  return cleave_concat_plan_run_alloc(plan, inputs, exec, a, results, err);
}

static void *make_split(int64_t rows) {
  int64_t axis = 0;
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U8), &rows, 1, &plan, NULL),
                   CLEAVE_OK);
  return plan;
}

static void *make_concat(int64_t rows) {
  int64_t axis = 0;
  cleave_concat_op op = cleave_op_concat(&axis);
  cleave_tensor in[2] = {{NULL, cleave_type_of(CLEAVE_U8), 1, &rows},
                         {NULL, cleave_type_of(CLEAVE_U8), 1, &rows}};
  cleave_concat_plan *plan = NULL;
  assert_int_equal(cleave_concat_plan_create(&op, in, 2, NULL, &plan, NULL), CLEAVE_OK);
  return plan;
}

static void destroy_split(void *plan) {
  cleave_plan_destroy(plan);
}

static void destroy_concat(void *plan) {
  cleave_concat_plan_destroy(plan);
}

static const entry entries[] = {
    {"cleave_plan_run_alloc", 0, 2, run_split, make_split, destroy_split},
    {"cleave_plan_run_alloc_with", 1, 2, run_split_with, make_split, destroy_split},
    {"cleave_concat_plan_run_alloc", 1, 1, run_concat, make_concat, destroy_concat},
};
#define ENTRY_COUNT (sizeof entries / sizeof entries[0])

/* A pointer the results hold before a failing call: it must be replaced by NULL. */
static char stale;

static void fill(void **results, size_t n) {
  for (size_t i = 0; i < n; i++) {
    results[i] = &stale;
  }
}

static void assert_cleared(const entry *e, void **results) {
  for (size_t i = 0; i < e->results; i++) {
    if (results[i] != NULL) {
      fail_msg("%s: result %zu is %p after a failure, not NULL", e->name, i, results[i]);
    }
  }
}

/* Runs e with the arguments given, expecting `status` and a message holding `fragment`, the
 * results NULL, with and without a cleave_error. */
static void expect_failure(const entry *e, const void *plan, const void *input,
                           const cleave_exec *exec, const cleave_allocator *a, cleave_status status,
                           const char *fragment) {
  void *results[2];
  cleave_error err;
  fill(results, 2);
  cleave_status got = e->run(plan, input, exec, a, results, &err);
  if (got != status || err.status != status || strstr(err.message, fragment) == NULL) {
    fail_msg("%s: status %d (%s), expected %d with '%s'", e->name, (int)got, err.message,
             (int)status, fragment);
  }
  assert_cleared(e, results);
  fill(results, 2);
  assert_int_equal(e->run(plan, input, exec, a, results, NULL), status);
  assert_cleared(e, results);
}

/* ---- the tests ------------------------------------------------------------------------------ */

static void test_null_arguments(void **state) {
  (void)state;
  unsigned char data[64] = {0};
  for (size_t k = 0; k < ENTRY_COUNT; k++) {
    const entry *e = &entries[k];
    tally t = {0};
    cleave_allocator a = {tally_alloc, tally_free, &t};
    const cleave_allocator *alloc = e->takes_allocator ? &a : NULL;
    void *plan = e->make(64);
    void *results[2];
    cleave_error err;
    /* A NULL plan: the concat's result is NULL; the split's array, whose length the plan
     * gives, is left as it was (the header says so). */
    fill(results, 2);
    assert_int_equal(e->run(NULL, data, NULL, alloc, results, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "the plan is NULL");
    if (e->results == 1) {
      assert_null(results[0]);
    } else {
      assert_ptr_equal(results[0], &stale);
      assert_ptr_equal(results[1], &stale);
    }
    /* No place for the results. */
    assert_int_equal(e->run(plan, data, NULL, alloc, NULL, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "NULL"));
    /* An input NULL but not empty. */
    expect_failure(e, plan, NULL, NULL, alloc, CLEAVE_ERROR_INVALID_ARGUMENT, "NULL");
    /* None of it asked the allocator for anything. */
    assert_int_equal(t.allocs, 0);
    /* The same pointers then work, and the block goes back. */
    fill(results, 2);
    assert_int_equal(e->run(plan, data, NULL, alloc, results, &err), CLEAVE_OK);
    assert_non_null(results[0]);
    cleave_outputs_free(results, e->results);
    assert_null(results[0]);
    assert_int_equal(t.live, 0);
    e->destroy(plan);
  }
}

static void test_allocators_without_functions(void **state) {
  (void)state;
  unsigned char data[64] = {0};
  tally t = {0};
  const cleave_allocator halves[3] = {
      {tally_alloc, NULL, &t}, {NULL, tally_free, &t}, cleave_arena_allocator(NULL)};
  const char *const says[3] = {"free function is NULL", "alloc function is NULL",
                               "alloc function is NULL"};
  for (size_t k = 0; k < ENTRY_COUNT; k++) {
    const entry *e = &entries[k];
    if (!e->takes_allocator) {
      continue;
    }
    void *plan = e->make(64);
    for (int h = 0; h < 3; h++) {
      expect_failure(e, plan, data, NULL, &halves[h], CLEAVE_ERROR_INVALID_ARGUMENT, says[h]);
    }
    e->destroy(plan);
  }
  assert_int_equal(t.allocs, 0);
}

static void test_out_of_memory(void **state) {
  (void)state;
  unsigned char data[4096] = {0};
  cleave_threadpool *pool = NULL;
  assert_int_equal(cleave_threadpool_create(2, &pool, NULL), CLEAVE_OK);
  const cleave_exec threads = cleave_exec_threadpool(pool);
  const cleave_exec *execs[2] = {NULL, &threads};
  for (size_t k = 0; k < ENTRY_COUNT; k++) {
    const entry *e = &entries[k];
    for (int x = 0; x < 2; x++) {
      /* The caller's allocator has no memory: one request, refused, nothing live. */
      if (e->takes_allocator) {
        void *plan = e->make(4096);
        tally t = {0};
        t.fail = 1;
        cleave_allocator a = {tally_alloc, tally_free, &t};
        expect_failure(e, plan, data, execs[x], &a, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate");
        assert_int_equal(t.allocs, 2);
        assert_int_equal(t.frees, 0);
        e->destroy(plan);
      }
      /* The system allocator cannot give 2^62 bytes (the data is never read). */
      void *big = e->make((int64_t)1 << 61);
      expect_failure(e, big, data, execs[x], NULL, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate");
      e->destroy(big);
    }
  }
  cleave_threadpool_destroy(pool);
}

static void test_arena_without_memory(void **state) {
  (void)state;
  unsigned char data[1 << 16] = {0};
  for (size_t k = 0; k < ENTRY_COUNT; k++) {
    const entry *e = &entries[k];
    if (!e->takes_allocator) {
      continue;
    }
    for (size_t limit = 0; limit <= ((size_t)1 << 20); limit += (size_t)1 << 20) {
      tally t = {0};
      cleave_allocator backing = {tally_alloc, tally_free, &t};
      cleave_arena *arena = NULL;
      assert_int_equal(cleave_arena_create(limit, &backing, &arena, NULL), CLEAVE_OK);
      cleave_allocator from_arena = cleave_arena_allocator(arena);
      /* A small run whose block the arena keeps (when its limit allows), then a larger one the
       * backing cannot supply: the arena gives back what it keeps, asks again, and fails. */
      void *small = e->make(64);
      void *results[2];
      assert_int_equal(e->run(small, data, NULL, &from_arena, results, NULL), CLEAVE_OK);
      cleave_outputs_free(results, e->results);
      assert_int_equal(cleave_arena_get_stats(arena).kept_blocks, limit > 0 ? 1 : 0);
      void *large = e->make(1 << 15);
      t.fail = 1;
      expect_failure(e, large, data, NULL, &from_arena, CLEAVE_ERROR_OUT_OF_MEMORY,
                     "cannot allocate");
      cleave_arena_stats st = cleave_arena_get_stats(arena);
      assert_int_equal(st.used_blocks, 0);
      assert_int_equal(st.used_bytes, 0);
      assert_int_equal(st.kept_blocks, 0);
      assert_int_equal(t.live, 0);
      /* Once the backing has memory again, the same call succeeds. */
      t.fail = 0;
      assert_int_equal(e->run(large, data, NULL, &from_arena, results, NULL), CLEAVE_OK);
      cleave_outputs_free(results, e->results);
      cleave_arena_destroy(arena);
      assert_int_equal(t.live, 0);
      e->destroy(small);
      e->destroy(large);
    }
  }
}

static void test_sizes_that_overflow(void **state) {
  (void)state;
  /* Seven outputs of INT64_MAX / 7 bytes each: their aligned sizes pass 2^63-1 (the split; a
   * concat's output size is checked when its plan is made). The data is never read. */
  int64_t axis = 0, huge = INT64_MAX;
  cleave_op seven = cleave_op_split(&axis, 7);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&seven, cleave_type_of(CLEAVE_U8), &huge, 1, &plan, NULL),
                   CLEAVE_OK);
  tally t = {0};
  cleave_allocator a = {tally_alloc, tally_free, &t};
  void *results[7];
  cleave_error err;
  for (int with = 0; with < 2; with++) {
    fill(results, 7);
    cleave_status st = with ? cleave_plan_run_alloc_with(plan, &huge, NULL, &a, results, &err)
                            : cleave_plan_run_alloc(plan, &huge, NULL, results, &err);
    assert_int_equal(st, CLEAVE_ERROR_OVERFLOW);
    for (int i = 0; i < 7; i++) {
      assert_null(results[i]);
    }
  }
  assert_int_equal(t.allocs, 0);
  cleave_plan_destroy(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_allocators_without_functions),
      cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_arena_without_memory),
      cmocka_unit_test(test_sizes_that_overflow),
  };
  return cmocka_run_group_tests_name("alloc_failures", tests, NULL, NULL);
}
