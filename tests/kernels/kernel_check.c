/* Helpers of the copy-engine tests (see kernel_check.h). */
#include "kernel_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cleave_kernels_choice kc_families[] = {CLEAVE_KERNELS_PORTABLE, CLEAVE_KERNELS_AVX2};

size_t kc_num_families(void) {
  /* AVX2 is listed only where a plan with it can be created. */
  cleave_plan_options o = cleave_plan_options_default();
  o.kernels = CLEAVE_KERNELS_AVX2;
  int64_t shape[1] = {4}, axis = 0;
  cleave_op op = cleave_op_split(&axis, 2);
  cleave_plan *plan = NULL;
  if (cleave_plan_create_with(&op, cleave_type_of(CLEAVE_U8), shape, 1, &o, &plan, NULL) !=
      CLEAVE_OK) {
    return 1;
  }
  cleave_plan_destroy(plan);
  return 2;
}

void kc_fill(unsigned char *p, size_t n, unsigned seed) {
  uint32_t x = 2463534242u ^ seed;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[i] = (unsigned char)(x >> 24);
  }
}

static size_t product(const int64_t *shape, size_t from, size_t to) {
  size_t p = 1;
  for (size_t k = from; k < to; k++) {
    p *= (size_t)shape[k];
  }
  return p;
}

size_t kc_output_bytes(const kc_case *c, size_t i) {
  return product(c->shape, 0, c->axis) * (size_t)c->lengths[i] *
         product(c->shape, c->axis + 1, c->rank) * c->esize;
}

void kc_check_allocated(const kc_case *c, const unsigned char *in, void *const *outs) {
  size_t offset = 0, inner = product(c->shape, c->axis + 1, c->rank) * c->esize;
  size_t outer = product(c->shape, 0, c->axis);
  for (size_t i = 0; i < c->num_outputs; i++) {
    assert_non_null(outs[i]);
    size_t bytes = kc_output_bytes(c, i);
    if (bytes > 0) {
      uintptr_t grain = bytes >= ((size_t)1 << 20) ? 4096 : 64;
      /* Outputs that take fewer than 64 bytes (the default tiny_bytes) from each of several
       * rows go to the tiny-output kernels and start on a line instead. */
      if (outer >= 2 && (size_t)c->lengths[i] * inner < 64) {
        assert_int_equal((uintptr_t)outs[i] % 64, 0);
      } else {
        assert_int_equal((uintptr_t)outs[i] % grain, (uintptr_t)(in + offset * inner) % grain);
      }
    }
    offset += (size_t)c->lengths[i];
    unsigned char *expect = malloc(bytes + 1);
    assert_non_null(expect);
    kc_reference(c, in, i, expect);
    assert_memory_equal(outs[i], expect, bytes);
    free(expect);
    if (i > 0) {
      assert_true((const unsigned char *)outs[i] >=
                  (const unsigned char *)outs[i - 1] + kc_output_bytes(c, i - 1));
    }
  }
}

void kc_reference(const kc_case *c, const unsigned char *in, size_t i, unsigned char *out) {
  size_t offset = 0;
  for (size_t k = 0; k < i; k++) {
    offset += (size_t)c->lengths[k];
  }
  size_t len = (size_t)c->lengths[i];
  size_t dim = (size_t)c->shape[c->axis];
  size_t outer = product(c->shape, 0, c->axis);
  size_t inner = product(c->shape, c->axis + 1, c->rank);
  /* Element by element, index by index: (o, l, m) of the output is (o, offset + l, m) of the
   * input. */
  size_t at = 0;
  for (size_t o = 0; o < outer; o++) {
    for (size_t l = 0; l < len; l++) {
      for (size_t m = 0; m < inner; m++) {
        size_t src = ((o * dim + offset + l) * inner + m) * c->esize;
        memcpy(out + at, in + src, c->esize);
        at += c->esize;
      }
    }
  }
}

cleave_plan_options kc_options(cleave_kernels_choice family, int64_t nontemporal_bytes,
                               int64_t parallel_bytes, int64_t tiny_bytes) {
  cleave_plan_options o = cleave_plan_options_default();
  o.kernels = family;
  o.nontemporal_bytes = nontemporal_bytes;
  o.parallel_bytes = parallel_bytes;
  o.tiny_bytes = tiny_bytes;
  return o;
}

typedef struct counting {
  int calls;
  size_t tasks;
} counting;

/* A parallel-for that runs the tasks on the calling thread in reverse order: results must not
 * depend on the order. */
static void reverse_for(void *context, cleave_task_fn task, void *task_context, size_t count) {
  counting *c = context;
  c->calls++;
  c->tasks += count;
  for (size_t i = count; i-- > 0;) {
    task(task_context, i);
  }
}

typedef struct buffers {
  unsigned char *raw[KC_MAX_OUTPUTS];
  void *ptr[KC_MAX_OUTPUTS];
  size_t size[KC_MAX_OUTPUTS];
} buffers;

static void buffers_make(buffers *b, const kc_case *c) {
  for (size_t i = 0; i < c->num_outputs; i++) {
    b->size[i] = kc_output_bytes(c, i);
    size_t total = 64 + KC_GUARD + b->size[i] + KC_GUARD;
    b->raw[i] = aligned_alloc(64, (total + 63) / 64 * 64);
    assert_non_null(b->raw[i]);
    memset(b->raw[i], KC_SENTINEL, total);
    b->ptr[i] = b->raw[i] + KC_GUARD + (c->out_misalign + i * c->out_misalign_step) % 64;
  }
}

static void buffers_free(buffers *b, const kc_case *c) {
  for (size_t i = 0; i < c->num_outputs; i++) {
    free(b->raw[i]);
  }
}

static void buffers_reset(buffers *b, const kc_case *c) {
  for (size_t i = 0; i < c->num_outputs; i++) {
    memset(b->raw[i], KC_SENTINEL, 64 + KC_GUARD + b->size[i] + KC_GUARD);
  }
}

/* Compares every output with the reference and checks the guards on both sides. */
static void buffers_check(const buffers *b, const kc_case *c, const unsigned char *in,
                          const char *what) {
  for (size_t i = 0; i < c->num_outputs; i++) {
    unsigned char *expect = malloc(b->size[i] + 1);
    assert_non_null(expect);
    kc_reference(c, in, i, expect);
    const unsigned char *got = b->ptr[i];
    for (size_t k = 0; k < b->size[i]; k++) {
      if (got[k] != expect[k]) {
        fail_msg("%s: output %zu byte %zu is 0x%02x, expected 0x%02x", what, i, k, got[k],
                 expect[k]);
      }
    }
    free(expect);
    const unsigned char *before = got - KC_GUARD, *after = got + b->size[i];
    for (size_t k = 0; k < KC_GUARD; k++) {
      if (before[k] != KC_SENTINEL || after[k] != KC_SENTINEL) {
        fail_msg("%s: output %zu guard byte %zu was overwritten", what, i, k);
      }
    }
  }
}

/*
 * The inverse property on the engine's other direction: the outputs of the split, concatenated
 * along its axis with a concat plan of the same options on the same threads (OpenVINO Concat-1;
 * ConcatFromSequence with new_axis 1 when the split removed the axis), give the input back byte
 * for byte, written to an output as misaligned as the input was.
 */
static void check_inverse(const kc_case *c, const cleave_plan_options *options,
                          const cleave_exec *exec, void *const *outs, const unsigned char *in,
                          size_t in_bytes) {
  if (c->num_outputs == 0) {
    return;
  }
  int64_t axis = (int64_t)c->axis;
  cleave_concat_op op =
      c->axis_removed ? cleave_op_concat_from_sequence(11, &axis, 1) : cleave_op_concat(&axis);
  cleave_tensor *parts = calloc(c->num_outputs, sizeof *parts);
  int64_t(*shapes)[KC_MAX_RANK] = calloc(c->num_outputs, sizeof *shapes);
  assert_non_null(parts);
  assert_non_null(shapes);
  for (size_t i = 0; i < c->num_outputs; i++) {
    size_t r = 0;
    for (size_t k = 0; k < c->rank; k++) {
      if (k != c->axis) {
        shapes[i][r++] = c->shape[k];
      } else if (!c->axis_removed) {
        shapes[i][r++] = c->lengths[i];
      }
    }
    parts[i] = (cleave_tensor){outs[i], c->type, r, shapes[i]};
  }
  cleave_concat_plan *plan = NULL;
  cleave_error err;
  cleave_status st = cleave_concat_plan_create(&op, parts, c->num_outputs, options, &plan, &err);
  if (st == CLEAVE_ERROR_UNSUPPORTED_TYPE && c->axis_removed) {
    /* ConcatFromSequence takes the fifteen ONNX types only. */
    free(parts);
    free(shapes);
    return;
  }
  if (st != CLEAVE_OK) {
    fail_msg("inverse concat plan: %s", err.message);
  }
  unsigned char *raw = malloc(in_bytes + 128 + KC_GUARD);
  assert_non_null(raw);
  unsigned char *back = raw + (64 - (uintptr_t)raw % 64) % 64 + (uintptr_t)in % 64;
  memset(raw, KC_SENTINEL, in_bytes + 128 + KC_GUARD);
  const void **ptrs = calloc(c->num_outputs, sizeof *ptrs);
  assert_non_null(ptrs);
  for (size_t i = 0; i < c->num_outputs; i++) {
    ptrs[i] = outs[i];
  }
  assert_int_equal(cleave_concat_plan_run(plan, ptrs, back, exec, &err), CLEAVE_OK);
  if (memcmp(back, in, in_bytes) != 0) {
    fail_msg("the concat of the outputs (plan \"%s\") differs from the input",
             cleave_concat_plan_description(plan));
  }
  for (size_t k = 0; k < KC_GUARD; k++) {
    assert_int_equal(back[in_bytes + k], KC_SENTINEL);
  }
  free(ptrs);
  free(raw);
  cleave_concat_plan_destroy(plan);
  free(parts);
  free(shapes);
}

int kc_check(const kc_case *c, const cleave_plan_options *options, kc_threads threads,
             const char *const *words) {
  assert_true(c->num_outputs <= KC_MAX_OUTPUTS);
  size_t in_bytes = product(c->shape, 0, c->rank) * c->esize;
  unsigned char *in_raw = aligned_alloc(64, (in_bytes + 64 + 63) / 64 * 64);
  assert_non_null(in_raw);
  unsigned char *in = in_raw + c->in_misalign;
  kc_fill(in, in_bytes, (unsigned)in_bytes);

  cleave_plan *plan = NULL;
  cleave_error err;
  assert_int_equal(
      cleave_plan_create_with(&c->op, c->type, c->shape, c->rank, options, &plan, &err), CLEAVE_OK);
  const char *desc = cleave_plan_description(plan);
  for (size_t w = 0; words != NULL && words[w] != NULL; w++) {
    if (strstr(desc, words[w]) == NULL) {
      fail_msg("plan kernels \"%s\" lack \"%s\"", desc, words[w]);
    }
  }
  assert_int_equal(cleave_plan_info(plan)->num_outputs, (int64_t)c->num_outputs);

  buffers *b = calloc(1, sizeof *b);
  assert_non_null(b);
  buffers_make(b, c);
  counting count = {0, 0};
  cleave_threadpool *pool = NULL;
  cleave_exec exec = {NULL, NULL, 0};
  switch (threads) {
  case KC_ONE_THREAD:
    assert_int_equal(cleave_plan_run(plan, in, b->ptr, &err), CLEAVE_OK);
    break;
  case KC_EXEC_NULL:
    assert_int_equal(cleave_plan_run_exec(plan, in, b->ptr, NULL, &err), CLEAVE_OK);
    break;
  case KC_POOL_2:
    assert_int_equal(cleave_threadpool_create(2, &pool, &err), CLEAVE_OK);
    exec = cleave_exec_threadpool(pool);
    assert_int_equal(cleave_plan_run_exec(plan, in, b->ptr, &exec, &err), CLEAVE_OK);
    break;
  case KC_CUSTOM_2:
    exec.parallel_for = reverse_for;
    exec.context = &count;
    exec.num_threads = 2;
    assert_int_equal(cleave_plan_run_exec(plan, in, b->ptr, &exec, &err), CLEAVE_OK);
    break;
  }
  assert_int_equal(err.status, CLEAVE_OK);
  char what[160];
  snprintf(what, sizeof what, "plan \"%s\" threads %d", desc, (int)threads);
  buffers_check(b, c, in, what);
  /* The way back, on the same threads (a caller's parallel-for counted apart). */
  counting back_count = {0, 0};
  cleave_exec back_exec = exec;
  if (threads == KC_CUSTOM_2) {
    back_exec.context = &back_count;
  }
  check_inverse(c, options, threads == KC_ONE_THREAD || threads == KC_EXEC_NULL ? NULL : &back_exec,
                b->ptr, in, in_bytes);

  if (pool != NULL) {
    /* A second run through the same pool: workers are reused. */
    buffers_reset(b, c);
    assert_int_equal(cleave_plan_run_exec(plan, in, b->ptr, &exec, &err), CLEAVE_OK);
    buffers_check(b, c, in, what);
    cleave_threadpool_destroy(pool);
  }

  /* The one-shot path (default tuning, no plan) must give the same bytes. */
  buffers_reset(b, c);
  cleave_tensor t = {in, c->type, c->rank, c->shape};
  assert_int_equal(cleave_run(&c->op, &t, b->ptr, c->num_outputs, &err), CLEAVE_OK);
  buffers_check(b, c, in, "cleave_run");

  buffers_free(b, c);
  free(b);
  cleave_plan_destroy(plan);
  free(in_raw);
  return count.calls;
}

kc_case kc_make_case(cleave_op op, cleave_type type, size_t esize, const int64_t *shape,
                     size_t rank, size_t axis, const int64_t *lengths, size_t n) {
  kc_case c;
  memset(&c, 0, sizeof c);
  c.op = op;
  c.type = type;
  c.esize = esize;
  memcpy(c.shape, shape, rank * sizeof *shape);
  c.rank = rank;
  c.axis = axis;
  c.lengths = lengths;
  c.num_outputs = n;
  return c;
}

kc_case kc_split_case(cleave_type type, size_t esize, const int64_t *shape, size_t rank,
                      size_t axis, int64_t n, int64_t *lengths, const int64_t *axis_value) {
  for (int64_t i = 0; i < n; i++) {
    lengths[i] = shape[axis] / n;
  }
  return kc_make_case(cleave_op_split(axis_value, n), type, esize, shape, rank, axis, lengths,
                      (size_t)n);
}

kc_case kc_variadic_case(cleave_type type, size_t esize, const int64_t *shape, size_t rank,
                         size_t axis, const int64_t *lengths, size_t n, const int64_t *axis_value) {
  return kc_make_case(cleave_op_variadic_split(axis_value, lengths, n), type, esize, shape, rank,
                      axis, lengths, n);
}
