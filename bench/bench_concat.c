/*
 * cleave's concat benchmark (issue 22): the inverse of cases (a)-(f), joining the parts a split of
 * the case makes back into the whole tensor, per case the median time of a prepared concat plan
 * into a caller buffer on 1 thread and on a built-in pool, and into an output from the output
 * arena, next to plain copies of the same bytes (glibc memcpy, rep movsb, an AVX2 non-temporal
 * copy) measured in the same run, interleaved rep by rep, each sample of a case smaller than 96 MiB
 * after the caches were emptied. Every output is checked against the tensor the parts came from.
 * With --runs N the whole set runs N times and the summary gives the medians of the per-run
 * medians and ratios.
 *
 * Usage: bench_concat [--reps N] [--runs N] [--threads N] [--only LETTERS]
 *                     [--nontemporal-bytes N] [--parallel-bytes N] [--tiny-bytes N]
 *                     [--kernels portable|avx2]   (plan options; default: the library's)
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_cases.h"
#include "bench_copy.h"
#include "bench_util.h"
#include "cleave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 101
#define MAX_RUNS 11

enum { V_MEMCPY, V_MOVSB, V_NT, V_CLEAVE1, V_CLEAVEN, V_ARENA, V_COUNT };
static const char *const variant_names[V_COUNT] = {"memcpy",    "rep movsb", "nt copy",
                                                   "cleave 1T", "cleave NT", "arena 1T"};

/* Per case and run: the medians of each variant. */
typedef struct case_result {
  const bench_case *c;
  double med[MAX_RUNS][V_COUNT];
} case_result;

static unsigned char *g_in, *g_copy, *g_out;
static cleave_plan_options g_options;
static size_t g_size;

static void ensure_buffers(size_t bytes) {
  if (bytes <= g_size) {
    return;
  }
  free(g_in);
  free(g_copy);
  free(g_out);
  g_in = bench_alloc_input(bytes);
  g_copy = bench_alloc_touched(bytes);
  g_out = bench_alloc_touched(bytes);
  g_size = bytes;
}

/* Caches are emptied before every sample of a case whose data could stay in the last-level cache
 * (e.g. (d): 16 MiB of inputs and 16 MiB of output against a 32 MiB L3), so that no variant finds
 * what the one before it read: by writing a scratch buffer of several times the cache's size. */
#define EVICT_BYTES ((size_t)96 << 20)
static unsigned char *g_scratch;

static void evict(void) {
  if (g_scratch == NULL) {
    g_scratch = bench_alloc_touched(EVICT_BYTES);
  }
  memset(g_scratch, (int)(g_scratch[0] + 1), EVICT_BYTES);
}

/* The parts of case `c`: the split's outputs of the benchmark input, in touched buffers. */
typedef struct parts {
  size_t n;
  void **data;
  cleave_tensor *tensors;
  int64_t (*shapes)[4];
} parts;

static void parts_make(parts *p, const bench_case *c) {
  cleave_op op = bench_case_op(c);
  cleave_plan *plan = NULL;
  cleave_error err;
  bench_check(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), c->shape, c->rank, &plan, &err),
              &err, "split plan");
  p->n = cleave_plan_info(plan)->num_outputs;
  p->data = calloc(p->n, sizeof *p->data);
  p->tensors = calloc(p->n, sizeof *p->tensors);
  p->shapes = calloc(p->n, sizeof *p->shapes);
  if (p->data == NULL || p->tensors == NULL || p->shapes == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < p->n; i++) {
    p->data[i] = bench_alloc_touched((size_t)cleave_plan_output_bytes(plan, i));
    bench_check(cleave_plan_output_shape(plan, i, p->shapes[i], &err), &err, "shape");
    p->tensors[i] = (cleave_tensor){p->data[i], cleave_type_of(CLEAVE_F32), c->rank, p->shapes[i]};
  }
  bench_check(cleave_plan_run(plan, g_in, p->data, &err), &err, "split");
  cleave_plan_destroy(plan);
}

static void parts_free(parts *p) {
  for (size_t i = 0; i < p->n; i++) {
    free(p->data[i]);
  }
  free(p->data);
  free(p->tensors);
  free(p->shapes);
}

static void run_variant(int v, const cleave_concat_plan *plan, const void *const *ptrs,
                        size_t bytes, const cleave_exec *pooled, const cleave_allocator *arena,
                        int calls) {
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
      bench_check(cleave_concat_plan_run(plan, ptrs, g_out, NULL, &err), &err, "concat");
      break;
    case V_CLEAVEN:
      bench_check(cleave_concat_plan_run(plan, ptrs, g_out, pooled, &err), &err, "concat");
      break;
    default: {
      void *out = NULL;
      bench_check(cleave_concat_plan_run_alloc(plan, ptrs, NULL, arena, &out, &err), &err,
                  "concat alloc");
      cleave_outputs_free(&out, 1);
      break;
    }
    }
  }
}

static void run_case(case_result *res, int run, int reps, cleave_threadpool *pool,
                     cleave_arena *arena) {
  const bench_case *c = res->c;
  size_t bytes = bench_case_bytes(c);
  ensure_buffers(bytes);
  parts p;
  parts_make(&p, c);
  cleave_concat_op op = cleave_op_concat(&c->axis);
  cleave_concat_plan *plan = NULL;
  cleave_error err;
  bench_check(cleave_concat_plan_create(&op, p.tensors, p.n, &g_options, &plan, &err), &err,
              "concat plan");
  cleave_exec pooled = cleave_exec_threadpool(pool);
  cleave_allocator from_arena = cleave_arena_allocator(arena);
  const void *const *ptrs = (const void *const *)p.data;
  int calls = bytes < ((size_t)1 << 20) ? 20000 : 1;
  for (int v = 0; v < V_COUNT; v++) {
    run_variant(v, plan, ptrs, bytes, &pooled, &from_arena, calls > 1 ? 1000 : 1); /* warm-up */
    if (v <= V_NT && memcmp(g_copy, g_in, bytes) != 0) {
      fprintf(stderr, "bench_concat: the %s baseline copied wrong bytes\n", variant_names[v]);
      exit(1);
    }
    if (v < V_NT) {
      memset(g_copy, 0, bytes);
    }
  }
  /* The join is the split's input again. */
  memset(g_out, 0, bytes);
  bench_check(cleave_concat_plan_run(plan, ptrs, g_out, &pooled, &err), &err, "concat");
  void *allocated = NULL;
  bench_check(cleave_concat_plan_run_alloc(plan, ptrs, NULL, &from_arena, &allocated, &err), &err,
              "concat alloc");
  if (memcmp(g_out, g_in, bytes) != 0 || memcmp(allocated, g_in, bytes) != 0) {
    fprintf(stderr, "case %c: the concat differs from the tensor the parts came from\n", c->letter);
    exit(1);
  }
  cleave_outputs_free(&allocated, 1);
  double t[V_COUNT][MAX_REPS];
  for (int r = 0; r < reps; r++) {
    for (int k = 0; k < V_COUNT; k++) {
      int v = (k + r) % V_COUNT; /* a rotating order: no variant always follows another */
      if (v == V_NT && !bench_has_avx2()) {
        t[v][r] = 0;
        continue;
      }
      if (calls == 1 && bytes < EVICT_BYTES) {
        evict();
      }
      double t0 = bench_now();
      run_variant(v, plan, ptrs, bytes, &pooled, &from_arena, calls);
      t[v][r] = (bench_now() - t0) / calls;
    }
  }
  printf("run %d (%c) concat, the inverse of %s   plan: %s\n", run + 1, c->letter, c->what,
         cleave_concat_plan_description(plan));
  for (int v = 0; v < V_COUNT; v++) {
    res->med[run][v] = bench_median(t[v], reps);
    char name[32];
    snprintf(name, sizeof name, "%s", variant_names[v]);
    if (v == V_CLEAVEN) {
      snprintf(name, sizeof name, "cleave %zuT", cleave_threadpool_threads(pool));
    }
    printf("    %-12s %12.3f us  %7.2f GB/s\n", name, res->med[run][v] * 1e6,
           res->med[run][v] > 0 ? 2.0 * (double)bytes / res->med[run][v] * 1e-9 : 0.0);
  }
  fflush(stdout);
  cleave_concat_plan_destroy(plan);
  parts_free(&p);
}

/* The best plain copy of a run's medians. */
static double best_copy(const double *med) {
  double best = med[V_MEMCPY];
  for (int v = V_MOVSB; v <= V_NT; v++) {
    if (med[v] > 0 && med[v] < best) {
      best = med[v];
    }
  }
  return best;
}

static void summary(const case_result *res, int num, int runs, size_t threads) {
  printf("\n## Summary: medians of %d per-run medians (ratios per run, then their median)\n\n",
         runs);
  printf("| case | cleave 1T | memcpy | rep movsb | nt copy | best copy / cleave 1T (runs) | "
         "target | cleave %zuT | %zuT speed-up over 1T (runs) | arena alloc 1T |\n",
         threads, threads);
  printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < num; k++) {
    double col[V_COUNT][MAX_RUNS], ratio[MAX_RUNS], speed[MAX_RUNS];
    char ratios[128] = "", speeds[128] = "";
    for (int r = 0; r < runs; r++) {
      for (int v = 0; v < V_COUNT; v++) {
        col[v][r] = res[k].med[r][v];
      }
      ratio[r] = best_copy(res[k].med[r]) / res[k].med[r][V_CLEAVE1];
      speed[r] = res[k].med[r][V_CLEAVE1] / res[k].med[r][V_CLEAVEN];
      size_t at = strlen(ratios), as = strlen(speeds);
      snprintf(ratios + at, sizeof ratios - at, "%s%.2f", r ? ", " : "", ratio[r]);
      snprintf(speeds + as, sizeof speeds - as, "%s%.2f", r ? ", " : "", speed[r]);
    }
    char t[V_COUNT][32];
    for (int v = 0; v < V_COUNT; v++) {
      bench_fmt_time(t[v], sizeof t[v], bench_median(col[v], runs), 3);
    }
    int large = res[k].c->letter != 'f';
    double mr = bench_median(ratio, runs), ms = bench_median(speed, runs);
    printf("| (%c) | %s | %s | %s | %s | %.3f (%s) | %s | %s | %.2fx (%s) | %s |\n",
           res[k].c->letter, t[V_CLEAVE1], t[V_MEMCPY], t[V_MOVSB], t[V_NT], mr, ratios,
           large ? (mr >= 0.9 ? ">= 0.9: met" : ">= 0.9: not met") : "(per call)", t[V_CLEAVEN], ms,
           speeds, t[V_ARENA]);
  }
}

int main(int argc, char **argv) {
  int reps = 11, runs = 1;
  size_t threads = 2;
  const char *only = "abcdef";
  g_options = cleave_plan_options_default();
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = atoi(argv[++i]);
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
      fprintf(stderr, "usage: %s [--reps N] [--runs N] [--threads N] [--only abcdef]\n", argv[0]);
      return 2;
    }
  }
  if (reps < 1 || reps > MAX_REPS || runs < 1 || runs > MAX_RUNS || threads < 1) {
    fprintf(stderr, "--reps must be in [1, %d], --runs in [1, %d], --threads >= 1\n", MAX_REPS,
            MAX_RUNS);
    return 2;
  }
  cleave_threadpool *pool = NULL;
  cleave_arena *arena = NULL;
  cleave_error err;
  bench_check(cleave_threadpool_create(threads, &pool, &err), &err, "pool");
  bench_check(cleave_arena_create((size_t)1 << 30, NULL, &arena, &err), &err, "arena");
  case_result res[8];
  int num = 0;
  for (size_t k = 0; k < bench_num_cases; k++) {
    if (strchr(only, bench_cases[k].letter) != NULL) {
      res[num++].c = &bench_cases[k];
    }
  }
  printf("cleave %s concat benchmark: %d runs x medians of %d samples, f32, bandwidth counts read "
         "+ write\n",
         cleave_version_string(), runs, reps);
  for (int run = 0; run < runs; run++) {
    for (int k = 0; k < num; k++) {
      run_case(&res[k], run, reps, pool, arena);
    }
  }
  summary(res, num, runs, threads);
  cleave_arena_destroy(arena);
  cleave_threadpool_destroy(pool);
  free(g_in);
  free(g_copy);
  free(g_out);
  free(g_scratch);
  return 0;
}
