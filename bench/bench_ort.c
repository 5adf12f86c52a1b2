/*
 * cleave against ONNX Runtime's CPU Split kernel in one process, on the same input buffer:
 * repeated splits whose outputs the library allocates (ONNX Runtime's `Run` with its memory
 * arena, cleave with its output arena), and cleave into caller buffers for scale. Outputs are
 * checked byte-identical. 1 and 2 threads (ONNX Runtime's intra-op threads; cleave's built-in
 * pool). A pause (--pause seconds) precedes every sample, as in bench_alloc.
 *
 * ONNX Runtime is loaded at run time from the path given (see ort_api.h); the models come from
 * bench/make_ort_models.py.
 *
 * Usage: bench_ort --ort LIBONNXRUNTIME --models DIR [--runs N] [--reps N] [--pause S]
 *                  [--only abcdef]
 */
#define _POSIX_C_SOURCE 200809L

#include "bench_cases.h"
#include "bench_util.h"
#include "cleave.h"

#include "ort_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 51
#define MAX_RUNS 11
#define SMALL_CALLS 2000

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pause_for(double seconds) {
  if (seconds > 0) {
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

enum { S_CALLER, S_ARENA, S_ORT, S_PER_T, NUM_SLOTS = 2 * S_PER_T };
static const char *const slot_names[NUM_SLOTS] = {"cleave caller 1T", "cleave arena 1T",
                                                  "ORT Run 1T",       "cleave caller 2T",
                                                  "cleave arena 2T",  "ORT Run 2T"};

typedef struct ort_case {
  void *session[2];
  void *input;
  const char *in_name;
  const char **out_names;
  void **values;
} ort_case;

typedef struct results {
  const bench_case *c;
  double med[MAX_RUNS][NUM_SLOTS];
} results;

static unsigned char *g_in;

static void run_ort(ort_case *o, int t, size_t n) {
  ort_run(o->session[t], &o->in_name, &o->input, 1, o->out_names, o->values, n);
}

static void release_ort(ort_case *o, size_t n) {
  for (size_t i = 0; i < n; i++) {
    ort_release(&o->values[i]);
  }
}

static void run_case(results *res, int run, const char *models, void *env, cleave_threadpool *pool,
                     cleave_arena *arena, int reps, double pause) {
  const bench_case *c = res->c;
  size_t bytes = bench_case_bytes(c);
  cleave_op op = bench_case_op(c);
  cleave_plan *plan = NULL;
  cleave_error err;
  bench_check(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), c->shape, c->rank, &plan, &err),
              &err, "plan");
  size_t n = cleave_plan_info(plan)->num_outputs;
  void **caller = calloc(n, sizeof *caller), **outs = calloc(n, sizeof *outs);
  for (size_t i = 0; i < n; i++) {
    caller[i] = bench_alloc_touched((size_t)cleave_plan_output_bytes(plan, i));
  }
  cleave_exec exec1 = {NULL, NULL, 0}, exec2 = cleave_exec_threadpool(pool);
  cleave_allocator from_arena = cleave_arena_allocator(arena);

  ort_case o;
  memset(&o, 0, sizeof o);
  char path[4096];
  snprintf(path, sizeof path, "%s/split_%c.onnx", models, c->letter);
  for (int t = 0; t < 2; t++) {
    o.session[t] = ort_session(env, path, t + 1);
  }
  o.input = ort_tensor(g_in, bytes, c->shape, c->rank);
  o.in_name = "x";
  o.out_names = calloc(n, sizeof *o.out_names);
  o.values = calloc(n, sizeof *o.values);
  char(*names)[24] = calloc(n, sizeof *names);
  for (size_t i = 0; i < n; i++) {
    snprintf(names[i], sizeof names[i], "y%zu", i);
    o.out_names[i] = names[i];
  }

  /* Check: both runtimes write the same bytes; the arena's outputs too. */
  bench_check(cleave_plan_run(plan, g_in, caller, &err), &err, "run");
  for (int t = 0; t < 2; t++) {
    run_ort(&o, t, n);
    for (size_t i = 0; i < n; i++) {
      if (memcmp(ort_data(o.values[i]), caller[i], (size_t)cleave_plan_output_bytes(plan, i)) !=
          0) {
        fprintf(stderr, "case %c: ONNX Runtime's output %zu differs from cleave's\n", c->letter, i);
        exit(1);
      }
    }
    release_ort(&o, n);
  }
  bench_check(cleave_plan_run_alloc_with(plan, g_in, &exec2, &from_arena, outs, &err), &err,
              "alloc");
  for (size_t i = 0; i < n; i++) {
    if (memcmp(outs[i], caller[i], (size_t)cleave_plan_output_bytes(plan, i)) != 0) {
      fprintf(stderr, "case %c: arena output %zu differs\n", c->letter, i);
      exit(1);
    }
  }
  cleave_outputs_free(outs, n);

  int calls = bytes < ((size_t)1 << 20) ? SMALL_CALLS : 1;
  double t[NUM_SLOTS][MAX_REPS];
  for (int r = -1; r < reps; r++) { /* r = -1: warm-up (ORT's arena grows, cleave's too) */
    for (int k = 0; k < NUM_SLOTS; k++) {
      int s = (k + (r < 0 ? 0 : r)) % NUM_SLOTS, th = s / S_PER_T, v = s % S_PER_T;
      const cleave_exec *exec = th ? &exec2 : &exec1;
      if (r >= 0) {
        pause_for(pause); /* before every sample: each starts from the same idle machine */
      }
      double t0 = now();
      for (int call = 0; call < calls; call++) {
        if (v == S_CALLER) {
          bench_check(cleave_plan_run_exec(plan, g_in, caller, exec, &err), &err, "run");
        } else if (v == S_ARENA) {
          bench_check(cleave_plan_run_alloc_with(plan, g_in, exec, &from_arena, outs, &err), &err,
                      "alloc");
          cleave_outputs_free(outs, n);
        } else {
          run_ort(&o, th, n);
          release_ort(&o, n);
        }
      }
      if (r >= 0) {
        t[s][r] = (now() - t0) / calls;
      }
    }
  }
  printf("run %d (%c) %s\n", run + 1, c->letter, c->what);
  for (int s = 0; s < NUM_SLOTS; s++) {
    res->med[run][s] = bench_median(t[s], reps);
    printf("    %-18s %12.3f us\n", slot_names[s], res->med[run][s] * 1e6);
  }
  fflush(stdout);
  ort_release(&o.input);
  free(names);
  free(o.out_names);
  free(o.values);
  for (size_t i = 0; i < n; i++) {
    free(caller[i]);
  }
  free(caller);
  free(outs);
  cleave_plan_destroy(plan);
}

int main(int argc, char **argv) {
  const char *ort = NULL, *models = NULL, *only = "abcdef";
  int runs = 3, reps = 5;
  double pause = 1.0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ort") == 0 && i + 1 < argc) {
      ort = argv[++i];
    } else if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) {
      models = argv[++i];
    } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--pause") == 0 && i + 1 < argc) {
      pause = atof(argv[++i]);
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      ort = NULL;
      break;
    }
  }
  if (ort == NULL || models == NULL || runs < 1 || runs > MAX_RUNS || reps < 1 || reps > MAX_REPS) {
    fprintf(stderr,
            "usage: %s --ort LIBONNXRUNTIME --models DIR [--runs N] [--reps N] [--pause S] "
            "[--only abcdef]\n",
            argv[0]);
    return 2;
  }
  void *env = NULL;
  const char *version = ort_load(ort, &env);
  results res[8];
  int num = 0;
  size_t most = 0;
  for (size_t k = 0; k < bench_num_cases; k++) {
    if (strchr(only, bench_cases[k].letter) != NULL) {
      res[num++].c = &bench_cases[k];
      size_t b = bench_case_bytes(&bench_cases[k]);
      most = b > most ? b : most;
    }
  }
  g_in = bench_alloc_input(most);
  printf("cleave %s vs ONNX Runtime %s: %d runs x %d samples, pause %.2f s before each "
         "sample\n",
         cleave_version_string(), version, runs, reps, pause);
  for (int run = 0; run < runs; run++) {
    cleave_threadpool *pool = NULL;
    cleave_arena *arena = NULL;
    cleave_error err;
    bench_check(cleave_threadpool_create(2, &pool, &err), &err, "pool");
    bench_check(cleave_arena_create((size_t)1 << 30, NULL, &arena, &err), &err, "arena");
    for (int k = 0; k < num; k++) {
      run_case(&res[k], run, models, env, pool, arena, reps, pause);
    }
    cleave_arena_destroy(arena);
    cleave_threadpool_destroy(pool);
  }
  printf("\n## Summary: medians of %d per-run medians\n\n", runs);
  printf("| case | T | cleave caller buffers | cleave arena | ORT Run (its arena) | ORT / cleave "
         "arena | arena / caller |\n|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < num; k++) {
    for (int th = 0; th < 2; th++) {
      double m[S_PER_T];
      for (int v = 0; v < S_PER_T; v++) {
        double col[MAX_RUNS];
        for (int r = 0; r < runs; r++) {
          col[r] = res[k].med[r][th * S_PER_T + v];
        }
        m[v] = bench_median(col, runs);
      }
      printf("| (%c) | %d | %.3f ms | %.3f ms | %.3f ms | %.2fx | %.3f |\n", res[k].c->letter,
             th + 1, m[S_CALLER] * 1e3, m[S_ARENA] * 1e3, m[S_ORT] * 1e3, m[S_ORT] / m[S_ARENA],
             m[S_ARENA] / m[S_CALLER]);
    }
  }
  free(g_in);
  return 0;
}
