/*
 * Library-allocated outputs: one block from the caller's allocator (or the system's) holding
 * every output, with a small header in the 64 bytes before the first output's line that lets
 * `cleave_outputs_free` give the block back to its allocator from the first output's address.
 * Each output starts on a new 64-byte line, at the offset within it of its first input byte.
 */
#include "memory/allocator.h"
#include "run/run.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define ALIGNMENT 64
/* Outputs of at least PAGE_MATCH_MIN bytes start at their input's offset within a 4 KiB page. */
#define PAGE_GRAIN ((int64_t)4096)
#define PAGE_MATCH_MIN ((int64_t)1024 * 1024)
#define HEADER_SIZE 64
/* Fresh memory on threads: ranges per thread, and the smallest range (a huge page). */
#define FRESH_TASKS_PER_THREAD 8
#define FRESH_MIN_TASK ((int64_t)2 * 1024 * 1024)
/* Threads counted for those ranges at most (the engine caps its own threads the same way). */
#define FRESH_MAX_THREADS 4096

/* The threads of `exec` that the fresh-memory ranges are spread over. */
static size_t fresh_threads(const cleave_exec *exec) {
  return exec->num_threads < FRESH_MAX_THREADS ? exec->num_threads : FRESH_MAX_THREADS;
}

/* What `cleave_outputs_free` needs: the block and the allocator to give it back to. */
typedef struct block_header {
  void *base;  /* what `alloc` returned */
  size_t size; /* what `alloc` was asked for */
  void (*free)(void *ptr, size_t size, void *user);
  void *user;
} block_header;

_Static_assert(sizeof(block_header) <= HEADER_SIZE, "the header fits in its line");
_Static_assert(PAGE_GRAIN <= CLEAVE_ALLOCATOR_MAX_ALIGNMENT, "allocators support the alignment");

/* The header of the block whose first output starts at `first`: in the line before the line
 * holding `first` (the block's data starts at least one alignment unit, >= 64, after `base`). */
static block_header *header_of(void *first) {
  return (block_header *)(void *)(((uintptr_t)first & ~(uintptr_t)(ALIGNMENT - 1)) - HEADER_SIZE);
}

static void clear(void **outputs, int64_t n) {
  if (outputs != NULL) {
    for (int64_t i = 0; i < n; i++) {
      outputs[i] = NULL;
    }
  }
}

/* Places the outputs in a block at `data` (aligned to `*align`; NULL only measures) and stores
 * their addresses in `outputs`, each at the offset modulo 64 (4096 for large outputs) of its
 * first input byte, the block size in `*total` and the alignment it needs in `*align`.
 * Returns false when the size overflows int64. */
static bool layout(const cleave_plan *plan, const void *input, unsigned char *data, void **outputs,
                   int64_t *total, int64_t *align) {
  const cleave_geometry *g = &plan->geom;
  int64_t at = 0, offset = 0, seg = 0;
  *align = ALIGNMENT;
  for (int64_t i = 0; i < g->info.num_outputs; i++) {
    int64_t length = cleave_geometry_length(g, i);
    int64_t bytes = cleave_geometry_output_bytes(g, length); /* within the input's size */
    /* Large outputs match their input's offset within a page, small ones within a line. */
    int64_t grain = bytes >= PAGE_MATCH_MIN ? PAGE_GRAIN : ALIGNMENT, phase = 0;
    *align = grain > *align ? grain : *align;
    /* Outputs written by the tiny-output kernels (a few bytes from each input row) start on a
     * line instead, where those kernels stream whole lines, and outputs of whole pages are a
     * line apart beyond that, so that the many output streams do not share cache sets
     * (measured on (d), 1024 outputs of 16 KiB: 8.2 ms at the input's phases, 2.2 ms so). */
    const cleave_engine *e = &plan->engine;
    while (seg < e->num_segs && e->segs[seg].first + e->segs[seg].count <= i) {
      seg++;
    }
    bool tiny = g->bytes_aligned && seg < e->num_segs && e->segs[seg].first <= i &&
                e->segs[seg].kind != CLEAVE_SEG_ROWS;
    if (tiny) {
      int64_t gap = bytes % PAGE_GRAIN == 0 ? ALIGNMENT : 0;
      if (cleave_add_overflows(at, gap, &at)) {
        return false;
      }
    } else if (input != NULL && bytes > 0) {
      /* (Packed splits that are not byte-aligned: the phase of the byte holding the start.) */
      phase = (int64_t)(((uintptr_t)input + (uintptr_t)(g->packed ? offset * g->inner_bits / 8
                                                                  : offset * g->inner_bytes)) &
                        (uintptr_t)(grain - 1));
    }
    int64_t start = 0;
    if (cleave_add_overflows(at, grain - 1, &start)) {
      return false;
    }
    start = (start & ~(grain - 1)) + phase;
    if (cleave_add_overflows(start, bytes, &at)) {
      return false;
    }
    if (data != NULL) {
      outputs[i] = data + start;
    }
    offset += length;
  }
  *total = at;
  return true;
}

/* Populating fresh memory on threads: `parts` ranges of whole pages of [data, data + size). */
typedef struct populate_ctx {
  unsigned char *data;
  size_t size, per, parts;
  atomic_bool failed;
} populate_ctx;

static void populate_task(void *context, size_t index) {
  populate_ctx *ctx = context;
  size_t at = index * ctx->per;
  if (at < ctx->size) {
    size_t n = ctx->size - at < ctx->per ? ctx->size - at : ctx->per;
    if (!cleave_memory_populate(ctx->data + at, n)) {
      atomic_store(&ctx->failed, true);
    }
  }
}

/* Makes fresh memory resident before it is written: in ranges of at least a huge page spread
 * over the threads when `threaded`. False when the system cannot (nothing is lost then): its
 * first page is tried alone, so that a system without the call costs one system call and no
 * parallel-for. */
static bool populate(unsigned char *data, size_t size, const cleave_exec *exec, bool threaded) {
  if (size == 0) {
    return true;
  }
  if (!threaded) {
    return cleave_memory_populate(data, size);
  }
  if (!cleave_memory_populate(data, 1)) {
    return false;
  }
  size_t parts = fresh_threads(exec) * FRESH_TASKS_PER_THREAD;
  size_t most = size / (size_t)FRESH_MIN_TASK;
  parts = parts < most ? parts : most > 0 ? most : 1;
  size_t per = ((size + parts - 1) / parts + 4095) & ~(size_t)4095;
  populate_ctx ctx;
  ctx.data = data;
  ctx.size = size;
  ctx.per = per;
  ctx.parts = (size + per - 1) / per;
  atomic_init(&ctx.failed, false);
  exec->parallel_for(exec->context, populate_task, &ctx, ctx.parts);
  return !atomic_load(&ctx.failed);
}

cleave_status cleave_allocator_pick(const cleave_allocator **allocator, cleave_allocator *system,
                                    cleave_error *err) {
  *system = cleave_default_allocator();
  if (*allocator == NULL) {
    *allocator = system;
  } else if ((*allocator)->alloc == NULL || (*allocator)->free == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the allocator's %s function is NULL",
                       (*allocator)->alloc == NULL ? "alloc" : "free");
  }
  return CLEAVE_OK;
}

cleave_status cleave_block_alloc(const cleave_allocator *allocator, int64_t total, int64_t align,
                                 const char *what, cleave_block *block, cleave_error *err) {
  /* The data starts one alignment unit (>= 64 bytes) into the block, leaving room for the
   * header in the line before the first output's. */
  int64_t request = 0;
  if (cleave_add_overflows(total, align, &request)) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW, "%s' aligned sizes sum above 2^63-1 bytes",
                       what);
  }
  if ((uint64_t)request > (uint64_t)SIZE_MAX) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW, "%s need %" PRId64 " bytes, above SIZE_MAX",
                       what, request);
  }
  unsigned char *base = allocator->alloc((size_t)request, (size_t)align, allocator->user);
  if (base == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate %" PRId64 " bytes for %s",
                       request, what);
  }
  block->base = base;
  block->size = (size_t)request;
  block->data = base + align;
  return CLEAVE_OK;
}

void cleave_block_seal(const cleave_block *block, const cleave_allocator *allocator, void *first) {
  block_header *h = header_of(first);
  h->base = block->base;
  h->size = block->size;
  h->free = allocator->free;
  h->user = allocator->user;
}

void cleave_fresh_memory(cleave_engine *engine, unsigned char *data, size_t total,
                         const cleave_exec *exec) {
  bool threaded = exec != NULL && exec->parallel_for != NULL && exec->num_threads > 1 &&
                  engine->total >= engine->parallel_bytes;
  /* Reused memory (resident pages, e.g. from an arena) is written exactly as caller buffers
   * are. Fresh memory is first made resident with one system call per range (a few long ranges
   * per thread, at least 2 MiB each, so that a thread another process delays holds back only a
   * small share) and then written the same way: the kernel zeroes and maps its pages in bulk,
   * where faulting them in one at a time from inside the copy costs twice as much (Intel Xeon of
   * 2026-11-24, bench_alloc (a), 256 MiB fresh: 90 ms instead of 140 ms on 1 thread, 45-60 ms
   * instead of 83 ms on 2). Where the system cannot populate memory, the copy first-touches the
   * pages itself: with ordinary stores, which overwrite the zeroed page while it is still in the
   * cache, where streaming stores would first push the zeroes out to memory (68 ms instead of
   * 81-108 ms for (a) on 1 thread), and in the same long ranges per thread, so that each thread
   * first touches (and the kernel zeroes) its own pages. */
  if ((engine->nontemporal || threaded) && !cleave_memory_resident(data, total) &&
      !populate(data, total, exec, threaded)) {
    engine->nontemporal = false;
    if (threaded) {
      int64_t per = engine->total / ((int64_t)fresh_threads(exec) * FRESH_TASKS_PER_THREAD);
      engine->min_task_bytes = per > FRESH_MIN_TASK ? per : FRESH_MIN_TASK;
    }
  }
}

cleave_status cleave_plan_run_alloc(const cleave_plan *plan, const void *input,
                                    const cleave_exec *exec, void **outputs, cleave_error *err) {
  return cleave_plan_run_alloc_with(plan, input, exec, NULL, outputs, err);
}

cleave_status cleave_plan_run_alloc_with(const cleave_plan *plan, const void *input,
                                         const cleave_exec *exec, const cleave_allocator *allocator,
                                         void **outputs, cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  const cleave_geometry *g = &plan->geom;
  int64_t n = g->info.num_outputs;
  cleave_status st = cleave_check_array(outputs, "outputs", g, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  clear(outputs, n);
  cleave_allocator system;
  st = cleave_allocator_pick(&allocator, &system, err);
  if (st == CLEAVE_OK) {
    st = cleave_check_input(g, input, err);
  }
  if (st != CLEAVE_OK || n == 0) {
    return st != CLEAVE_OK ? st : cleave_succeed(err);
  }
  /* Each output starts at the offset modulo 64 of its first input byte (modulo 4096 for outputs
   * of 1 MiB or more): with the same relative alignment the copy never splits its loads across
   * lines, and the C library's copy takes its fastest path, which it avoids when source and
   * destination sit at different offsets within their pages (measured on (a): 22 ms, against
   * 34 ms with the input 64 bytes further into its page than the output). The outputs are as
   * aligned as the input. */
  int64_t total = 0, align = ALIGNMENT;
  char what[48];
  snprintf(what, sizeof what, "the %" PRId64 " outputs", n);
  cleave_block block;
  if (!layout(plan, input, NULL, NULL, &total, &align)) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW, "%s' aligned sizes sum above 2^63-1 bytes",
                       what);
  }
  st = cleave_block_alloc(allocator, total, align, what, &block, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  layout(plan, input, block.data, outputs, &total, &align);
  cleave_block_seal(&block, allocator, outputs[0]);
  cleave_engine engine = plan->engine;
  cleave_fresh_memory(&engine, block.data, (size_t)total, exec);
  if (!g->bytes_aligned) {
    cleave_copy_packed(g, input, (void *const *)outputs, exec, plan->options.parallel_bytes);
  } else {
    cleave_engine_run(&engine, input, outputs, exec);
  }
  return cleave_succeed(err);
}

void cleave_outputs_free(void **outputs, size_t num_outputs) {
  if (outputs == NULL || num_outputs == 0 || outputs[0] == NULL) {
    return;
  }
  block_header h = *header_of(outputs[0]);
  h.free(h.base, h.size, h.user);
  for (size_t i = 0; i < num_outputs; i++) {
    outputs[i] = NULL;
  }
}
