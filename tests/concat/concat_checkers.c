/* The concat tests' checkers (see concat_check.h): every entry point for one case. */
#include "concat_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared resources: a pool of 2 threads and an arena, released at exit ----------------- */

static cleave_threadpool *g_pool;
static cleave_arena *g_arena;

static void release_shared(void) {
  cleave_threadpool_destroy(g_pool);
  cleave_arena_destroy(g_arena);
}

static void ensure_shared(void) {
  if (g_pool == NULL) {
    assert_int_equal(cleave_threadpool_create(2, &g_pool, NULL), CLEAVE_OK);
    assert_int_equal(cleave_arena_create((size_t)1 << 24, NULL, &g_arena, NULL), CLEAVE_OK);
    atexit(release_shared);
  }
}

/* A parallel-for that runs the tasks on this thread in reverse order, counting its calls. */
static int g_custom_calls;
static void reverse_for(void *context, cleave_task_fn task, void *task_context, size_t count) {
  (void)context;
  g_custom_calls++;
  for (size_t i = count; i-- > 0;) {
    task(task_context, i);
  }
}

cleave_plan_options cc_options(cleave_kernels_choice family, int64_t nontemporal_bytes,
                               int64_t parallel_bytes, int64_t tiny_bytes) {
  cleave_plan_options o = cleave_plan_options_default();
  o.kernels = family;
  o.nontemporal_bytes = nontemporal_bytes;
  o.parallel_bytes = parallel_bytes;
  o.tiny_bytes = tiny_bytes;
  return o;
}

int cc_have_avx2(void) {
  cleave_plan_options o = cc_options(CLEAVE_KERNELS_AVX2, INT64_MAX, INT64_MAX, 64);
  int64_t axis = 0, shape[1] = {1};
  unsigned char byte = 0;
  cleave_tensor t = {&byte, cleave_type_of(CLEAVE_U8), 1, shape};
  cleave_concat_op op = cleave_op_concat(&axis);
  cleave_concat_plan *plan = NULL;
  if (cleave_concat_plan_create(&op, &t, 1, &o, &plan, NULL) != CLEAVE_OK) {
    return 0;
  }
  cleave_concat_plan_destroy(plan);
  return 1;
}

/* ---- output buffers ---------------------------------------------------------------------- */

/* A sentinel-filled buffer of `bytes` plus guard, `misalign` bytes past a line boundary. */
typedef struct guarded {
  unsigned char *base;
  unsigned char *at;
  size_t bytes;
} guarded;

static guarded guarded_make(size_t bytes, size_t misalign) {
  guarded g;
  g.bytes = bytes;
  g.base = malloc(bytes + CC_GUARD + 128);
  assert_non_null(g.base);
  memset(g.base, CC_SENTINEL, bytes + CC_GUARD + 128);
  g.at = g.base + ((64 - (uintptr_t)g.base % 64) % 64) + misalign;
  return g;
}

/* Whether the buffer holds `want` and every guard byte is intact. */
static int guarded_holds(const guarded *g, const unsigned char *want) {
  if (memcmp(g->at, want, g->bytes) != 0) {
    return 0;
  }
  for (size_t k = 0; k < CC_GUARD; k++) {
    if (g->at[g->bytes + k] != CC_SENTINEL) {
      return 0;
    }
  }
  return 1;
}

/* Whether no byte of the buffer changed. */
static int guarded_untouched(const guarded *g) {
  for (size_t k = 0; k < g->bytes + CC_GUARD; k++) {
    if (g->at[k] != CC_SENTINEL) {
      return 0;
    }
  }
  return 1;
}

/* ---- success ------------------------------------------------------------------------------ */

static void prefill(cleave_error *err) {
  err->status = (cleave_status)99;
  memset(err->message, 'x', sizeof err->message - 1);
  err->message[sizeof err->message - 1] = '\0';
}

static void check_ok(cleave_status st, const cleave_error *err, const char *via) {
  if (st != CLEAVE_OK) {
    print_error("%s: status %d, message \"%s\"\n", via, (int)st, err->message);
  }
  CC_CHECK(st == CLEAVE_OK);
  CC_CHECK(err->status == CLEAVE_OK && err->message[0] == '\0');
}

static void check_info(const cleave_concat_info *info, const cleave_tensor *inputs, size_t count,
                       const cc_expect *ex) {
  cc_elem e = cc_elem_of(inputs[0].type);
  CC_CHECK(info->axis == ex->axis);
  CC_CHECK(info->num_inputs == count);
  CC_CHECK(info->output_rank == ex->rank);
  CC_CHECK(info->new_axis == ex->stack);
  CC_CHECK(info->axis_dim == ex->shape[ex->axis]);
  CC_CHECK(info->output_bytes == (int64_t)cc_bytes(e, cc_count(ex->shape, ex->rank)));
  CC_CHECK(info->element_size == (int64_t)e.bytes);
  CC_CHECK(info->element_bits == e.bits);
}

/* Partial inference on the static shapes as points gives the static shape. */
static void check_partial_points(const cleave_concat_op *op, const cleave_tensor *inputs,
                                 size_t count, const cc_expect *ex) {
  cleave_partial_shape *shapes = calloc(count, sizeof *shapes);
  cleave_dim *dims = calloc(count * CC_MAX_RANK + 1, sizeof *dims);
  assert_non_null(shapes);
  assert_non_null(dims);
  for (size_t i = 0; i < count; i++) {
    for (size_t k = 0; k < inputs[i].rank; k++) {
      dims[i * CC_MAX_RANK + k] = cleave_dim_point(inputs[i].shape[k]);
    }
    shapes[i].rank = inputs[i].rank;
    shapes[i].dims = dims + i * CC_MAX_RANK;
  }
  cleave_partial_info info;
  cleave_dim out[CC_MAX_RANK + 2];
  cleave_error err;
  prefill(&err);
  cleave_status st = cleave_concat_infer_partial(op, CLEAVE_UNKNOWN_NONE, inputs[0].type, shapes,
                                                 count, &info, out, CC_MAX_RANK + 2, &err);
  check_ok(st, &err, "cleave_concat_infer_partial");
  CC_CHECK(info.count.lo == 1 && info.count.hi == 1 && info.count_varies == 0);
  CC_CHECK(info.num_shapes == 1 && info.axis_removed == 0);
  CC_CHECK(info.output_rank == ex->rank && info.axis == ex->axis && info.dims_needed == ex->rank);
  for (size_t p = 0; p < ex->rank; p++) {
    CC_CHECK(out[p].lo == ex->shape[p] && out[p].hi == ex->shape[p]);
  }
  free(shapes);
  free(dims);
}

static void check_infer(const cleave_concat_op *op, const cleave_tensor *inputs, size_t count,
                        const cc_expect *ex) {
  cleave_concat_info info;
  int64_t shape[CC_MAX_RANK + 4];
  cleave_error err;
  for (size_t p = 0; p < CC_MAX_RANK + 4; p++) {
    shape[p] = -7777;
  }
  prefill(&err);
  memset(&info, 0x5A, sizeof info);
  cleave_status st = cleave_concat_infer(op, inputs, count, &info, shape, ex->rank + 2, &err);
  check_ok(st, &err, "cleave_concat_infer");
  check_info(&info, inputs, count, ex);
  for (size_t p = 0; p < ex->rank; p++) {
    CC_CHECK(shape[p] == ex->shape[p]);
  }
  CC_CHECK(shape[ex->rank] == -7777 && shape[ex->rank + 1] == -7777);
  memset(&info, 0x5A, sizeof info);
  CC_CHECK(cleave_concat_infer(op, inputs, count, &info, NULL, 0, NULL) == CLEAVE_OK);
  check_info(&info, inputs, count, ex);
  if (ex->rank > 0) {
    CC_CHECK(cleave_concat_infer(op, inputs, count, &info, shape, ex->rank - 1, &err) ==
             CLEAVE_ERROR_CAPACITY);
    CC_CHECK(err.status == CLEAVE_ERROR_CAPACITY);
  }
}

/* Runs `plan` into allocated outputs (system allocator, then the arena) and compares. */
static void check_allocated(const cleave_concat_plan *plan, const void *const *ptrs,
                            const cleave_exec *exec, const unsigned char *ref, size_t bytes) {
  ensure_shared();
  cleave_allocator from_arena = cleave_arena_allocator(g_arena);
  for (int k = 0; k < 2; k++) {
    void *out = (void *)&out;
    cleave_error err;
    prefill(&err);
    cleave_status st =
        cleave_concat_plan_run_alloc(plan, ptrs, exec, k == 0 ? NULL : &from_arena, &out, &err);
    check_ok(st, &err, "cleave_concat_plan_run_alloc");
    CC_CHECK(out != NULL);
    CC_CHECK((uintptr_t)out % (bytes >= ((size_t)1 << 20) ? 4096 : 64) == 0);
    CC_CHECK(memcmp(out, ref, bytes) == 0);
    cleave_outputs_free(&out, 1);
    CC_CHECK(out == NULL);
  }
}

void cc_check_success(const cleave_concat_op *op, const cleave_tensor *inputs, size_t count,
                      const cc_expect *ex) {
  cc_elem e = cc_elem_of(inputs[0].type);
  size_t bytes = cc_bytes(e, cc_count(ex->shape, ex->rank));
  unsigned char *ref = malloc(bytes + 1);
  assert_non_null(ref);
  cc_reference(inputs, count, ex->axis, ex->stack, ref);
  check_infer(op, inputs, count, ex);
  check_partial_points(op, inputs, count, ex);

  cleave_error err;
  guarded out = guarded_make(bytes, 0);
  prefill(&err);
  check_ok(cleave_concat_run(op, inputs, count, out.at, &err), &err, "cleave_concat_run");
  CC_CHECK(guarded_holds(&out, ref));
  free(out.base);

  cleave_concat_plan *plan = NULL;
  prefill(&err);
  check_ok(cleave_concat_plan_create(op, inputs, count, NULL, &plan, &err), &err,
           "cleave_concat_plan_create");
  assert_non_null(plan);
  check_info(cleave_concat_plan_info(plan), inputs, count, ex);
  int64_t shape[CC_MAX_RANK + 2];
  shape[ex->rank] = -5;
  CC_CHECK(cleave_concat_plan_output_shape(plan, shape, NULL) == CLEAVE_OK);
  for (size_t p = 0; p < ex->rank; p++) {
    CC_CHECK(shape[p] == ex->shape[p]);
  }
  CC_CHECK(shape[ex->rank] == -5);
  CC_CHECK(cleave_concat_plan_description(plan) != NULL);

  /* Rounds: the inputs' own data; moved copies (new addresses); NULL for every empty input. */
  const void **ptrs = calloc(count + 1, sizeof *ptrs);
  unsigned char **moved = calloc(count + 1, sizeof *moved);
  assert_non_null(ptrs);
  assert_non_null(moved);
  for (size_t i = 0; i < count; i++) {
    size_t n = cc_bytes(e, cc_count(inputs[i].shape, inputs[i].rank));
    moved[i] = malloc(n + 1);
    assert_non_null(moved[i]);
    memcpy(moved[i], inputs[i].data, n);
  }
  for (int round = 0; round < 3; round++) {
    for (size_t i = 0; i < count; i++) {
      int empty = cc_count(inputs[i].shape, inputs[i].rank) == 0;
      ptrs[i] = round == 1 ? moved[i] : round == 2 && empty ? NULL : inputs[i].data;
    }
    out = guarded_make(bytes, (size_t)round * 16);
    prefill(&err);
    check_ok(cleave_concat_plan_run(plan, ptrs, out.at, NULL, &err), &err,
             "cleave_concat_plan_run");
    CC_CHECK(guarded_holds(&out, ref));
    free(out.base);
  }
  check_allocated(plan, ptrs, NULL, ref, bytes);
  cleave_concat_plan_destroy(plan);

  /* Every threshold at 0: streaming stores and 2 threads whatever the size. */
  cleave_plan_options eager = cc_options(CLEAVE_KERNELS_AUTO, 0, 0, 64);
  cc_check_plan(op, inputs, count, ex, &eager, CC_POOL_2, 8, NULL);
  for (size_t i = 0; i < count; i++) {
    free(moved[i]);
  }
  free(moved);
  free(ptrs);
  free(ref);
}

int cc_check_plan(const cleave_concat_op *op, const cleave_tensor *inputs, size_t count,
                  const cc_expect *ex, const cleave_plan_options *options, cc_threads threads,
                  size_t misalign, const char *const *words) {
  ensure_shared();
  cc_elem e = cc_elem_of(inputs[0].type);
  size_t bytes = cc_bytes(e, cc_count(ex->shape, ex->rank));
  unsigned char *ref = malloc(bytes + 1);
  assert_non_null(ref);
  cc_reference(inputs, count, ex->axis, ex->stack, ref);
  cleave_concat_plan *plan = NULL;
  cleave_error err;
  check_ok(cleave_concat_plan_create(op, inputs, count, options, &plan, &err), &err,
           "cleave_concat_plan_create_with");
  const char *desc = cleave_concat_plan_description(plan);
  for (size_t w = 0; words != NULL && words[w] != NULL; w++) {
    if (strstr(desc, words[w]) == NULL) {
      print_error("plan description \"%s\" lacks \"%s\"\n", desc, words[w]);
    }
    CC_CHECK(strstr(desc, words[w]) != NULL);
  }
  cleave_exec pool = cleave_exec_threadpool(g_pool);
  cleave_exec custom = {reverse_for, NULL, 2};
  const cleave_exec *exec = threads == CC_POOL_2 ? &pool : threads == CC_CUSTOM_2 ? &custom : NULL;
  const void **ptrs = calloc(count + 1, sizeof *ptrs);
  assert_non_null(ptrs);
  for (size_t i = 0; i < count; i++) {
    ptrs[i] = inputs[i].data;
  }
  g_custom_calls = 0;
  guarded out = guarded_make(bytes, misalign);
  check_ok(cleave_concat_plan_run(plan, ptrs, out.at, exec, &err), &err, "cleave_concat_plan_run");
  CC_CHECK(guarded_holds(&out, ref));
  int calls = g_custom_calls;
  free(out.base);
  check_allocated(plan, ptrs, exec, ref, bytes);
  cleave_concat_plan_destroy(plan);
  free(ptrs);
  free(ref);
  return calls;
}

/* ---- errors ------------------------------------------------------------------------------- */

static void check_failed(cleave_status st, const cleave_error *err, cleave_status status,
                         const char *message, const char *via) {
  if (st != status || err->status != status || strcmp(err->message, message) != 0) {
    print_error("%s: status %d (%s), message\n  \"%s\"\nexpected %d (%s)\n  \"%s\"\n", via, (int)st,
                cleave_status_name(st), err->message, (int)status, cleave_status_name(status),
                message);
  }
  CC_CHECK(st == status);
  CC_CHECK(err->status == status);
  CC_CHECK(strcmp(err->message, message) == 0);
}

static void check_partial_error(const cleave_concat_op *op, const cleave_tensor *inputs,
                                size_t count, cleave_status status, const char *message) {
  cleave_partial_shape *shapes = calloc(count + 1, sizeof *shapes);
  cleave_dim *dims = calloc(count * CC_MAX_RANK + 1, sizeof *dims);
  assert_non_null(shapes);
  assert_non_null(dims);
  for (size_t i = 0; inputs != NULL && i < count; i++) {
    for (size_t k = 0; inputs[i].shape != NULL && k < inputs[i].rank && k < CC_MAX_RANK; k++) {
      dims[i * CC_MAX_RANK + k] = cleave_dim_point(inputs[i].shape[k]);
    }
    shapes[i].rank = inputs[i].rank;
    shapes[i].dims = inputs[i].shape == NULL ? NULL : dims + i * CC_MAX_RANK;
  }
  cleave_partial_info info;
  cleave_dim out[CC_MAX_RANK + 2];
  for (size_t p = 0; p < CC_MAX_RANK + 2; p++) {
    out[p] = cleave_dim_point(-7);
  }
  cleave_error err;
  prefill(&err);
  cleave_type type = count > 0 && inputs != NULL ? inputs[0].type : cleave_type_of(CLEAVE_F32);
  cleave_status st =
      cleave_concat_infer_partial(op, CLEAVE_UNKNOWN_NONE, type, inputs == NULL ? NULL : shapes,
                                  count, &info, out, CC_MAX_RANK + 2, &err);
  check_failed(st, &err, status, message, "cleave_concat_infer_partial");
  for (size_t p = 0; p < CC_MAX_RANK + 2; p++) {
    CC_CHECK(out[p].lo == -7);
  }
  free(shapes);
  free(dims);
}

void cc_check_error(const cleave_concat_op *op, const cleave_tensor *inputs, size_t count,
                    cleave_status status, const char *message, int partial) {
  cleave_error err;
  cleave_concat_info info;
  int64_t shape[16];
  for (size_t p = 0; p < 16; p++) {
    shape[p] = -7777;
  }
  prefill(&err);
  cleave_status st = cleave_concat_infer(op, inputs, count, &info, shape, 16, &err);
  check_failed(st, &err, status, message, "cleave_concat_infer");
  for (size_t p = 0; p < 16; p++) {
    CC_CHECK(shape[p] == -7777);
  }
  CC_CHECK(cleave_concat_infer(op, inputs, count, &info, NULL, 0, NULL) == status);
  if (partial) {
    check_partial_error(op, inputs, count, status, message);
  }
  guarded out = guarded_make(256, 0);
  prefill(&err);
  st = cleave_concat_run(op, inputs, count, out.at, &err);
  check_failed(st, &err, status, message, "cleave_concat_run");
  CC_CHECK(guarded_untouched(&out));
  free(out.base);
  cleave_concat_plan *plan = (cleave_concat_plan *)(void *)&err;
  prefill(&err);
  st = cleave_concat_plan_create(op, inputs, count, NULL, &plan, &err);
  check_failed(st, &err, status, message, "cleave_concat_plan_create");
  CC_CHECK(plan == NULL);
}
