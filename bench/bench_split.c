/*
 * cleave's split benchmark: per case, the median time of a prepared plan into caller buffers,
 * on 1 thread and on a built-in pool, next to plain copies of the same bytes (glibc memcpy,
 * rep movsb, an AVX2 non-temporal copy) measured in the same run, interleaved rep by rep so
 * that bandwidth drift hits every variant alike. Also: per-call cost of a small plan, view
 * creation cost against tensor size, and library-allocated outputs. Packed sub-byte splits
 * (issue 7): byte-aligned ones against the byte engine's u8 split of the same bytes, the others
 * against memcpy of the input's bytes.
 *
 * Usage: bench_split [--reps N] [--threads N] [--only LETTERS]
 *   --reps N      samples per variant (default 11; the median is reported)
 *   --threads N   threads of the pool for the parallel column (default 2)
 *   --only abc    run only these cases (letters a-f, v for views, m for allocation, p for the
 *                 packed sub-byte cases)
 *   --nontemporal-bytes N, --parallel-bytes N, --tiny-bytes N, --kernels portable|avx2
 *                 plan options (default: the library's defaults)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_cases.h"
#include "bench_copy.h"
#include "bench_util.h"
#include "cleave.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_OUTPUTS 1024
#define MAX_REPS 101

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static cleave_plan_options g_options;

/* A parallel-for that counts its calls (it runs tasks on the calling thread). */
static int counted_calls;
static void counting_for(void *ctx, cleave_task_fn task, void *task_ctx, size_t count) {
  (void)ctx;
  counted_calls++;
  for (size_t i = 0; i < count; i++) {
    task(task_ctx, i);
  }
}

enum { V_MEMCPY, V_MOVSB, V_NT, V_CLEAVE1, V_CLEAVEN, V_COUNT };
static const char *const variant_names[V_COUNT] = {"memcpy", "rep movsb", "nt copy", "cleave 1T",
                                                   "cleave NT"};

/* Per-case medians, for the summary table. */
typedef struct case_result {
  char letter;
  double med[V_COUNT];
  double best;
  int parallel_calls; /* small case: parallel-for calls with 2 threads offered */
} case_result;
static case_result g_results[8];
static int g_num_results;

/* Shared buffers: the input and one plain-copy destination of the largest case. */
static unsigned char *g_in, *g_copy;
static size_t g_size;

static void ensure_buffers(size_t bytes) {
  if (bytes <= g_size) {
    return;
  }
  free(g_in);
  free(g_copy);
  g_in = bench_alloc_input(bytes);
  g_copy = bench_alloc_touched(bytes);
  g_size = bytes;
}

static void run_variant(int v, const cleave_plan *plan, void *const *outs, size_t bytes,
                        const cleave_exec *pooled, int calls) {
  cleave_error err;
  for (int k = 0; k < calls; k++) {
    switch (v) {
    case V_MEMCPY:
      memcpy(g_copy, g_in, bytes);
      break;
    case V_MOVSB:
      bench_copy_movsb(g_copy, g_in, bytes);
      break;
    case V_NT:
      bench_copy_nt(g_copy, g_in, bytes);
      break;
    case V_CLEAVE1:
      bench_check(cleave_plan_run(plan, g_in, outs, &err), &err, "cleave_plan_run");
      break;
    default:
      bench_check(cleave_plan_run_exec(plan, g_in, outs, pooled, &err), &err,
                  "cleave_plan_run_exec");
      break;
    }
  }
}

static void bench_case_run(const bench_case *c, int reps, cleave_threadpool *pool) {
  size_t bytes = bench_case_bytes(c);
  ensure_buffers(bytes);
  cleave_op op = bench_case_op(c);
  cleave_plan *plan = NULL;
  cleave_error err;
  bench_check(cleave_plan_create_with(&op, cleave_type_of(CLEAVE_F32), c->shape, c->rank,
                                      &g_options, &plan, &err),
              &err, "cleave_plan_create");
  size_t n = (size_t)cleave_plan_info(plan)->num_outputs;
  void **outs = calloc(n, sizeof *outs);
  for (size_t i = 0; i < n; i++) {
    outs[i] = bench_alloc_touched((size_t)cleave_plan_output_bytes(plan, i));
  }
  cleave_exec pooled = cleave_exec_threadpool(pool);
  /* The small case is timed over many calls per sample. */
  int calls = bytes < ((size_t)1 << 20) ? 20000 : 1;
  double t[V_COUNT][MAX_REPS];
  for (int v = 0; v < V_COUNT; v++) {
    run_variant(v, plan, outs, bytes, &pooled, calls > 1 ? 1000 : 1); /* warm-up */
    /* The plain copies are baselines only if they copy: each is checked once. */
    if (v <= V_NT && memcmp(g_copy, g_in, bytes) != 0) {
      fprintf(stderr, "bench_split: the %s baseline copied wrong bytes\n", variant_names[v]);
      exit(1);
    }
    if (v < V_NT) {
      memset(g_copy, 0, bytes);
    }
  }
  for (int r = 0; r < reps; r++) {
    for (int v = 0; v < V_COUNT; v++) {
      if (v == V_NT && !bench_has_avx2()) {
        t[v][r] = 0;
        continue;
      }
      double t0 = now();
      run_variant(v, plan, outs, bytes, &pooled, calls);
      t[v][r] = (now() - t0) / calls;
    }
  }
  /* Every output must equal its slice of the input: compare with a naive copy. */
  {
    int64_t outer = 1, inner = 4, dim = c->shape[c->axis], offset = 0;
    for (int64_t k = 0; k < c->axis; k++) {
      outer *= c->shape[k];
    }
    for (size_t k = (size_t)c->axis + 1; k < c->rank; k++) {
      inner *= c->shape[k];
    }
    for (size_t i = 0; i < n; i++) {
      int64_t len = cleave_plan_output_length(plan, i);
      size_t row = (size_t)(len * inner);
      for (int64_t o = 0; o < outer; o++) {
        if (memcmp((unsigned char *)outs[i] + (size_t)o * row,
                   g_in + (size_t)((o * dim + offset) * inner), row) != 0) {
          fprintf(stderr, "case %c: output %zu differs from the input at row %" PRId64 "\n",
                  c->letter, i, o);
          exit(1);
        }
      }
      offset += len;
    }
  }
  double med[V_COUNT];
  for (int v = 0; v < V_COUNT; v++) {
    med[v] = bench_median(t[v], reps);
  }
  double moved = 2.0 * (double)bytes; /* read + write */
  double best = med[V_MEMCPY];
  for (int v = V_MOVSB; v <= V_NT; v++) {
    if (med[v] > 0 && med[v] < best) {
      best = med[v];
    }
  }
  printf("(%c) %s   plan: %s\n", c->letter, c->what, cleave_plan_description(plan));
  for (int v = 0; v < V_COUNT; v++) {
    if (med[v] == 0) {
      continue;
    }
    char name[32];
    snprintf(name, sizeof name, "%s", variant_names[v]);
    if (v == V_CLEAVEN) {
      snprintf(name, sizeof name, "cleave %zuT", cleave_threadpool_threads(pool));
    }
    printf("    %-12s %12.3f us  %7.2f GB/s\n", name, med[v] * 1e6, moved / med[v] * 1e-9);
  }
  printf("    ratio cleave 1T / best plain copy: %.3f   cleave %zuT speed-up over 1T: %.2fx\n",
         best / med[V_CLEAVE1], cleave_threadpool_threads(pool), med[V_CLEAVE1] / med[V_CLEAVEN]);
  case_result *res = &g_results[g_num_results++];
  res->letter = c->letter;
  memcpy(res->med, med, sizeof med);
  res->best = best;
  res->parallel_calls = -1;
  if (calls > 1) {
    /* Small work must stay on the calling thread even when threads are offered. */
    cleave_exec counting = {counting_for, NULL, 2};
    counted_calls = 0;
    bench_check(cleave_plan_run_exec(plan, g_in, outs, &counting, &err), &err, "run_exec");
    printf("    parallel-for calls with 2 threads offered: %d\n", counted_calls);
    res->parallel_calls = counted_calls;
  }
  for (size_t i = 0; i < n; i++) {
    free(outs[i]);
  }
  free(outs);
  cleave_plan_destroy(plan);
}

/* View creation for case (a)'s split at two tensor sizes. */
static void bench_views(int reps) {
  static const int64_t shapes[2][3] = {{64, 2, 2}, {64, 1024, 4096}};
  static const char *const names[2] = {"1 KiB", "1 GiB"};
  int64_t axis = 0;
  cleave_op op = cleave_op_split(&axis, 4);
  printf(
      "(views) Split-1 into 4 along axis 0 of [64,...] f32: cleave_plan_views and cleave_views\n");
  for (int s = 0; s < 2; s++) {
    size_t bytes = 4 * (size_t)(shapes[s][0] * shapes[s][1] * shapes[s][2]);
    /* Never touched: views only compute addresses. */
    void *in = malloc(bytes);
    cleave_plan *plan = NULL;
    cleave_error err;
    bench_check(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), shapes[s], 3, &plan, &err),
                &err, "plan");
    cleave_view views[4];
    int64_t dims[24];
    cleave_tensor t = {in, cleave_type_of(CLEAVE_F32), 3, shapes[s]};
    double tp[MAX_REPS], to[MAX_REPS];
    const int calls = 100000;
    for (int r = 0; r < reps; r++) {
      double t0 = now();
      for (int k = 0; k < calls; k++) {
        cleave_plan_views(plan, in, views, 4, dims, 24, NULL);
      }
      double t1 = now();
      for (int k = 0; k < calls; k++) {
        cleave_views(&op, &t, views, 4, dims, 24, NULL);
      }
      double t2 = now();
      tp[r] = (t1 - t0) / calls;
      to[r] = (t2 - t1) / calls;
    }
    printf("    %s tensor: cleave_plan_views %8.1f ns   cleave_views %8.1f ns   (contiguous %d)\n",
           names[s], bench_median(tp, reps) * 1e9, bench_median(to, reps) * 1e9,
           views[0].contiguous);
    cleave_plan_destroy(plan);
    free(in);
  }
}

/* Library-allocated outputs for case (a): allocation and copy timed, release not. */
static void bench_alloc(int reps, cleave_threadpool *pool) {
  const bench_case *c = &bench_cases[0];
  size_t bytes = bench_case_bytes(c);
  ensure_buffers(bytes);
  cleave_op op = bench_case_op(c);
  cleave_plan *plan = NULL;
  cleave_error err;
  bench_check(cleave_plan_create_with(&op, cleave_type_of(CLEAVE_F32), c->shape, c->rank,
                                      &g_options, &plan, &err),
              &err, "plan");
  cleave_exec pooled = cleave_exec_threadpool(pool);
  double t1[MAX_REPS], tn[MAX_REPS], tm[MAX_REPS];
  void *outs[4];
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    bench_check(cleave_plan_run_alloc(plan, g_in, NULL, outs, &err), &err, "run_alloc");
    t1[r] = now() - t0;
    if (memcmp(outs[3], g_in + 3 * bytes / 4, bytes / 4) != 0) {
      fprintf(stderr, "allocated output 3 differs\n");
      exit(1);
    }
    cleave_outputs_free(outs, 4);
    t0 = now();
    bench_check(cleave_plan_run_alloc(plan, g_in, &pooled, outs, &err), &err, "run_alloc");
    tn[r] = now() - t0;
    cleave_outputs_free(outs, 4);
    /* For scale: malloc + memcpy of each quarter, as a plain allocating copy does. */
    t0 = now();
    for (int i = 0; i < 4; i++) {
      outs[i] = malloc(bytes / 4);
      memcpy(outs[i], g_in + (size_t)i * bytes / 4, bytes / 4);
    }
    tm[r] = now() - t0;
    for (int i = 0; i < 4; i++) {
      free(outs[i]);
    }
  }
  printf("(alloc) %s, library-allocated outputs\n", c->what);
  printf("    cleave_plan_run_alloc 1T %10.3f ms\n", bench_median(t1, reps) * 1e3);
  printf("    cleave_plan_run_alloc %zuT %10.3f ms\n", cleave_threadpool_threads(pool),
         bench_median(tn, reps) * 1e3);
  printf("    malloc + memcpy       1T %10.3f ms\n", bench_median(tm, reps) * 1e3);
  cleave_plan_destroy(plan);
}

/* ---- packed sub-byte types ---------------------------------------------------------------- */

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
static void packed_verify(const packed_bench *c, const cleave_plan *plan, void *const *outs) {
  int64_t rows = c->shape[0], dim = c->shape[1], offset = 0;
  for (size_t i = 0; i < (size_t)cleave_plan_info(plan)->num_outputs; i++) {
    int64_t len = cleave_plan_output_length(plan, i);
    const unsigned char *out = outs[i];
    for (int64_t r = 0; r < rows; r++) {
      for (int64_t j = 0; j < len; j++) {
        if (packed_get(out, r * len + j, c) != packed_get(g_in, r * dim + offset + j, c)) {
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
static void bench_packed_case(const packed_bench *c, int reps, cleave_threadpool *pool) {
  cleave_op op = c->num_splits > 0
                     ? cleave_op_split(&(int64_t){1}, c->num_splits)
                     : cleave_op_variadic_split(&(int64_t){1}, c->lengths, (size_t)c->num_lengths);
  cleave_plan *plan = NULL, *bytes_plan = NULL;
  cleave_error err;
  bench_check(
      cleave_plan_create_with(&op, cleave_type_of(c->dtype), c->shape, 2, &g_options, &plan, &err),
      &err, "cleave_plan_create (packed)");
  size_t bytes = (size_t)((c->shape[0] * c->shape[1] * c->bits + 7) / 8);
  ensure_buffers(bytes);
  size_t n = (size_t)cleave_plan_info(plan)->num_outputs;
  void **outs = calloc(n, sizeof *outs);
  for (size_t i = 0; i < n; i++) {
    outs[i] = bench_alloc_touched((size_t)cleave_plan_output_bytes(plan, i));
  }
  if (c->aligned) {
    /* The same bytes as u8: each row of shape[1] elements is shape[1] * bits / 8 bytes. */
    int64_t shape[2] = {c->shape[0], c->shape[1] * c->bits / 8};
    cleave_op bop = cleave_op_split(&(int64_t){1}, c->num_splits);
    bench_check(cleave_plan_create_with(&bop, cleave_type_of(CLEAVE_U8), shape, 2, &g_options,
                                        &bytes_plan, &err),
                &err, "cleave_plan_create (u8)");
  }
  cleave_exec pooled = cleave_exec_threadpool(pool);
  double t[P_COUNT][MAX_REPS];
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
      double t0 = now();
      switch (v) {
      case P_MEMCPY:
        memcpy(g_copy, g_in, bytes);
        break;
      case P_CLEAVE1:
        bench_check(cleave_plan_run(plan, g_in, outs, &err), &err, "cleave_plan_run (packed)");
        break;
      case P_CLEAVEN:
        bench_check(cleave_plan_run_exec(plan, g_in, outs, &pooled, &err), &err,
                    "run_exec (packed)");
        break;
      default:
        if (bytes_plan != NULL) {
          bench_check(cleave_plan_run(bytes_plan, g_in, outs, &err), &err, "cleave_plan_run (u8)");
        }
        break;
      }
      if (r >= 0) {
        t[v][r] = bytes_plan != NULL || v != P_BYTES ? now() - t0 : 0;
      }
    }
  }
  /* The last run may have been the u8 split, into the same buffers: run the packed plan again to
   * verify it. */
  bench_check(cleave_plan_run(plan, g_in, outs, &err), &err, "cleave_plan_run (packed)");
  packed_verify(c, plan, outs);
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
  cleave_plan_destroy(bytes_plan);
  cleave_plan_destroy(plan);
}

/* The results as a Markdown table, with the targets against plain copies. */
static void summary(size_t threads) {
  printf("\n| case | cleave 1T | memcpy | rep movsb | nt copy | 1T / best copy | target "
         "| cleave %zuT | %zuT / 1T speed |\n",
         threads, threads);
  printf("|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < g_num_results; i++) {
    const case_result *r = &g_results[i];
    char t[V_COUNT][32];
    for (int v = 0; v < V_COUNT; v++) {
      bench_fmt_time(t[v], sizeof t[v], r->med[v], 3);
    }
    double ratio = r->best / r->med[V_CLEAVE1];
    const char *target = "";
    char verdict[64] = "";
    if (strchr("abe", r->letter) != NULL) {
      target = ">= 0.9";
      snprintf(verdict, sizeof verdict, " **%s**", ratio >= 0.9 ? "met" : "not met");
    } else if (r->letter == 'c') {
      target = ">= 0.85";
      snprintf(verdict, sizeof verdict, " **%s**", ratio >= 0.85 ? "met" : "not met");
    } else if (r->letter == 'd') {
      target = "(vs peers: Python script)";
    } else {
      target = "(vs peers: Python script)";
      snprintf(verdict, sizeof verdict, "; parallel-for calls: %d", r->parallel_calls);
    }
    printf("| (%c) | %s | %s | %s | %s | %.3f | %s%s | %s | %.2fx |\n", r->letter, t[V_CLEAVE1],
           t[V_MEMCPY], t[V_MOVSB], t[V_NT], ratio, target, verdict, t[V_CLEAVEN],
           r->med[V_CLEAVE1] / r->med[V_CLEAVEN]);
  }
}

/* The packed cases as a Markdown table, with issue 7's targets. */
static void packed_summary(size_t threads) {
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

int main(int argc, char **argv) {
  int reps = 11;
  size_t threads = 2;
  const char *only = "abcdefvmp";
  g_options = cleave_plan_options_default();
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = (size_t)atoi(argv[++i]);
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--nontemporal-bytes") == 0 && i + 1 < argc) {
      g_options.nontemporal_bytes = strtoll(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--parallel-bytes") == 0 && i + 1 < argc) {
      g_options.parallel_bytes = strtoll(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--tiny-bytes") == 0 && i + 1 < argc) {
      g_options.tiny_bytes = strtoll(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc) {
      i++;
      g_options.kernels = strcmp(argv[i], "avx2") == 0       ? CLEAVE_KERNELS_AVX2
                          : strcmp(argv[i], "portable") == 0 ? CLEAVE_KERNELS_PORTABLE
                                                             : CLEAVE_KERNELS_AUTO;
    } else {
      fprintf(stderr,
              "usage: %s [--reps N] [--threads N] [--only abcdefvmp] [--nontemporal-bytes N]\n"
              "       [--parallel-bytes N] [--tiny-bytes N] [--kernels portable|avx2]\n",
              argv[0]);
      return 2;
    }
  }
  if (reps < 1 || reps > MAX_REPS || threads < 1) {
    fprintf(stderr, "--reps must be in [1, %d] and --threads >= 1\n", MAX_REPS);
    return 2;
  }
  cleave_threadpool *pool = NULL;
  cleave_error err;
  bench_check(cleave_threadpool_create(threads, &pool, &err), &err, "cleave_threadpool_create");
  printf("cleave %s benchmark: medians of %d samples, f32, bandwidth counts read + write\n",
         cleave_version_string(), reps);
  for (size_t k = 0; k < bench_num_cases; k++) {
    if (strchr(only, bench_cases[k].letter) != NULL) {
      bench_case_run(&bench_cases[k], reps, pool);
    }
  }
  if (strchr(only, 'v') != NULL) {
    bench_views(reps);
  }
  if (strchr(only, 'm') != NULL) {
    bench_alloc(reps, pool);
  }
  if (strchr(only, 'p') != NULL) {
    for (size_t k = 0; k < NUM_PACKED_CASES; k++) {
      bench_packed_case(&packed_cases[k], reps, pool);
    }
  }
  if (g_num_results > 0) {
    summary(threads);
  }
  if (g_num_packed > 0) {
    packed_summary(threads);
  }
  cleave_threadpool_destroy(pool);
  free(g_in);
  free(g_copy);
  return 0;
}
