/*
 * Repeated allocating splits (issue 17): loops of run-allocate-free on cases (a)-(f), on 1 and 2
 * threads, with the library's output arena and without it (the system allocator), next to the
 * same split into caller buffers and to memcpy of the same bytes into reused and into fresh
 * memory. Every sample follows a pause (default 1 s) in which the host may take freed memory
 * back, as it does between the calls of a real program that does other work; the samples that
 * allocate nothing pause too, so that every variant starts from the same idle machine (when only
 * the allocating samples paused, the arena's took 1.0-1.4x the time of the caller-buffer samples
 * of the same run, 0.96-1.01x without pauses).
 *
 * One sample is one call (allocation, copy and release all timed), or for the small case (f)
 * the mean of many calls. Variants are interleaved sample by sample. The whole measurement is
 * repeated `--runs` times with a new pool, arena and plans each time; per run the median of
 * `--reps` samples is kept, and the summary gives the median of the per-run medians, the ratios
 * the targets are stated in, and the spread (max/min) of the per-run medians.
 *
 * Usage: bench_alloc [--runs N] [--reps N] [--pause SECONDS] [--only abcdef] [--limit MIB]
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_cases.h"
#include "bench_util.h"
#include "cleave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MAX_REPS 51
#define MAX_RUNS 11
#define MAX_OUTPUTS 1024
#define SMALL_CALLS 5000

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pause_for(double seconds) {
  if (seconds <= 0) {
    return;
  }
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL);
}

static long minor_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/* Variants; the threaded ones are measured at 1 and 2 threads. */
enum { V_CALLER, V_ARENA, V_SYSTEM, V_THREADED, V_MEMCPY_REUSED = V_THREADED, V_MEMCPY_FRESH };
#define NUM_SLOTS (2 * V_THREADED + 2)
static const char *const slot_names[NUM_SLOTS] = {
    "caller buffers 1T", "arena 1T",    "no arena 1T",      "caller buffers 2T",
    "arena 2T",          "no arena 2T", "memcpy reused 1T", "memcpy fresh 1T"};
static int slot_of(int v, int threads) {
  return v < V_THREADED ? v + (threads == 2 ? V_THREADED : 0) : V_THREADED + v;
}

/* Per case: per run, the median of each slot, and the median page faults per call. */
typedef struct case_stats {
  const bench_case *c;
  double med[MAX_RUNS][NUM_SLOTS];
  double faults[MAX_RUNS][NUM_SLOTS];
} case_stats;

static unsigned char *g_in;

/* One sample of slot `s`: the time per call. */
static double sample(int s, const cleave_plan *plan, size_t n, void **outs, void *const *caller,
                     unsigned char *reused, size_t bytes, const cleave_exec *exec1,
                     const cleave_exec *exec2, const cleave_allocator *arena, int calls,
                     long *faults) {
  cleave_error err;
  int v = s < V_THREADED ? s : s < 2 * V_THREADED ? s - V_THREADED : s - V_THREADED;
  const cleave_exec *exec = (s >= V_THREADED && s < 2 * V_THREADED) ? exec2 : exec1;
  long f0 = minor_faults();
  double t0 = now();
  for (int k = 0; k < calls; k++) {
    if (s >= 2 * V_THREADED) {
      if (s == slot_of(V_MEMCPY_REUSED, 1)) {
        memcpy(reused, g_in, bytes);
      } else {
        void *p = malloc(bytes);
        if (p == NULL) {
          exit(1);
        }
        memcpy(p, g_in, bytes);
        /* The copy is used (as far as the compiler knows): it may not drop it. */
        __asm__ volatile("" : : "r"(p) : "memory");
        free(p);
      }
      continue;
    }
    switch (v) {
    case V_CALLER:
      bench_check(cleave_plan_run_exec(plan, g_in, caller, exec, &err), &err, "run_exec");
      break;
    case V_ARENA:
      bench_check(cleave_plan_run_alloc_with(plan, g_in, exec, arena, outs, &err), &err,
                  "alloc arena");
      cleave_outputs_free(outs, n);
      break;
    default:
      bench_check(cleave_plan_run_alloc(plan, g_in, exec, outs, &err), &err, "alloc");
      cleave_outputs_free(outs, n);
      break;
    }
  }
  double t = (now() - t0) / calls;
  *faults = (minor_faults() - f0) / calls;
  return t;
}

/* The allocated outputs of both allocating variants equal the caller-buffer outputs. */
static void verify(const cleave_plan *plan, size_t n, void *const *caller,
                   const cleave_allocator *arena, const cleave_exec *exec, char letter) {
  void *outs[MAX_OUTPUTS];
  cleave_error err;
  bench_check(cleave_plan_run_exec(plan, g_in, caller, exec, &err), &err, "run_exec");
  for (int k = 0; k < 2; k++) {
    bench_check(cleave_plan_run_alloc_with(plan, g_in, exec, k ? arena : NULL, outs, &err), &err,
                "alloc");
    for (size_t i = 0; i < n; i++) {
      if (memcmp(outs[i], caller[i], (size_t)cleave_plan_output_bytes(plan, i)) != 0) {
        fprintf(stderr, "case %c: allocated output %zu differs\n", letter, i);
        exit(1);
      }
    }
    cleave_outputs_free(outs, n);
  }
}

static void run_case(case_stats *st, int run, int reps, double pause, cleave_threadpool *pool,
                     cleave_arena *arena) {
  const bench_case *c = st->c;
  size_t bytes = bench_case_bytes(c);
  cleave_op op = bench_case_op(c);
  cleave_plan *plan = NULL;
  cleave_error err;
  bench_check(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), c->shape, c->rank, &plan, &err),
              &err, "plan");
  size_t n = cleave_plan_info(plan)->num_outputs;
  void **caller = calloc(n, sizeof *caller);
  void **outs = calloc(n, sizeof *outs);
  for (size_t i = 0; i < n; i++) {
    caller[i] = bench_alloc_touched((size_t)cleave_plan_output_bytes(plan, i));
  }
  unsigned char *reused = bench_alloc_touched(bytes);
  cleave_exec exec1 = {NULL, NULL, 0}, exec2 = cleave_exec_threadpool(pool);
  cleave_allocator from_arena = cleave_arena_allocator(arena);
  int calls = bytes < ((size_t)1 << 20) ? SMALL_CALLS : 1;
  verify(plan, n, caller, &from_arena, &exec2, c->letter);
  /* Warm-up: every variant once (the arena gets its block). */
  long faults = 0;
  for (int s = 0; s < NUM_SLOTS; s++) {
    sample(s, plan, n, outs, caller, reused, bytes, &exec1, &exec2, &from_arena, 1, &faults);
  }
  double t[NUM_SLOTS][MAX_REPS], f[NUM_SLOTS][MAX_REPS];
  for (int r = 0; r < reps; r++) {
    for (int k = 0; k < NUM_SLOTS; k++) {
      int s = (k + r) % NUM_SLOTS; /* rotate the order */
      pause_for(pause); /* before every sample, so that each starts from the same idle state */
      t[s][r] = sample(s, plan, n, outs, caller, reused, bytes, &exec1, &exec2, &from_arena, calls,
                       &faults);
      f[s][r] = (double)faults;
    }
  }
  printf("run %d (%c) %s, %zu bytes\n", run + 1, c->letter, c->what, bytes);
  for (int s = 0; s < NUM_SLOTS; s++) {
    st->med[run][s] = bench_median(t[s], reps);
    st->faults[run][s] = bench_median(f[s], reps);
    printf("    %-18s %12.3f us   %8.0f faults/call\n", slot_names[s], st->med[run][s] * 1e6,
           st->faults[run][s]);
  }
  fflush(stdout);
  for (size_t i = 0; i < n; i++) {
    free(caller[i]);
  }
  free(caller);
  free(outs);
  free(reused);
  cleave_plan_destroy(plan);
}

static void summary(case_stats *stats, int num, int runs) {
  printf(
      "\n## Summary: medians of %d per-run medians (spread = max/min of the per-run medians)\n\n",
      runs);
  printf("| case | T | caller buffers | arena | arena / caller | arena spread | no arena | "
         "no arena spread | no arena 2T/1T | memcpy reused | memcpy fresh | faults/call arena, "
         "no arena |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < num; k++) {
    case_stats *st = &stats[k];
    double m[NUM_SLOTS], fa[NUM_SLOTS], lo[NUM_SLOTS], hi[NUM_SLOTS];
    for (int s = 0; s < NUM_SLOTS; s++) {
      double v[MAX_RUNS], w[MAX_RUNS];
      lo[s] = hi[s] = st->med[0][s];
      for (int r = 0; r < runs; r++) {
        v[r] = st->med[r][s];
        w[r] = st->faults[r][s];
        lo[s] = v[r] < lo[s] ? v[r] : lo[s];
        hi[s] = v[r] > hi[s] ? v[r] : hi[s];
      }
      m[s] = bench_median(v, runs);
      fa[s] = bench_median(w, runs);
    }
    for (int threads = 1; threads <= 2; threads++) {
      int sc = slot_of(V_CALLER, threads), sa = slot_of(V_ARENA, threads),
          ss = slot_of(V_SYSTEM, threads);
      char tc[32], ta[32], ts[32], tr[32], tf[32], ratio2[32];
      bench_fmt_time(tc, sizeof tc, m[sc], 2);
      bench_fmt_time(ta, sizeof ta, m[sa], 2);
      bench_fmt_time(ts, sizeof ts, m[ss], 2);
      snprintf(tr, sizeof tr, "-");
      snprintf(tf, sizeof tf, "-");
      snprintf(ratio2, sizeof ratio2, "-");
      if (threads == 1) {
        bench_fmt_time(tr, sizeof tr, m[slot_of(V_MEMCPY_REUSED, 1)], 2);
        bench_fmt_time(tf, sizeof tf, m[slot_of(V_MEMCPY_FRESH, 1)], 2);
      } else {
        /* Per run: 2T time over 1T time; the median of those and the worst run. */
        double q[MAX_RUNS], worst = 0;
        for (int r = 0; r < runs; r++) {
          q[r] = st->med[r][ss] / st->med[r][slot_of(V_SYSTEM, 1)];
          worst = q[r] > worst ? q[r] : worst;
        }
        snprintf(ratio2, sizeof ratio2, "%.2f (worst %.2f)", bench_median(q, runs), worst);
      }
      printf("| (%c) | %d | %s | %s | %.3f | %.2fx | %s | %.2fx | %s | %s | %s | %.0f, %.0f |\n",
             st->c->letter, threads, tc, ta, m[sa] / m[sc], hi[sa] / lo[sa], ts, hi[ss] / lo[ss],
             ratio2, tr, tf, fa[sa], fa[ss]);
    }
  }
}

int main(int argc, char **argv) {
  int runs = 5, reps = 5;
  double pause = 1.0;
  size_t limit_mib = 1024;
  const char *only = "abcdef";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--pause") == 0 && i + 1 < argc) {
      pause = atof(argv[++i]);
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
      limit_mib = (size_t)atol(argv[++i]);
    } else {
      fprintf(stderr,
              "usage: %s [--runs N] [--reps N] [--pause SECONDS] [--only abcdef] [--limit MIB]\n",
              argv[0]);
      return 2;
    }
  }
  if (runs < 1 || runs > MAX_RUNS || reps < 1 || reps > MAX_REPS || pause < 0) {
    fprintf(stderr, "--runs must be in [1, %d], --reps in [1, %d], --pause >= 0\n", MAX_RUNS,
            MAX_REPS);
    return 2;
  }
  size_t most = 0;
  case_stats stats[8];
  int num = 0;
  for (size_t k = 0; k < bench_num_cases; k++) {
    if (strchr(only, bench_cases[k].letter) != NULL) {
      memset(&stats[num], 0, sizeof stats[num]);
      stats[num++].c = &bench_cases[k];
      size_t b = bench_case_bytes(&bench_cases[k]);
      most = b > most ? b : most;
    }
  }
  g_in = bench_alloc_input(most);
  printf("cleave %s allocating-split benchmark: %d runs x %d samples, pause %.2f s before each "
         "sample, arena limit %zu MiB\n",
         cleave_version_string(), runs, reps, pause, limit_mib);
  for (int run = 0; run < runs; run++) {
    cleave_threadpool *pool = NULL;
    cleave_arena *arena = NULL;
    cleave_error err;
    bench_check(cleave_threadpool_create(2, &pool, &err), &err, "pool");
    bench_check(cleave_arena_create(limit_mib << 20, NULL, &arena, &err), &err, "arena");
    for (int k = 0; k < num; k++) {
      run_case(&stats[k], run, reps, pause, pool, arena);
    }
    cleave_arena_stats as = cleave_arena_get_stats(arena);
    printf("run %d arena: %zu reused, %zu new blocks, %zu MiB kept\n", run + 1, as.reused,
           as.allocated, as.kept_bytes >> 20);
    cleave_arena_destroy(arena);
    cleave_threadpool_destroy(pool);
  }
  summary(stats, num, runs);
  free(g_in);
  return 0;
}
