/*
 * Running an operator (internal, never installed): the public entry points above inference, the
 * copy engine and the allocators. One-shot runs (run.c), plans (plan.c), views (views.c), runs
 * into library-allocated outputs (allocated.c), and the pointer checks they all share
 * (buffers.c).
 */
#ifndef CLEAVE_RUN_H
#define CLEAVE_RUN_H

#include "copy/engine.h"
#include "core/geometry.h"
#include "infer/infer.h"

/* ---- buffers.c: the pointer checks of every execution entry point --------------------------- */

/** CLEAVE_ERROR_OUT_OF_MEMORY for a packed input of more than 2^60 bytes (its bit offsets do not
 * fit in int64, and it cannot be in memory). */
cleave_status cleave_check_in_memory(const cleave_geometry *geom, cleave_error *err);

/** `cleave_check_in_memory`, then the input pointer: NULL only when the input is empty. */
cleave_status cleave_check_input(const cleave_geometry *geom, const void *input, cleave_error *err);

/** A caller's array of one entry per output (`name`: "outputs", "views"): NULL only when the
 * operator has no outputs. */
cleave_status cleave_check_array(const void *array, const char *name, const cleave_geometry *geom,
                                 cleave_error *err);

/** The pointers a run of `geom` needs: the input, the outputs array and every output that is not
 * empty (`cleave_check_input`, `cleave_check_array`, then each entry). */
cleave_status cleave_check_buffers(const cleave_geometry *geom, const void *input,
                                   void *const *outputs, cleave_error *err);

/** buffers.c: `cleave_check_in_memory` for a join, whose whole tensor is its output. */
cleave_status cleave_check_join_in_memory(const cleave_geometry *geom, cleave_error *err);

/** buffers.c: the pointers a join (Concat) run of `geom` needs: the inputs array, every input
 * that is not empty, and the output unless it is empty. */
cleave_status cleave_check_join_buffers(const cleave_geometry *geom, cleave_parts inputs,
                                        const void *output, cleave_error *err);

/* ---- allocated.c: library-allocated outputs, for both families ------------------------------ */

/** One block holding a run's outputs: what the allocator returned (`base`, `size` bytes) and
 * where the outputs' data starts (`data`, aligned as asked, at least 64 bytes into the block). */
typedef struct cleave_block {
  unsigned char *base;
  size_t size;
  unsigned char *data;
} cleave_block;

/** Replaces a NULL `*allocator` by the system allocator (held in `*system`); fails
 * (CLEAVE_ERROR_INVALID_ARGUMENT) for an allocator without both functions. */
cleave_status cleave_allocator_pick(const cleave_allocator **allocator, cleave_allocator *system,
                                    cleave_error *err);

/** Allocates a block for `total` bytes of data aligned to `align` (64 to 4096) from `allocator`;
 * `what` names the outputs in messages ("the output"). Returns CLEAVE_OK, CLEAVE_ERROR_OVERFLOW or
 * CLEAVE_ERROR_OUT_OF_MEMORY. */
cleave_status cleave_block_alloc(const cleave_allocator *allocator, int64_t total, int64_t align,
                                 const char *what, cleave_block *block, cleave_error *err);

/** Writes the header `cleave_outputs_free` reads before `first`, the first output (in the block's
 * data, within its first alignment unit or after the data's first line). */
void cleave_block_seal(const cleave_block *block, const cleave_allocator *allocator, void *first);

/** Prepares `engine` to write the block's fresh data [data, data + total): populates its pages
 * when they are not resident, or else schedules the first touch (see
 * `cleave_plan_run_alloc_with`). */
void cleave_fresh_memory(cleave_engine *engine, unsigned char *data, size_t total,
                         const cleave_exec *exec);

/* ---- plans, views -------------------------------------------------------------------------- */

/** Segments a plan keeps inside itself; longer lists are allocated. Uniform splits need <= 2. */
#define CLEAVE_PLAN_INLINE_SEGS 2

/** plan.c: a plan (the public opaque type): everything a run needs, immutable after creation. */
struct cleave_plan {
  cleave_geometry geom;   /* in list mode, geom.list points at `list` below */
  cleave_split_info info; /* geom.info in public form, for cleave_plan_info */
  cleave_values list;     /* the resolved lengths (no -1 left), owned: `lengths` */
  int64_t *lengths;       /* list mode only */
  int64_t *shape;         /* the input shape, owned */
  size_t rank;
  cleave_plan_options options;
  cleave_engine engine; /* engine.segs points at `inline_segs` or `segs` */
  cleave_seg inline_segs[CLEAVE_PLAN_INLINE_SEGS];
  cleave_seg *segs; /* allocated when more segments are needed */
  char description[96];
};

/**
 * schedule.c: builds the copy schedule of `geom` for a plan: its segments in `inline_segs` when
 * `inline_capacity` suffice, else in an array allocated into `*heap` (the caller frees it), the
 * engine over them in the split's direction or, with `join`, the other way, and the plan's
 * description. Fails only when the allocation does (CLEAVE_ERROR_OUT_OF_MEMORY).
 */
cleave_status cleave_schedule(const cleave_geometry *geom, const cleave_plan_options *options,
                              const cleave_kernels *kernels, bool join, cleave_seg *inline_segs,
                              int64_t inline_capacity, cleave_seg **heap, cleave_engine *engine,
                              char *description, size_t description_size, cleave_error *err);

/**
 * views.c: fills views of the outputs of `geom` on an input of `shape[0..rank)` at `input` (see
 * `cleave_plan_views` for the contract: counts, capacity, pointers).
 */
cleave_status cleave_fill_views(const cleave_geometry *geom, const int64_t *shape, size_t rank,
                                const void *input, cleave_view *views, size_t num_views,
                                int64_t *dims, size_t dims_capacity, cleave_error *err);

#endif /* CLEAVE_RUN_H */
