/*
 * The copy engine (internal): a copy schedule computed once from a geometry (core/geometry.h:
 * outer rows, the whole tensor's row stride, the parts' column ranges) and run by one kernel
 * family, on one thread or through a `cleave_exec`; and the bit-stream copy of packed parts that
 * do not fall on byte boundaries (bits.c). It knows geometries, not operators.
 *
 * Every row of the whole tensor (`stride` bytes) is cut into consecutive column ranges, one per
 * non-empty part; consecutive parts that take the same number of bytes from each row form a
 * segment. A segment is copied either row by row (block copies, regular or non-temporal) or,
 * when its parts take only a few bytes per row, by a gather/transposition kernel over a block of
 * rows. A split's kernels move bytes from the whole tensor to the parts; a join (Concat) runs the
 * same schedule the other way, the parts into the whole tensor, with each family's `join_*`
 * kernels (the same walker, copies, lanes and register transposes, the other way round).
 */
#ifndef CLEAVE_ENGINE_H
#define CLEAVE_ENGINE_H

#include "core/geometry.h"

#include <string.h>

/* How a segment is copied. The tiny kinds index `cleave_kernels.tiny`. */
enum {
  CLEAVE_SEG_ROWS = 0,   /* block copies, row by row in input order */
  CLEAVE_SEG_T1 = 1,     /* transposition of 1-byte units */
  CLEAVE_SEG_T2 = 2,     /* 2-byte units */
  CLEAVE_SEG_T4 = 3,     /* 4-byte units */
  CLEAVE_SEG_T8 = 4,     /* 8-byte units */
  CLEAVE_SEG_GATHER = 5, /* any other small unit */
  CLEAVE_SEG_KINDS = 6
};

/** Rows per block when tiny segments are present: the rows a tiny kernel sweeps per output
 * group, so that the input lines it touches stay in L1 for the neighbouring outputs. */
#define CLEAVE_TINY_BLOCK_ROWS 256

/** Consecutive outputs that each take `unit` bytes from every input row. */
typedef struct cleave_seg {
  int64_t first; /* index of the first output */
  int64_t count; /* number of outputs, >= 1 */
  int64_t unit;  /* bytes per output per input row, >= 1 */
  int64_t col;   /* byte offset of the first output's bytes within an input row */
  int kind;      /* CLEAVE_SEG_* */
} cleave_seg;

typedef struct cleave_kernels cleave_kernels;

/**
 * A schedule over one column window [col_lo, col_hi) of every input row, tiled exactly by
 * `segs` (sorted by col). A plan has one window covering the whole row; a one-shot run of a long
 * list of lengths goes through several windows so that it needs no allocation.
 */
typedef struct cleave_engine {
  const cleave_kernels *kernels;
  int64_t outer;  /* input rows */
  int64_t stride; /* bytes per input row */
  int64_t col_lo, col_hi;
  const cleave_seg *segs;
  int64_t num_segs;
  int64_t total;       /* bytes moved: outer * (col_hi - col_lo) */
  int64_t input_bytes; /* the whole input's size, which the thresholds compare with */
  bool nontemporal;    /* block copies stream whole lines past the caches */
  bool tiny;           /* some segment is tiny: work is split by whole rows */
  int64_t parallel_bytes;
  /** Smallest task of a parallel run; 0: an eighth of parallel_bytes. */
  int64_t min_task_bytes;
  /** The direction: false for a split (whole to parts), true for a join (parts to whole). */
  bool join;
} cleave_engine;

/** Copies rows [o0, o1) of the window's columns [lo, hi) (hi <= col_hi) with block copies. */
typedef void (*cleave_walk_fn)(const cleave_engine *e, const unsigned char *in, void *const *outs,
                               int64_t o0, int64_t o1, int64_t lo, int64_t hi);

/** Copies rows [o0, o1) of every output of one tiny segment. */
typedef void (*cleave_tiny_fn)(const cleave_engine *e, const cleave_seg *seg,
                               const unsigned char *in, void *const *outs, int64_t o0, int64_t o1);

/**
 * Where a join finds its parts' data: the pointer of part i is stored at `at + i * step`, so that
 * both an array of pointers (a plan's run) and the `data` members of an array of `cleave_tensor`s
 * (a one-shot run) serve without being copied.
 */
typedef struct cleave_parts {
  const unsigned char *at;
  size_t step;
} cleave_parts;

/** The data of part i (read as the object it is: a `const void *`). */
static inline const unsigned char *cleave_part(cleave_parts parts, int64_t i) {
  const void *p;
  memcpy(&p, parts.at + (size_t)i * parts.step, sizeof p);
  return (const unsigned char *)p;
}

/** The parts of an array of data pointers. */
static inline cleave_parts cleave_parts_of_pointers(const void *const *pointers) {
  cleave_parts parts = {(const unsigned char *)pointers, sizeof *pointers};
  return parts;
}

/** The parts of an array of tensors: their `data` members. */
static inline cleave_parts cleave_parts_of_tensors(const cleave_tensor *tensors) {
  cleave_parts parts = {(const unsigned char *)tensors + offsetof(cleave_tensor, data),
                        sizeof *tensors};
  return parts;
}

/** A join's `cleave_walk_fn`: the parts `ins` into rows [o0, o1), columns [lo, hi) of `out`. */
typedef void (*cleave_join_walk_fn)(const cleave_engine *e, unsigned char *out, cleave_parts ins,
                                    int64_t o0, int64_t o1, int64_t lo, int64_t hi);

/** A join's `cleave_tiny_fn`: every part of one tiny segment into rows [o0, o1) of `out`. */
typedef void (*cleave_join_tiny_fn)(const cleave_engine *e, const cleave_seg *seg,
                                    unsigned char *out, cleave_parts ins, int64_t o0, int64_t o1);

/** One kernel family. Immutable tables, one per instruction set. */
struct cleave_kernels {
  const char *name;
  cleave_walk_fn walk;
  cleave_tiny_fn tiny[CLEAVE_SEG_KINDS]; /* [CLEAVE_SEG_ROWS] unused */
  /** Orders this thread's non-temporal stores before what follows (a no-op without them). */
  void (*fence)(void);
  /** Whether the tiny kernel of `seg` writes with streaming stores (where the destination is
   * aligned) in a non-temporal run; NULL when no tiny kernel of the family does. For the plan's
   * description. */
  bool (*tiny_streams)(const cleave_seg *seg);
  /** The join direction (Concat): the same walk and tiny kinds, from the parts to the whole. */
  cleave_join_walk_fn join_walk;
  cleave_join_tiny_fn join_tiny[CLEAVE_SEG_KINDS]; /* [CLEAVE_SEG_ROWS] unused */
  /** `tiny_streams` for the join kernels. */
  bool (*join_tiny_streams)(const cleave_seg *seg);
};

/** Portable C kernels (SSE2 streaming stores where the compiler targets x86-64). */
extern const cleave_kernels cleave_kernels_portable;

#if defined(CLEAVE_HAVE_AVX2_KERNELS)
/** AVX2 kernels: only call them when `cleave_cpu_has_avx2()`. */
extern const cleave_kernels cleave_kernels_avx2;
#endif

/** Whether this CPU and OS run AVX2 code (CPUID and the saved YMM state). No mutable state. */
bool cleave_cpu_has_avx2(void);

/** Picks the kernel family for a `cleave_kernels_choice`; fails (naming the choice) when the
 * family is unknown or this CPU cannot run it. */
cleave_status cleave_kernels_pick(cleave_kernels_choice choice, const cleave_kernels **kernels,
                                  cleave_error *err);

/** Checks the fields of plan options (each name in the message). */
cleave_status cleave_options_check(const cleave_plan_options *options, cleave_error *err);

/** The kind of a segment of outputs taking `unit` bytes from each of `outer` rows. */
int cleave_seg_kind(int64_t unit, int64_t outer, const cleave_plan_options *options);

/**
 * Appends output `i` (taking `unit` bytes per row at column `col`) to the segment list
 * `segs[0..*count)`, merging it into the last segment when it continues it. Returns false when
 * a new segment was needed but `*count == capacity` (nothing changed then). Empty outputs
 * (unit 0) are skipped.
 */
bool cleave_seg_append(cleave_seg *segs, int64_t *count, int64_t capacity, int64_t i, int64_t unit,
                       int64_t col, int64_t outer, const cleave_plan_options *options);

/** Sets up an engine over `segs` (non-empty, contiguous columns) for geometry `geom`, in the
 * split's direction or, with `join`, the other way. */
void cleave_engine_init(cleave_engine *e, const cleave_geometry *geom,
                        const cleave_plan_options *options, const cleave_kernels *kernels,
                        const cleave_seg *segs, int64_t num_segs, bool join);

/** Runs a split engine: on the calling thread, or through `exec` when it allows threads and the
 * run is large enough. Ends with the kernels' fence on every thread that copied. */
void cleave_engine_run(const cleave_engine *e, const void *input, void *const *outputs,
                       const cleave_exec *exec);

/** Runs a join engine (Concat): the parts `inputs` into the whole tensor `output`, on threads as
 * `cleave_engine_run` does. */
void cleave_engine_join(const cleave_engine *e, cleave_parts inputs, void *output,
                        const cleave_exec *exec);

/**
 * Runs a whole geometry without a precomputed schedule and without allocating: segments are
 * built on the stack, window by window (used by the one-shot calls).
 */
void cleave_engine_run_geometry(const cleave_geometry *geom, const cleave_plan_options *options,
                                const cleave_kernels *kernels, const void *input,
                                void *const *outputs, const cleave_exec *exec);

/** `cleave_engine_run_geometry` for a join: the parts `inputs` into `output`. */
void cleave_engine_join_geometry(const cleave_geometry *geom, const cleave_plan_options *options,
                                 const cleave_kernels *kernels, cleave_parts inputs, void *output,
                                 const cleave_exec *exec);

/** Index of the segment whose columns hold column `c` (col_lo <= c < col_hi). */
static inline int64_t cleave_engine_find(const cleave_engine *e, int64_t c) {
  int64_t lo = 0, hi = e->num_segs - 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (e->segs[mid].col <= c) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/* ---- bits.c ------------------------------------------------------------------------------ */

/** Copies every output of a packed split that is not byte-aligned: on the calling thread, or
 * through `exec` (NULL: this thread) in ranges of whole groups of 8 rows when the input has at
 * least `parallel_bytes` bytes and 16 rows. */
void cleave_copy_packed(const cleave_geometry *geom, const void *input, void *const *outputs,
                        const cleave_exec *exec, int64_t parallel_bytes);

/** `cleave_copy_packed` the other way (Concat): the parts `inputs` of a packed join that is not
 * byte-aligned into `output`, packed from its bit 0 with zeroed tail bits. */
void cleave_join_packed(const cleave_geometry *geom, cleave_parts inputs, void *output,
                        const cleave_exec *exec, int64_t parallel_bytes);

#endif /* CLEAVE_ENGINE_H */
