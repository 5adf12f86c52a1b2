/*
 * The packed sub-byte part of bench_split (issue 7): byte-aligned splits against the byte
 * engine's u8 split of the same bytes, the others against memcpy of the input's bytes,
 * interleaved sample by sample in a different order each time. Every output is checked against
 * the input element by element after timing.
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_packed.h"
#include "bench_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct packed_bench {
  const char *what;
  cleave_dtype dtype;
  int bits;
  int msb_first;
  int64_t shape[2];
  int64_t num_splits;     /* Split-1 when > 0 */
  const int64_t *lengths; /* VariadicSplit otherwise */
  int64_t num_lengths;
  int aligned; /* also time the byte engine's u8 split of the same bytes */
} packed_bench;

static const int64_t packed_u4_lengths[4] = {2047, 2048, 2048, 2048};
static const int64_t packed_u1_lengths[3] = {2730, 2731, 2730};
static const int64_t packed_u2_lengths[3] = {5461, 5461, 5461};
static const int64_t packed_one_row[3] = {11184809, 11184811, 11184811};

static const packed_bench packed_cases[] = {
    {"u4 [4096,8192] into 4 along axis 1 (byte-aligned)",
     CLEAVE_U4,
     4,
     0,
     {4096, 8192},
     4,
     NULL,
     0,
     1},
    {"u4 [4096,8191] axis 1 [2047,2048,2048,2048]",
     CLEAVE_U4,
     4,
     0,
     {4096, 8191},
     0,
     packed_u4_lengths,
     4,
     0},
    {"u1 [8192,8191] axis 1 [2730,2731,2730]",
     CLEAVE_U1,
     1,
     1,
     {8192, 8191},
     0,
     packed_u1_lengths,
     3,
     0},
    {"uint2 [4096,16383] axis 1 [5461,5461,5461]",
     CLEAVE_UINT2,
     2,
     0,
     {4096, 16383},
     0,
     packed_u2_lengths,
     3,
     0},
    {"u4 [1,33554431] axis 1 [11184809,11184811,11184811]",
     CLEAVE_U4,
     4,
     0,
     {1, 33554431},
     0,
     packed_one_row,
     3,
     0},
};
#define NUM_PACKED_CASES (sizeof packed_cases / sizeof packed_cases[0])

enum { P_MEMCPY, P_CLEAVE1, P_CLEAVEN, P_BYTES, P_COUNT };

typedef struct packed_result {
  const packed_bench *c;
  size_t bytes;
  double med[P_COUNT];
} packed_result;
static packed_result g_packed[NUM_PACKED_CASES];
static int g_num_packed;

static unsigned packed_get(const unsigned char *buf, int64_t j, const packed_bench *c) {
  int64_t bit = j * c->bits;
  unsigned shift = c->msb_first ? (unsigned)(8 - c->bits - bit % 8) : (unsigned)(bit % 8);
  return (unsigned)(buf[bit / 8] >> shift) & ((1u << c->bits) - 1);
}

/* Every output element equals its input element, and the unused bits of the last byte are 0. */
static void packed_verify(const packed_bench *c, const cleave_plan *plan, const unsigned char *in,
                          void *const *outs) {
  int64_t rows = c->shape[0], dim = c->shape[1], offset = 0;
  for (size_t i = 0; i < (size_t)cleave_plan_info(plan)->num_outputs; i++) {
    int64_t len = cleave_plan_output_length(plan, i);
    const unsigned char *out = outs[i];
    for (int64_t r = 0; r < rows; r++) {
      for (int64_t j = 0; j < len; j++) {
        if (packed_get(out, r * len + j, c) != packed_get(in, r * dim + offset + j, c)) {
          fprintf(stderr,
                  "packed case %s: output %zu differs at row %" PRId64 ", element %" PRId64 "\n",
                  c->what, i, r, j);
          exit(1);
        }
      }
    }
    int64_t used = rows * len * c->bits % 8;
    int64_t last = cleave_plan_output_bytes(plan, i) - 1;
    unsigned tail = c->msb_first ? 0xffu >> used : (0xffu << used) & 0xffu;
    if (used != 0 && (out[last] & tail) != 0) {
      fprintf(stderr, "packed case %s: output %zu has set bits after its last element\n", c->what,
              i);
      exit(1);
    }
    offset += len;
  }
}

/* A packed split against memcpy of the input's bytes, interleaved sample by sample; byte-aligned
 * cases also against the byte engine's u8 split of the same bytes. */
static void bench_packed_case(const packed_bench *c, int reps, cleave_threadpool *pool,
                              const cleave_plan_options *options) {
  cleave_op op = c->num_splits > 0
                     ? cleave_op_split(&(int64_t){1}, c->num_splits)
                     : cleave_op_variadic_split(&(int64_t){1}, c->lengths, (size_t)c->num_lengths);
  cleave_plan *plan = NULL, *bytes_plan = NULL;
  cleave_error err;
  bench_check(
      cleave_plan_create_with(&op, cleave_type_of(c->dtype), c->shape, 2, options, &plan, &err),
      &err, "cleave_plan_create (packed)");
  size_t bytes = (size_t)((c->shape[0] * c->shape[1] * c->bits + 7) / 8);
  unsigned char *in = bench_alloc_input(bytes), *copy = bench_alloc_touched(bytes);
  size_t n = (size_t)cleave_plan_info(plan)->num_outputs;
  void **outs = calloc(n, sizeof *outs);
  for (size_t i = 0; i < n; i++) {
    outs[i] = bench_alloc_touched((size_t)cleave_plan_output_bytes(plan, i));
  }
  if (c->aligned) {
    /* The same bytes as u8: each row of shape[1] elements is shape[1] * bits / 8 bytes. */
    int64_t shape[2] = {c->shape[0], c->shape[1] * c->bits / 8};
    cleave_op bop = cleave_op_split(&(int64_t){1}, c->num_splits);
    bench_check(cleave_plan_create_with(&bop, cleave_type_of(CLEAVE_U8), shape, 2, options,
                                        &bytes_plan, &err),
                &err, "cleave_plan_create (u8)");
  }
  cleave_exec pooled = cleave_exec_threadpool(pool);
  double t[P_COUNT][BENCH_PACKED_MAX_REPS];
  for (int r = -1; r < reps; r++) { /* r == -1: warm-up */
    /* Each sample runs the variants in another of the 24 orders, so that none always follows
     * the same one (a run just after memcpy writes back memcpy's dirty lines: measured 8% in
     * favour of the u8 split when the packed one always came right after memcpy). */
    int order[P_COUNT] = {P_MEMCPY, P_CLEAVE1, P_CLEAVEN, P_BYTES};
    for (int m = r < 0 ? 0 : r, step = 0; step < P_COUNT; step++) {
      int pick = step + m % (P_COUNT - step), swap = order[step];
      m /= P_COUNT - step;
      order[step] = order[pick];
      order[pick] = swap;
    }
    for (int step = 0; step < P_COUNT; step++) {
      int v = order[step];
      double t0 = bench_now();
      switch (v) {
      case P_MEMCPY:
        memcpy(copy, in, bytes);
        break;
      case P_CLEAVE1:
        bench_check(cleave_plan_run(plan, in, outs, &err), &err, "cleave_plan_run (packed)");
        break;
      case P_CLEAVEN:
        bench_check(cleave_plan_run_exec(plan, in, outs, &pooled, &err), &err, "run_exec (packed)");
        break;
      default:
        if (bytes_plan != NULL) {
          bench_check(cleave_plan_run(bytes_plan, in, outs, &err), &err, "cleave_plan_run (u8)");
        }
        break;
      }
      if (r >= 0) {
        t[v][r] = bytes_plan != NULL || v != P_BYTES ? bench_now() - t0 : 0;
      }
    }
  }
  /* The last run may have been the u8 split, into the same buffers: run the packed plan again to
   * verify it. */
  bench_check(cleave_plan_run(plan, in, outs, &err), &err, "cleave_plan_run (packed)");
  packed_verify(c, plan, in, outs);
  packed_result *res = &g_packed[g_num_packed++];
  res->c = c;
  res->bytes = bytes;
  for (int v = 0; v < P_COUNT; v++) {
    res->med[v] = bench_median(t[v], reps);
  }
  printf("(p) %s   %zu bytes   plan: %s\n", c->what, bytes, cleave_plan_description(plan));
  printf("    memcpy       %12.3f us  %7.2f GB/s\n", res->med[P_MEMCPY] * 1e6,
         2.0 * (double)bytes / res->med[P_MEMCPY] * 1e-9);
  printf("    cleave 1T    %12.3f us  %7.2f GB/s   %.3fx memcpy\n", res->med[P_CLEAVE1] * 1e6,
         2.0 * (double)bytes / res->med[P_CLEAVE1] * 1e-9,
         res->med[P_MEMCPY] / res->med[P_CLEAVE1]);
  printf("    cleave %zuT    %12.3f us  %7.2f GB/s   %.3fx memcpy\n",
         cleave_threadpool_threads(pool), res->med[P_CLEAVEN] * 1e6,
         2.0 * (double)bytes / res->med[P_CLEAVEN] * 1e-9,
         res->med[P_MEMCPY] / res->med[P_CLEAVEN]);
  if (bytes_plan != NULL) {
    printf("    u8 split 1T  %12.3f us  %7.2f GB/s   packed / u8: %.3f\n", res->med[P_BYTES] * 1e6,
           2.0 * (double)bytes / res->med[P_BYTES] * 1e-9, res->med[P_BYTES] / res->med[P_CLEAVE1]);
  }
  for (size_t i = 0; i < n; i++) {
    free(outs[i]);
  }
  free(outs);
  free(in);
  free(copy);
  cleave_plan_destroy(bytes_plan);
  cleave_plan_destroy(plan);
}

void bench_packed_run(int reps, cleave_threadpool *pool, const cleave_plan_options *options) {
  if (reps < 1 || reps > BENCH_PACKED_MAX_REPS) {
    fprintf(stderr, "bench_packed_run: reps must be in [1, %d]\n", BENCH_PACKED_MAX_REPS);
    exit(2);
  }
  for (size_t k = 0; k < NUM_PACKED_CASES; k++) {
    bench_packed_case(&packed_cases[k], reps, pool, options);
  }
}

/* The packed cases as a Markdown table, with issue 7's targets. */
void bench_packed_summary(size_t threads) {
  if (g_num_packed == 0) {
    return;
  }
  printf("\n| packed case | bytes | cleave 1T | memcpy | 1T / memcpy throughput | u8 byte split "
         "| 1T / u8 | target | cleave %zuT |\n",
         threads);
  printf("|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < g_num_packed; i++) {
    const packed_result *r = &g_packed[i];
    char t1[32], tm[32], tb[32] = "-", tn[32], ratio_bytes[32] = "-", target[64];
    bench_fmt_time(t1, sizeof t1, r->med[P_CLEAVE1], 3);
    bench_fmt_time(tm, sizeof tm, r->med[P_MEMCPY], 3);
    bench_fmt_time(tn, sizeof tn, r->med[P_CLEAVEN], 3);
    double ratio = r->med[P_MEMCPY] / r->med[P_CLEAVE1];
    if (r->c->aligned) {
      double vs_bytes = r->med[P_BYTES] / r->med[P_CLEAVE1];
      bench_fmt_time(tb, sizeof tb, r->med[P_BYTES], 3);
      snprintf(ratio_bytes, sizeof ratio_bytes, "%.3f", vs_bytes);
      snprintf(target, sizeof target, "byte engine's speed: **%s**",
               vs_bytes >= 0.9 ? "met" : "not met");
    } else {
      snprintf(target, sizeof target, ">= 0.3x memcpy: **%s**", ratio >= 0.3 ? "met" : "not met");
    }
    printf("| %s | %zu | %s | %s | %.3f | %s | %s | %s | %s |\n", r->c->what, r->bytes, t1, tm,
           ratio, tb, ratio_bytes, target, tn);
  }
}
