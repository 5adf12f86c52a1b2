/*
 * The output arena on one thread: size classes, reuse, the byte limit (never exceeded, oldest
 * evicted first), trimming, the fallback when the backing allocator has no memory, and
 * destruction while blocks are still in use.
 */
#include "kernel_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A backing allocator that counts, and can be told to fail. */
typedef struct backing {
  int allocs, frees, failing; /* failing: refuse while `live` bytes are above `fail_above` */
  size_t live, fail_above;
} backing;

static void *backing_alloc(size_t size, size_t alignment, void *user) {
  backing *b = user;
  assert_int_equal(alignment, 4096); /* the arena's blocks are page-aligned */
  if (b->failing && b->live + size > b->fail_above) {
    return NULL;
  }
  void *p = aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  assert_non_null(p);
  b->allocs++;
  b->live += size;
  return p;
}

static void backing_free(void *ptr, size_t size, void *user) {
  backing *b = user;
  assert_true(b->live >= size);
  b->live -= size;
  b->frees++;
  free(ptr);
}

static cleave_arena *make_arena(size_t limit, backing *b) {
  memset(b, 0, sizeof *b);
  cleave_allocator back = {backing_alloc, backing_free, b};
  cleave_arena *arena = NULL;
  cleave_error err;
  assert_int_equal(cleave_arena_create(limit, &back, &arena, &err), CLEAVE_OK);
  assert_int_equal(err.status, CLEAVE_OK);
  assert_non_null(arena);
  return arena;
}

#define KIB ((size_t)1024)

static void test_create_errors(void **state) {
  (void)state;
  cleave_error err;
  assert_int_equal(cleave_arena_create(0, NULL, NULL, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "arena"));
  cleave_arena *arena = (cleave_arena *)&err;
  cleave_allocator half = {backing_alloc, NULL, NULL};
  assert_int_equal(cleave_arena_create(0, &half, &arena, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "free function is NULL"));
  assert_null(arena);
  cleave_allocator other = {NULL, backing_free, NULL};
  assert_int_equal(cleave_arena_create(0, &other, &arena, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_non_null(strstr(err.message, "alloc function is NULL"));
  /* NULL arena everywhere is harmless. */
  cleave_arena_destroy(NULL);
  assert_int_equal(cleave_arena_trim(NULL, 0), 0);
  cleave_arena_stats st = cleave_arena_get_stats(NULL);
  assert_int_equal(st.limit_bytes, 0);
}

static void test_reuse_by_class(void **state) {
  (void)state;
  backing b;
  cleave_arena *arena = make_arena(1 << 20, &b);
  cleave_allocator a = cleave_arena_allocator(arena);
  /* 5000 bytes take a class of two pages: 8000 bytes fit it, 9000 do not. */
  unsigned char *p = a.alloc(5000, 64, a.user);
  assert_non_null(p);
  assert_int_equal((uintptr_t)p % 4096, 0);
  memset(p, 1, 5000);
  a.free(p, 5000, a.user);
  cleave_arena_stats st = cleave_arena_get_stats(arena);
  assert_int_equal(st.kept_blocks, 1);
  assert_int_equal(st.kept_bytes, 8 * KIB);
  assert_int_equal(st.used_blocks, 0);
  unsigned char *q = a.alloc(9000, 64, a.user);
  assert_true(q != p);
  unsigned char *r = a.alloc(8000, 4096, a.user);
  assert_ptr_equal(r, p);
  memset(r, 2, 8000);
  st = cleave_arena_get_stats(arena);
  assert_int_equal(st.reused, 1);
  assert_int_equal(st.allocated, 2);
  assert_int_equal(st.used_blocks, 2);
  assert_int_equal(st.used_bytes, 8 * KIB + 12 * KIB);
  assert_int_equal(st.kept_blocks, 0);
  a.free(q, 9000, a.user);
  a.free(r, 8000, a.user);
  /* Above 64 KiB, classes are eighths of a doubling: 1 MiB + 1 takes 1.125 MiB, which also
   * serves 1.1 MiB but not 1.2 MiB. */
  size_t mib = 1024 * KIB;
  p = a.alloc(mib + 1, 64, a.user);
  a.free(p, mib + 1, a.user);
  st = cleave_arena_get_stats(arena);
  /* 1.125 MiB is above the 1 MiB limit: not kept. */
  assert_int_equal(st.kept_blocks, 2);
  assert_int_equal(st.kept_bytes, 20 * KIB);
  cleave_arena_destroy(arena);
  assert_int_equal(b.allocs, b.frees);
  assert_int_equal(b.live, 0);

  arena = make_arena(4 * mib, &b);
  a = cleave_arena_allocator(arena);
  p = a.alloc(mib + 1, 64, a.user);
  a.free(p, mib + 1, a.user);
  assert_int_equal(cleave_arena_get_stats(arena).kept_bytes, mib + mib / 8);
  q = a.alloc(mib + mib / 10, 64, a.user);
  assert_ptr_equal(q, p);
  r = a.alloc(mib + mib / 5, 64, a.user);
  assert_true(r != p);
  a.free(q, mib + mib / 10, a.user);
  a.free(r, mib + mib / 5, a.user);
  /* Alignments above a page are refused (the library never asks them). */
  assert_null(a.alloc(64, 8192, a.user));
  assert_null(a.alloc(64, 48, a.user));
  cleave_arena_destroy(arena);
  assert_int_equal(b.allocs, b.frees);
  assert_int_equal(b.live, 0);
}

static void test_limit_and_trim(void **state) {
  (void)state;
  backing b;
  const size_t block = 64 * KIB, limit = 5 * block + block / 2;
  cleave_arena *arena = make_arena(limit, &b);
  cleave_allocator a = cleave_arena_allocator(arena);
  void *p[12];
  for (int i = 0; i < 12; i++) {
    p[i] = a.alloc(block, 64, a.user);
    assert_non_null(p[i]);
  }
  assert_int_equal(b.allocs, 12);
  for (int i = 0; i < 12; i++) {
    a.free(p[i], block, a.user);
    cleave_arena_stats st = cleave_arena_get_stats(arena);
    assert_true(st.kept_bytes <= limit);
    assert_int_equal(st.kept_bytes, st.kept_blocks * block);
    assert_int_equal(st.kept_blocks, (size_t)(i + 1 < 5 ? i + 1 : 5));
  }
  /* The 7 oldest went back; the 5 newest (p[7..11]) are kept and come back newest first. */
  assert_int_equal(b.frees, 7);
  void *again = a.alloc(block, 64, a.user);
  assert_ptr_equal(again, p[11]);
  a.free(again, block, a.user);
  /* Trimming to 2 blocks releases the 3 oldest. */
  assert_int_equal(cleave_arena_trim(arena, 2 * block), 3 * block);
  cleave_arena_stats st = cleave_arena_get_stats(arena);
  assert_int_equal(st.kept_blocks, 2);
  assert_int_equal(b.frees, 10);
  assert_int_equal(cleave_arena_trim(arena, 2 * block), 0);
  assert_int_equal(cleave_arena_trim(arena, 0), 2 * block);
  assert_int_equal(cleave_arena_get_stats(arena).kept_bytes, 0);
  assert_int_equal(b.frees, 12);
  cleave_arena_destroy(arena);
  assert_int_equal(b.live, 0);

  /* A limit of 0 keeps nothing. */
  arena = make_arena(0, &b);
  a = cleave_arena_allocator(arena);
  void *x = a.alloc(100, 64, a.user);
  a.free(x, 100, a.user);
  assert_int_equal(cleave_arena_get_stats(arena).kept_blocks, 0);
  assert_int_equal(b.frees, 1);
  cleave_arena_destroy(arena);
}

/* When the backing allocator is out of memory, the kept blocks are released and it is asked
 * again; when that fails too, NULL. */
static void test_backing_out_of_memory(void **state) {
  (void)state;
  backing b;
  cleave_arena *arena = make_arena(1 << 20, &b);
  cleave_allocator a = cleave_arena_allocator(arena);
  void *p = a.alloc(256 * KIB, 64, a.user);
  a.free(p, 256 * KIB, a.user);
  assert_int_equal(b.live, 256 * KIB);
  b.failing = 1;
  b.fail_above = 300 * KIB;
  void *q = a.alloc(128 * KIB, 64, a.user);
  assert_non_null(q); /* after releasing the kept 256 KiB */
  cleave_arena_stats st = cleave_arena_get_stats(arena);
  assert_int_equal(st.kept_blocks, 0);
  assert_int_equal(st.used_bytes, 128 * KIB);
  assert_null(a.alloc(512 * KIB, 64, a.user));
  st = cleave_arena_get_stats(arena);
  assert_int_equal(st.used_blocks, 1);
  a.free(q, 128 * KIB, a.user);
  cleave_arena_destroy(arena);
  assert_int_equal(b.live, 0);
}

/* Destroying an arena with blocks in use: they stay valid and go back to the backing allocator
 * when freed; the arena itself goes with the last one (ASan and valgrind see any leak). */
static void test_destroy_while_in_use(void **state) {
  (void)state;
  backing b;
  cleave_arena *arena = make_arena(1 << 20, &b);
  cleave_allocator a = cleave_arena_allocator(arena);
  unsigned char *p = a.alloc(10000, 64, a.user);
  unsigned char *q = a.alloc(70000, 64, a.user);
  void *kept = a.alloc(3000, 64, a.user);
  a.free(kept, 3000, a.user);
  cleave_arena_destroy(arena);
  assert_int_equal(b.frees, 1); /* the kept block */
  memset(p, 7, 10000);
  memset(q, 8, 70000);
  a.free(p, 10000, a.user);
  assert_int_equal(b.frees, 2);
  a.free(q, 70000, a.user);
  assert_int_equal(b.frees, 3);
  assert_int_equal(b.live, 0);
}

/* Outputs of a plan from an arena outlive the arena's destruction. */
static void test_outputs_outlive_destroy(void **state) {
  (void)state;
  int64_t axis = 0, shape[1] = {1000};
  cleave_op op = cleave_op_split(&axis, 4);
  cleave_plan *plan = NULL;
  assert_int_equal(cleave_plan_create(&op, cleave_type_of(CLEAVE_U8), shape, 1, &plan, NULL),
                   CLEAVE_OK);
  unsigned char in[1000];
  kc_fill(in, sizeof in, 3);
  backing b;
  cleave_arena *arena = make_arena(1 << 20, &b);
  cleave_allocator a = cleave_arena_allocator(arena);
  void *outs[4];
  assert_int_equal(cleave_plan_run_alloc_with(plan, in, NULL, &a, outs, NULL), CLEAVE_OK);
  cleave_arena_destroy(arena);
  for (int i = 0; i < 4; i++) {
    assert_memory_equal(outs[i], in + 250 * i, 250);
  }
  cleave_outputs_free(outs, 4);
  assert_int_equal(b.allocs, 1);
  assert_int_equal(b.frees, 1);
  cleave_plan_destroy(plan);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_errors),        cmocka_unit_test(test_reuse_by_class),
      cmocka_unit_test(test_limit_and_trim),       cmocka_unit_test(test_backing_out_of_memory),
      cmocka_unit_test(test_destroy_while_in_use), cmocka_unit_test(test_outputs_outlive_destroy),
  };
  return cmocka_run_group_tests_name("arena", tests, NULL, NULL);
}
