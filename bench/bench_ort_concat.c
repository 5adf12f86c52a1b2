/*
 * cleave's concat against ONNX Runtime's CPU Concat kernel in one process (issue 22), the inverse
 * of cases (a)-(f): the same parts (a split of the benchmark input) joined into a caller buffer
 * (cleave_concat_plan_run; ONNX Runtime's Run with a pre-allocated output over the same buffer)
 * and into outputs the library allocates (cleave's output arena; ONNX Runtime's own arena). Every
 * output is checked against the tensor the parts came from. 1 and 2 threads (ONNX Runtime's
 * intra-op threads; cleave's built-in pool), variants interleaved in a rotating order, a pause
 * (--pause seconds) before every sample.
 *
 * Usage: bench_ort_concat --ort LIBONNXRUNTIME --models DIR [--runs N] [--reps N] [--pause S]
 *                         [--only abcdef]
 * (models from bench/make_ort_models.py; ONNX Runtime as in ort_api.h)
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

enum { S_CALLER, S_ARENA, S_ORT_CALLER, S_ORT_ALLOC, S_PER_T, NUM_SLOTS = 2 * S_PER_T };
static const char *const slot_names[S_PER_T] = {"cleave caller", "cleave arena", "ORT caller",
                                                "ORT alloc"};

typedef struct results {
  const bench_case *c;
  double med[MAX_RUNS][NUM_SLOTS];
} results;

static unsigned char *g_in, *g_out;

static void pause_for(double seconds) {
  if (seconds > 0) {
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

/* The parts of a case and what both runtimes need to read them. */
typedef struct parts {
  size_t n;
  void **data;
  cleave_tensor *tensors;
  int64_t (*shapes)[4];
  void **values; /* ONNX Runtime tensors over `data` */
  char (*names)[24];
  const char **name_ptrs;
} parts;

static void parts_make(parts *p, const bench_case *c) {
  cleave_op op = bench_case_op(c);
  cleave_plan *plan = NULL;
  cleave_error err;
  bench_check(cleave_plan_create(&op, cleave_type_of(CLEAVE_F32), c->shape, c->rank, &plan, &err),
              &err, "split plan");
  size_t n = cleave_plan_info(plan)->num_outputs;
  p->n = n;
  p->data = calloc(n, sizeof *p->data);
  p->tensors = calloc(n, sizeof *p->tensors);
  p->shapes = calloc(n, sizeof *p->shapes);
  p->values = calloc(n, sizeof *p->values);
  p->names = calloc(n, sizeof *p->names);
  p->name_ptrs = calloc(n, sizeof *p->name_ptrs);
  if (!p->data || !p->tensors || !p->shapes || !p->values || !p->names || !p->name_ptrs) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < n; i++) {
    size_t bytes = (size_t)cleave_plan_output_bytes(plan, i);
    p->data[i] = bench_alloc_touched(bytes);
    bench_check(cleave_plan_output_shape(plan, i, p->shapes[i], &err), &err, "shape");
    p->tensors[i] = (cleave_tensor){p->data[i], cleave_type_of(CLEAVE_F32), c->rank, p->shapes[i]};
    p->values[i] = ort_tensor(p->data[i], bytes, p->shapes[i], c->rank);
    snprintf(p->names[i], sizeof p->names[i], "x%zu", i);
    p->name_ptrs[i] = p->names[i];
  }
  bench_check(cleave_plan_run(plan, g_in, p->data, &err), &err, "split");
  cleave_plan_destroy(plan);
}

static void parts_free(parts *p) {
  for (size_t i = 0; i < p->n; i++) {
    ort_release(&p->values[i]);
    free(p->data[i]);
  }
  free(p->data);
  free(p->tensors);
  free(p->shapes);
  free(p->values);
  free(p->names);
  free(p->name_ptrs);
}

static void fail_if_differs(const void *got, size_t bytes, char letter, const char *what) {
  if (memcmp(got, g_in, bytes) != 0) {
    fprintf(stderr, "case %c: %s differs from the tensor the parts came from\n", letter, what);
    exit(1);
  }
}

static void run_case(results *res, int run, const char *models, void *env, cleave_threadpool *pool,
                     cleave_arena *arena, int reps, double pause) {
  const bench_case *c = res->c;
  size_t bytes = bench_case_bytes(c);
  parts p;
  parts_make(&p, c);
  cleave_concat_op op = cleave_op_concat(&c->axis);
  cleave_concat_plan *plan = NULL;
  cleave_error err;
  bench_check(cleave_concat_plan_create(&op, p.tensors, p.n, NULL, &plan, &err), &err, "plan");
  const void *const *ptrs = (const void *const *)p.data;
  cleave_exec exec2 = cleave_exec_threadpool(pool);
  cleave_allocator from_arena = cleave_arena_allocator(arena);
  char path[4096];
  snprintf(path, sizeof path, "%s/concat_%c.onnx", models, c->letter);
  void *session[2] = {ort_session(env, path, 1), ort_session(env, path, 2)};
  void *caller_value = ort_tensor(g_out, bytes, c->shape, c->rank);
  const char *out_name = "y";

  /* Check: every variant writes the tensor the parts came from. */
  for (int t = 0; t < 2; t++) {
    memset(g_out, 0, bytes);
    bench_check(cleave_concat_plan_run(plan, ptrs, g_out, t ? &exec2 : NULL, &err), &err, "run");
    fail_if_differs(g_out, bytes, c->letter, "cleave's concat");
    void *out = NULL;
    bench_check(
        cleave_concat_plan_run_alloc(plan, ptrs, t ? &exec2 : NULL, &from_arena, &out, &err), &err,
        "alloc");
    fail_if_differs(out, bytes, c->letter, "cleave's allocated concat");
    cleave_outputs_free(&out, 1);
    memset(g_out, 0, bytes);
    ort_run(session[t], p.name_ptrs, p.values, p.n, &out_name, &caller_value, 1);
    fail_if_differs(g_out, bytes, c->letter, "ONNX Runtime's concat into the caller's buffer");
    void *value = NULL;
    ort_run(session[t], p.name_ptrs, p.values, p.n, &out_name, &value, 1);
    fail_if_differs(ort_data(value), bytes, c->letter, "ONNX Runtime's allocated concat");
    ort_release(&value);
  }

  int calls = bytes < ((size_t)1 << 20) ? SMALL_CALLS : 1;
  double t[NUM_SLOTS][MAX_REPS];
  for (int r = -1; r < reps; r++) { /* r = -1: warm-up (the arenas grow) */
    for (int k = 0; k < NUM_SLOTS; k++) {
      int s = (k + (r < 0 ? 0 : r)) % NUM_SLOTS, th = s / S_PER_T, v = s % S_PER_T;
      const cleave_exec *exec = th ? &exec2 : NULL;
      if (r >= 0) {
        pause_for(pause);
      }
      double t0 = bench_now();
      for (int call = 0; call < calls; call++) {
        void *out = NULL;
        switch (v) {
        case S_CALLER:
          bench_check(cleave_concat_plan_run(plan, ptrs, g_out, exec, &err), &err, "run");
          break;
        case S_ARENA:
          bench_check(cleave_concat_plan_run_alloc(plan, ptrs, exec, &from_arena, &out, &err), &err,
                      "alloc");
          cleave_outputs_free(&out, 1);
          break;
        case S_ORT_CALLER:
          ort_run(session[th], p.name_ptrs, p.values, p.n, &out_name, &caller_value, 1);
          break;
        default:
          ort_run(session[th], p.name_ptrs, p.values, p.n, &out_name, &out, 1);
          ort_release(&out);
          break;
        }
      }
      if (r >= 0) {
        t[s][r] = (bench_now() - t0) / calls;
      }
    }
  }
  printf("run %d (%c) concat, the inverse of %s\n", run + 1, c->letter, c->what);
  for (int s = 0; s < NUM_SLOTS; s++) {
    res->med[run][s] = bench_median(t[s], reps);
    printf("    %-14s %dT %12.3f us\n", slot_names[s % S_PER_T], s / S_PER_T + 1,
           res->med[run][s] * 1e6);
  }
  fflush(stdout);
  ort_release(&caller_value);
  cleave_concat_plan_destroy(plan);
  parts_free(&p);
}

int main(int argc, char **argv) {
  const char *ort = NULL, *models = NULL, *only = "abcdef";
  int runs = 3, reps = 5;
  double pause = 0.25;
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
  g_out = bench_alloc_touched(most);
  printf("cleave %s concat vs ONNX Runtime %s: %d runs x %d samples, pause %.2f s before each "
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
  printf(
      "| case | T | cleave caller | ORT caller | ORT / cleave (caller) | cleave arena | ORT alloc "
      "| ORT / cleave (allocating) |\n|---|---|---|---|---|---|---|---|\n");
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
      char tm[S_PER_T][32];
      for (int v = 0; v < S_PER_T; v++) {
        bench_fmt_time(tm[v], sizeof tm[v], m[v], 3);
      }
      printf("| (%c) | %d | %s | %s | %.2fx | %s | %s | %.2fx |\n", res[k].c->letter, th + 1,
             tm[S_CALLER], tm[S_ORT_CALLER], m[S_ORT_CALLER] / m[S_CALLER], tm[S_ARENA],
             tm[S_ORT_ALLOC], m[S_ORT_ALLOC] / m[S_ARENA]);
    }
  }
  free(g_in);
  free(g_out);
  return 0;
}
