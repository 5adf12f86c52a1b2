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
 * views.c: fills views of the outputs of `geom` on an input of `shape[0..rank)` at `input` (see
 * `cleave_plan_views` for the contract: counts, capacity, pointers).
 */
cleave_status cleave_fill_views(const cleave_geometry *geom, const int64_t *shape, size_t rank,
                                const void *input, cleave_view *views, size_t num_views,
                                int64_t *dims, size_t dims_capacity, cleave_error *err);

#endif /* CLEAVE_RUN_H */
