/* The copy engine: building a schedule from a geometry, and running it on one or more threads. */
#include "copy/engine.h"

#include <inttypes.h>
#include <string.h>

/* Large runs are cut into this many tasks per thread, so that a thread that starts late (a
 * sleeping worker) or runs slower (a busy core) takes fewer of them. */
#define TASKS_PER_THREAD 64

cleave_plan_options cleave_plan_options_default(void) {
  cleave_plan_options o;
  /* Once input and outputs together exceed about 3/4 of a 32 MiB L3 they will not stay cached
   * anyway: stream the outputs (measured crossover between 8 and 16 MiB). */
  o.nontemporal_bytes = (int64_t)12 * 1024 * 1024;
  /* Waking a sleeping worker costs tens of microseconds in a VM, and in-cache copies gain
   * little from a second thread: below 4 MiB one thread finishes first. */
  o.parallel_bytes = (int64_t)4 * 1024 * 1024;
  o.tiny_bytes = 64;
  o.kernels = CLEAVE_KERNELS_AUTO;
  return o;
}

cleave_status cleave_options_check(const cleave_plan_options *o, cleave_error *err) {
  if (o->nontemporal_bytes < 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "options.nontemporal_bytes is %" PRId64 " but must be >= 0",
                       o->nontemporal_bytes);
  }
  if (o->parallel_bytes < 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "options.parallel_bytes is %" PRId64 " but must be >= 0", o->parallel_bytes);
  }
  if (o->tiny_bytes < 1) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "options.tiny_bytes is %" PRId64 " but must be >= 1", o->tiny_bytes);
  }
  return CLEAVE_OK;
}

cleave_status cleave_kernels_pick(cleave_kernels_choice choice, const cleave_kernels **kernels,
                                  cleave_error *err) {
  switch (choice) {
  case CLEAVE_KERNELS_AUTO:
#if defined(CLEAVE_HAVE_AVX2_KERNELS)
    if (cleave_cpu_has_avx2()) {
      *kernels = &cleave_kernels_avx2;
      return CLEAVE_OK;
    }
#endif
    *kernels = &cleave_kernels_portable;
    return CLEAVE_OK;
  case CLEAVE_KERNELS_PORTABLE:
    *kernels = &cleave_kernels_portable;
    return CLEAVE_OK;
  case CLEAVE_KERNELS_AVX2:
#if defined(CLEAVE_HAVE_AVX2_KERNELS)
    if (cleave_cpu_has_avx2()) {
      *kernels = &cleave_kernels_avx2;
      return CLEAVE_OK;
    }
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "options.kernels is %d (AVX2) but this CPU does not run AVX2 code",
                       (int)choice);
#else
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "options.kernels is %d (AVX2) but this build has no AVX2 kernels",
                       (int)choice);
#endif
  default:
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "options.kernels is %d but must be a cleave_kernels_choice (0 to 2)",
                       (int)choice);
  }
}

int cleave_seg_kind(int64_t unit, int64_t outer, const cleave_plan_options *options) {
  /* With one row every output is a single block: block copies are already the best. */
  if (unit >= options->tiny_bytes || outer < 2) {
    return CLEAVE_SEG_ROWS;
  }
  switch (unit) {
  case 1:
    return CLEAVE_SEG_T1;
  case 2:
    return CLEAVE_SEG_T2;
  case 4:
    return CLEAVE_SEG_T4;
  case 8:
    return CLEAVE_SEG_T8;
  default:
    return CLEAVE_SEG_GATHER;
  }
}

bool cleave_seg_append(cleave_seg *segs, int64_t *count, int64_t capacity, int64_t i, int64_t unit,
                       int64_t col, int64_t outer, const cleave_plan_options *options) {
  if (unit == 0) {
    return true;
  }
  if (*count > 0) {
    cleave_seg *last = &segs[*count - 1];
    if (last->unit == unit && last->first + last->count == i) {
      last->count++;
      return true;
    }
  }
  if (*count == capacity) {
    return false;
  }
  segs[*count] = (cleave_seg){.first = i,
                              .count = 1,
                              .unit = unit,
                              .col = col,
                              .kind = cleave_seg_kind(unit, outer, options)};
  (*count)++;
  return true;
}

void cleave_engine_init(cleave_engine *e, const cleave_geometry *geom,
                        const cleave_plan_options *options, const cleave_kernels *kernels,
                        const cleave_seg *segs, int64_t num_segs, bool join) {
  memset(e, 0, sizeof *e);
  e->kernels = kernels;
  e->join = join;
  e->outer = geom->outer;
  e->stride = cleave_geometry_bytes(geom, geom->info.axis_dim);
  e->segs = segs;
  e->num_segs = num_segs;
  if (num_segs > 0) {
    const cleave_seg *last = &segs[num_segs - 1];
    e->col_lo = segs[0].col;
    e->col_hi = last->col + last->count * last->unit;
  }
  /* Bounded by the input's byte size, which inference proved fits. */
  e->total = e->outer * (e->col_hi - e->col_lo);
  e->input_bytes = e->outer * e->stride;
  e->nontemporal = e->input_bytes >= options->nontemporal_bytes;
  e->parallel_bytes = options->parallel_bytes;
  for (int64_t s = 0; s < num_segs; s++) {
    e->tiny = e->tiny || segs[s].kind != CLEAVE_SEG_ROWS;
  }
}

/* ---- running ----------------------------------------------------------------------------- */

/* The tensors of a run, in either direction: a split reads `in` and writes `outs`, a join reads
 * `ins` and writes `out`. */
typedef struct run_io {
  const unsigned char *in;
  void *const *outs;
  unsigned char *out;
  cleave_parts ins;
} run_io;

typedef struct run_ctx {
  const cleave_engine *e;
  run_io io;
  int64_t parts;
} run_ctx;

/* Block copies of rows [o0, o1), columns [lo, hi), in the engine's direction. */
static void walk(const cleave_engine *e, const run_io *io, int64_t o0, int64_t o1, int64_t lo,
                 int64_t hi) {
  if (e->join) {
    e->kernels->join_walk(e, io->out, io->ins, o0, o1, lo, hi);
  } else {
    e->kernels->walk(e, io->in, io->outs, o0, o1, lo, hi);
  }
}

/* A tiny segment's kernel for rows [o0, o1), in the engine's direction. */
static void tiny(const cleave_engine *e, const cleave_seg *seg, const run_io *io, int64_t o0,
                 int64_t o1) {
  if (e->join) {
    e->kernels->join_tiny[seg->kind](e, seg, io->out, io->ins, o0, o1);
  } else {
    e->kernels->tiny[seg->kind](e, seg, io->in, io->outs, o0, o1);
  }
}

/* Copies rows [r0, r1) segment by segment, a block of rows at a time, so that the lines a tiny
 * kernel reads are still cached when the next segment reads its columns of the same rows. */
static void run_rows(const cleave_engine *e, const run_io *io, int64_t r0, int64_t r1) {
  /* One segment has no neighbour to share the lines with: its kernel takes all the rows. */
  int64_t block = e->num_segs == 1 ? r1 - r0 : CLEAVE_TINY_BLOCK_ROWS;
  for (int64_t b = r0; b < r1; b += block) {
    int64_t end = r1 - b > block ? b + block : r1;
    for (int64_t s = 0; s < e->num_segs; s++) {
      const cleave_seg *seg = &e->segs[s];
      if (seg->kind == CLEAVE_SEG_ROWS) {
        walk(e, io, b, end, seg->col, seg->col + seg->count * seg->unit);
      } else {
        tiny(e, seg, io, b, end);
      }
    }
  }
}

/* Copies the window's bytes at flattened positions [p0, p1) (row-major over rows and window
 * columns): a partial first row, whole rows, a partial last row. */
static void run_span(const cleave_engine *e, const run_io *io, int64_t p0, int64_t p1) {
  int64_t width = e->col_hi - e->col_lo;
  int64_t o0 = p0 / width, c0 = e->col_lo + p0 % width;
  int64_t o1 = p1 / width, c1 = e->col_lo + p1 % width;
  if (o0 == o1) {
    walk(e, io, o0, o0 + 1, c0, c1);
    return;
  }
  if (c0 != e->col_lo) {
    walk(e, io, o0, o0 + 1, c0, e->col_hi);
    o0++;
  }
  walk(e, io, o0, o1, e->col_lo, e->col_hi);
  if (c1 != e->col_lo) {
    walk(e, io, o1, o1 + 1, e->col_lo, c1);
  }
}

/* Part `t` of `parts`: whole rows when tiny kernels are involved (they work on row blocks),
 * otherwise an equal share of the bytes cut at 64-byte multiples. */
static void run_part(const cleave_engine *e, const run_io *io, int64_t t, int64_t parts) {
  if (e->tiny) {
    int64_t per = (e->outer + parts - 1) / parts;
    /* Whole steps of the transpositions (up to 64 rows, so that each output's pieces stay on
     * line boundaries when its start is), or at least whole 8-row tiles. */
    int64_t step = per >= 64 ? 64 : 8;
    per = (per + step - 1) / step * step;
    int64_t r0 = t * per, r1 = r0 + per;
    r1 = r1 < e->outer ? r1 : e->outer;
    if (r0 < r1) {
      run_rows(e, io, r0, r1);
    }
    return;
  }
  int64_t per = (e->total + parts - 1) / parts;
  per = (per + 63) & ~(int64_t)63;
  int64_t p0 = t * per, p1 = p0 + per;
  p1 = p1 < e->total ? p1 : e->total;
  if (p0 < p1) {
    run_span(e, io, p0, p1);
  }
}

static void run_task(void *context, size_t index) {
  const run_ctx *ctx = context;
  run_part(ctx->e, &ctx->io, (int64_t)index, ctx->parts);
  if (ctx->e->nontemporal) {
    ctx->e->kernels->fence();
  }
}

/* Runs the engine in its direction: on this thread, or as tasks through `exec`. */
static void run_engine(const cleave_engine *e, const run_io *io, const cleave_exec *exec) {
  if (e->total == 0) {
    return;
  }
  int64_t parts = 1;
  if (exec != NULL && exec->parallel_for != NULL && exec->num_threads > 1 &&
      e->total >= e->parallel_bytes) {
    int64_t threads = exec->num_threads > 4096 ? 4096 : (int64_t)exec->num_threads;
    parts = threads * TASKS_PER_THREAD;
    /* No task is smaller than an eighth of the parallel threshold: below it handing out work
     * costs more than it saves. */
    int64_t min_task = e->min_task_bytes > 0 ? e->min_task_bytes : e->parallel_bytes / 8;
    min_task = min_task > 64 ? min_task : 64;
    int64_t most = e->tiny ? e->outer : e->total / min_task;
    if (e->tiny && e->total / e->outer < min_task) {
      int64_t rows_per_task = (min_task + e->total / e->outer - 1) / (e->total / e->outer);
      most = e->outer / rows_per_task;
    }
    parts = parts < most ? parts : most;
  }
  if (parts <= 1) {
    if (e->tiny) {
      run_rows(e, io, 0, e->outer);
    } else {
      walk(e, io, 0, e->outer, e->col_lo, e->col_hi);
    }
    /* Streaming stores are only issued by non-temporal schedules. */
    if (e->nontemporal) {
      e->kernels->fence();
    }
    return;
  }
  run_ctx ctx = {e, *io, parts};
  exec->parallel_for(exec->context, run_task, &ctx, (size_t)parts);
}

void cleave_engine_run(const cleave_engine *e, const void *input, void *const *outputs,
                       const cleave_exec *exec) {
  run_io io = {input, outputs, NULL, {NULL, 0}};
  run_engine(e, &io, exec);
}

void cleave_engine_join(const cleave_engine *e, cleave_parts inputs, void *output,
                        const cleave_exec *exec) {
  run_io io = {NULL, NULL, output, inputs};
  run_engine(e, &io, exec);
}

/* Enough segments for most one-shot lists in one window; longer lists take several. */
#define STACK_SEGS 64

/* Runs a geometry window by window, with segments built on the stack. */
static void run_geometry(const cleave_geometry *geom, const cleave_plan_options *options,
                         const cleave_kernels *kernels, const run_io *io, bool join,
                         const cleave_exec *exec) {
  if (!cleave_geometry_has_data(geom)) {
    return;
  }
  cleave_seg segs[STACK_SEGS];
  int64_t count = 0, offset = 0;
  cleave_engine e;
  for (int64_t i = 0; i < geom->info.num_outputs; i++) {
    int64_t length = cleave_geometry_length(geom, i);
    int64_t unit = cleave_geometry_bytes(geom, length), col = cleave_geometry_bytes(geom, offset);
    if (!cleave_seg_append(segs, &count, STACK_SEGS, i, unit, col, geom->outer, options)) {
      cleave_engine_init(&e, geom, options, kernels, segs, count, join);
      run_engine(&e, io, exec);
      count = 0;
      cleave_seg_append(segs, &count, STACK_SEGS, i, unit, col, geom->outer, options);
    }
    offset += length;
  }
  if (count > 0) {
    cleave_engine_init(&e, geom, options, kernels, segs, count, join);
    run_engine(&e, io, exec);
  }
}

void cleave_engine_run_geometry(const cleave_geometry *geom, const cleave_plan_options *options,
                                const cleave_kernels *kernels, const void *input,
                                void *const *outputs, const cleave_exec *exec) {
  run_io io = {input, outputs, NULL, {NULL, 0}};
  run_geometry(geom, options, kernels, &io, false, exec);
}

void cleave_engine_join_geometry(const cleave_geometry *geom, const cleave_plan_options *options,
                                 const cleave_kernels *kernels, cleave_parts inputs, void *output,
                                 const cleave_exec *exec) {
  run_io io = {NULL, NULL, output, inputs};
  run_geometry(geom, options, kernels, &io, true, exec);
}
