/* Internal declarations shared by the library's source files. Never installed. */
#ifndef CLEAVE_INTERNAL_H
#define CLEAVE_INTERNAL_H

#include "cleave.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CLEAVE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLEAVE_PRINTF(f, a)
#endif

/* ---- status.c ---------------------------------------------------------------------------- */

/** Records `status` and a formatted message in `err` (if not NULL) and returns `status`. */
cleave_status cleave_fail(cleave_error *err, cleave_status status, const char *fmt, ...)
    CLEAVE_PRINTF(3, 4);

/** Records success in `err` (if not NULL) and returns CLEAVE_OK. */
cleave_status cleave_succeed(cleave_error *err);

/** Writes `[d0,d1,...]` for a shape into buf (truncated with "..." if it does not fit). */
void cleave_format_shape(char *buf, size_t size, const int64_t *shape, size_t rank);

/* ---- arithmetic -------------------------------------------------------------------------- */

/* Overflow-checked int64 arithmetic: return true on overflow. */
static inline bool cleave_mul_overflows(int64_t a, int64_t b, int64_t *out) {
  return __builtin_mul_overflow(a, b, out);
}
static inline bool cleave_add_overflows(int64_t a, int64_t b, int64_t *out) {
  return __builtin_add_overflow(a, b, out);
}

/** The byte size of `count` packed elements of `bits` (1..8) each: ceil(count * bits / 8), exact
 * for every count >= 0 (no overflow). */
static inline int64_t cleave_packed_bytes(int64_t count, int64_t bits) {
  return count / 8 * bits + (count % 8 * bits + 7) / 8;
}

/* ---- types.c ----------------------------------------------------------------------------- */

/** True for CLEAVE_I8 .. CLEAVE_U64. */
bool cleave_is_integer(cleave_dtype dtype);

/** True for the packed sub-byte types (CLEAVE_U1 .. CLEAVE_FLOAT4E2M1, u3 and u6 included). */
bool cleave_is_packed(cleave_dtype dtype);

/** Checks that `type` is valid (a known dtype, a width where one is needed and none elsewhere;
 * u3 and u6 are refused) without computing its size. */
cleave_status cleave_type_check(cleave_type type, cleave_error *err);

/** Writes a type's display name ("f32", "S5", "U3") into buf. */
void cleave_format_type(char *buf, size_t size, cleave_type type);

/* ---- values.c ---------------------------------------------------------------------------- */

/** One integer read from a `cleave_values`: its int64 value, or, when it is not an int64,
 * `fits` false and the value in `unsigned_value` (a u64 above INT64_MAX) or `real_value` (a
 * float that is not a whole number in int64's range: ONNX Split-1's `split` input). */
typedef struct cleave_int {
  int64_t value;
  uint64_t unsigned_value;
  double real_value;
  bool fits;
  bool real;
} cleave_int;

/** True for the float types ONNX Split-1's `split` input may have (its data type T). */
bool cleave_is_real_split_type(cleave_dtype dtype);

/** Reads entry i (no bounds check: the caller validated count) of a `cleave_values` of an
 * integer type, or of f16/f32/f64 (whole numbers). */
cleave_int cleave_values_get(const cleave_values *values, int64_t i);

/** The checks of `cleave_values_check` that do not involve the type: count, scalar count, data
 * present (CLEAVE_ERROR_INVALID_ARGUMENT: API misuse). */
cleave_status cleave_values_check_layout(const cleave_values *values, const char *name,
                                         cleave_error *err);

/** Whether `values` is absent (`cleave_values_none()`). */
static inline bool cleave_values_absent(const cleave_values *values) {
  return values->rank == CLEAVE_ABSENT;
}

/** Checks that `values` is a usable tensor of integers for parameter `name`: an integer dtype
 * (else `rule_status`, the operator rule's status), a non-negative count, data present when
 * count > 0, count 1 for a scalar (else CLEAVE_ERROR_INVALID_ARGUMENT: API misuse). */
cleave_status cleave_values_check(const cleave_values *values, const char *name,
                                  cleave_status rule_status, cleave_error *err);

/* ---- infer.c: static shapes and their geometry ------------------------------------------- */

/**
 * The resolved geometry of one split, from which execution needs nothing else. The input is
 * viewed as [outer, axis_dim, inner]; output i is [outer, length(i), inner].
 * Lengths come in one of two forms, so that no allocation is needed:
 *   - uniform: every output has `chunk`, except the last, which has `last`;
 *   - list: entry i of `list` (whose -1, if any, at `minus_one` resolves to `resolved`).
 */
/** The static inference outcome in the engine's arithmetic (int64 throughout, as the shapes);
 * the public `cleave_split_info` is made from it by `cleave_split_info_of`. */
typedef struct cleave_shape_info {
  int64_t axis;
  int64_t axis_dim;
  int64_t num_outputs;
  int64_t output_rank;
  bool axis_removed;
  int64_t element_size;
  int64_t element_bits;
} cleave_shape_info;

/** The public form of `info`: its counts and indices are size_t (all are >= 0). */
static inline cleave_split_info cleave_split_info_of(const cleave_shape_info *info) {
  cleave_split_info out;
  out.axis = (size_t)info->axis;
  out.axis_dim = info->axis_dim;
  out.num_outputs = (size_t)info->num_outputs;
  out.output_rank = (size_t)info->output_rank;
  out.axis_removed = info->axis_removed ? 1 : 0;
  out.element_size = info->element_size;
  out.element_bits = info->element_bits;
  return out;
}

typedef struct cleave_geometry {
  cleave_shape_info info;
  int64_t outer;       /* product of dims before axis (0 if the tensor is empty) */
  int64_t inner_bytes; /* product of dims after axis times the element size (0 if empty) */
  bool uniform;
  int64_t chunk;
  int64_t last;
  const cleave_values *list;
  int64_t minus_one; /* index of the -1 entry, or -1 */
  int64_t resolved;
  /* Packed sub-byte types (inner_bytes is then 0): the same [outer, axis_dim, inner] view in
   * bits. `bits_fit` is false when a bit count of the tensor does not fit in int64 (only for
   * tensors of more than 2^60 bytes, which cannot be in memory: execution refuses them). */
  bool packed;
  bool msb_first;
  bool bits_fit;
  int64_t inner_bits; /* product of dims after axis times the element's bits (0 if empty) */
  int64_t input_bits; /* the whole input's bits */
  /* Whether every block of the split starts and ends on a byte boundary (the axis row and every
   * output length are whole bytes): always for byte-sized types. Packed splits that are take the
   * byte engine; the others the bit-stream copy. */
  bool bytes_aligned;
} cleave_geometry;

/** Bytes of `n` positions along the axis of one input row: exact for byte-sized types and for
 * byte-aligned packed splits (positions at block boundaries). */
static inline int64_t cleave_geometry_bytes(const cleave_geometry *g, int64_t n) {
  return g->packed ? n * g->inner_bits / 8 : n * g->inner_bytes;
}

/** Whether the input holds any byte to move. */
static inline bool cleave_geometry_has_data(const cleave_geometry *g) {
  return g->outer > 0 && g->info.axis_dim > 0 && (g->packed ? g->inner_bits : g->inner_bytes) > 0;
}

/** The byte size of an output of `length` positions on the axis (packed: rounded up). */
static inline int64_t cleave_geometry_output_bytes(const cleave_geometry *g, int64_t length) {
  if (!g->packed) {
    return g->outer * length * g->inner_bytes;
  }
  if (g->inner_bits == 0) {
    return 0;
  }
  int64_t bits = g->info.element_bits;
  return cleave_packed_bytes(g->outer * length * (g->inner_bits / bits), bits);
}

/** The one shape-inference routine: validates `op` on (type, shape) and fills `geom`. Every
 * entry point (inference, one-shot runs, plans) goes through it. */
cleave_status cleave_resolve(const cleave_op *op, cleave_type type, const int64_t *shape,
                             size_t rank, cleave_geometry *geom, cleave_error *err);

/** Length of output i on the axis (i < num_outputs). */
int64_t cleave_geometry_length(const cleave_geometry *geom, int64_t i);

/* ---- the rules on intervals (prepare.c, split_*.c; see rules.h), text (shape_text.c) ------ */

/** Writes a dimension's canonical text ("5", "?", "3..6", "4..") into buf (size >=
 * CLEAVE_DIM_TEXT_SIZE always suffices; shorter buffers truncate). */
void cleave_dim_text(char *buf, size_t size, cleave_dim dim);

/** Whether `dim` has a finite upper bound. */
static inline bool cleave_dim_bounded(cleave_dim dim) {
  return dim.hi != CLEAVE_DIM_UNBOUNDED;
}

/** The rank of a `cleave_shape_view` whose rank is dynamic (the public CLEAVE_RANK_DYNAMIC). */
#define CLEAVE_VIEW_RANK_DYNAMIC ((int64_t)-1)

/** A data shape as the rules see it: either static dims (`points`) or partial ones (`dims`),
 * so that a static shape needs no conversion (and no allocation). `rank` may be
 * CLEAVE_VIEW_RANK_DYNAMIC (partial only). */
typedef struct cleave_shape_view {
  int64_t rank;
  const int64_t *points;  /* static shape, or NULL */
  const cleave_dim *dims; /* partial shape, used when points is NULL */
  size_t static_rank;     /* the caller's rank, for messages (it may exceed int64) */
} cleave_shape_view;

/** Dimension i of a view (i < rank). */
static inline cleave_dim cleave_view_dim(const cleave_shape_view *view, int64_t i) {
  if (view->points != NULL) {
    return cleave_dim_point(view->points[i]);
  }
  return view->dims[i];
}

/** The checks that do not depend on the axis position: operator and version, element type, data
 * shape, axis value. `axis` is the normalised axis, or -1 when its position is unknown (the value
 * is unknown, or the rank dynamic). */
typedef struct cleave_prepared {
  const cleave_op *op;
  char op_name[32];
  int64_t version;
  cleave_dtype data_dtype;
  int64_t element_size; /* 0 for packed types */
  int64_t element_bits;
  cleave_bit_order bit_order;
  cleave_shape_view shape;
  int64_t axis;
  bool lengths_unknown;
} cleave_prepared;

/** prepare.c: checks `op` on (type, shape) up to and including the axis, in the order of
 * docs/operators.md and `cleave_resolve`. `unknown` holds CLEAVE_UNKNOWN_* flags. `static_mode`
 * adds the byte-size check of static shapes and execution (partial inference does not depend on the
 * type's size). */
cleave_status cleave_prepare(const cleave_op *op, unsigned unknown, cleave_type type,
                             const cleave_shape_view *shape, bool static_mode,
                             cleave_prepared *prep, cleave_error *err);

/**
 * The outputs' lengths on the axis as intervals, for the axis dimension as an interval.
 *   - uniform: outputs 0..count-2 get `chunk`, output count-1 gets `last`; when `count` is not a
 *     point (SplitToSequence), `chunk` == `last` is the hull of every element's length;
 *   - list: entry i of the known `list`, except the -1 entry at `minus_one`, which is `resolved`.
 * For a static dimension and known values every interval is a point.
 */
typedef struct cleave_split_hull {
  cleave_dim count;
  bool uniform;
  cleave_dim chunk;
  cleave_dim last;
  const cleave_values *list;
  int64_t minus_one;
  cleave_dim resolved;
  bool axis_removed;
} cleave_split_hull;

/** split_common.c: applies the operator's split rules for the axis at position `axis` (-1 when the
 * rank is dynamic) whose dimension is `dim`. Fails with the operator's error when no value of `dim`
 * (and of unknown lengths) is valid. */
cleave_status cleave_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim dim,
                              cleave_split_hull *hull, cleave_error *err);

/** The interval of output i's length on the axis (i < count.lo when count is a point). */
cleave_dim cleave_split_hull_length(const cleave_split_hull *hull, int64_t i);

/* ---- copy_bits.c ------------------------------------------------------------------------- */

/** Copies every output of a packed split that is not byte-aligned: on the calling thread, or
 * through `exec` (NULL: this thread) in ranges of whole groups of 8 rows when the input has at
 * least `parallel_bytes` bytes and 16 rows. */
void cleave_copy_packed(const cleave_geometry *geom, const void *input, void *const *outputs,
                        const cleave_exec *exec, int64_t parallel_bytes);

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

/* ---- run.c ------------------------------------------------------------------------------- */

/** Copies every output of `geom`, in order, on the calling thread. No validation. */
void cleave_copy_all(const cleave_geometry *geom, const void *input, void *const *outputs);

#endif /* CLEAVE_INTERNAL_H */
