/*
 * cleave's split benchmark: per case, the median time of a prepared plan into caller buffers,
 * on 1 thread and on a built-in pool, next to plain copies of the same bytes (glibc memcpy,
 * rep movsb, an AVX2 non-temporal copy) measured in the same run, interleaved rep by rep so
 * that bandwidth drift hits every variant alike. Also: per-call cost of a small plan, view
 * creation cost against tensor size, and library-allocated outputs. Packed sub-byte splits
 * (issue 7, bench_packed.c): byte-aligned ones against the byte engine's u8 split of the same
 * bytes, the others against memcpy of the input's bytes.
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
#include "bench_packed.h"
#include "bench_util.h"
#include "cleave.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_OUTPUTS 1024
/* Samples per variant at most: as many as the packed cases take. */
#define MAX_REPS BENCH_PACKED_MAX_REPS

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
      double t0 = bench_now();
      run_variant(v, plan, outs, bytes, &pooled, calls);
      t[v][r] = (bench_now() - t0) / calls;
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
      double t0 = bench_now();
      for (int k = 0; k < calls; k++) {
        cleave_plan_views(plan, in, views, 4, dims, 24, NULL);
      }
      double t1 = bench_now();
      for (int k = 0; k < calls; k++) {
        cleave_views(&op, &t, views, 4, dims, 24, NULL);
      }
      double t2 = bench_now();
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
    double t0 = bench_now();
    bench_check(cleave_plan_run_alloc(plan, g_in, NULL, outs, &err), &err, "run_alloc");
    t1[r] = bench_now() - t0;
    if (memcmp(outs[3], g_in + 3 * bytes / 4, bytes / 4) != 0) {
      fprintf(stderr, "allocated output 3 differs\n");
      exit(1);
    }
    cleave_outputs_free(outs, 4);
    t0 = bench_now();
    bench_check(cleave_plan_run_alloc(plan, g_in, &pooled, outs, &err), &err, "run_alloc");
    tn[r] = bench_now() - t0;
    cleave_outputs_free(outs, 4);
    /* For scale: malloc + memcpy of each quarter, as a plain allocating copy does. */
    t0 = bench_now();
    for (int i = 0; i < 4; i++) {
      outs[i] = malloc(bytes / 4);
      memcpy(outs[i], g_in + (size_t)i * bytes / 4, bytes / 4);
    }
    tm[r] = bench_now() - t0;
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
    bench_packed_run(reps, pool, &g_options);
  }
  if (g_num_results > 0) {
    summary(threads);
  }
  bench_packed_summary(threads);
  cleave_threadpool_destroy(pool);
  free(g_in);
  free(g_copy);
  return 0;
}
