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

/* ---- types.c ----------------------------------------------------------------------------- */

/** True for CLEAVE_I8 .. CLEAVE_U64. */
bool cleave_is_integer(cleave_dtype dtype);

/** Writes a type's display name ("f32", "S5", "U3") into buf. */
void cleave_format_type(char *buf, size_t size, cleave_type type);

/* ---- values.c ---------------------------------------------------------------------------- */

/** One integer read from a `cleave_values`: its int64 value, or, when it does not fit (a u64
 * above INT64_MAX), `fits` false and the value in `unsigned_value`. */
typedef struct cleave_int {
  int64_t value;
  uint64_t unsigned_value;
  bool fits;
} cleave_int;

/** Reads entry i (no bounds check: the caller validated count) of an integer `cleave_values`. */
cleave_int cleave_values_get(const cleave_values *values, int64_t i);

/** Checks that `values` is a usable tensor of integers for parameter `name`: an integer dtype
 * (else `rule_status`, the operator rule's status), a non-negative count, data present when
 * count > 0, count 1 for a scalar (else CLEAVE_ERROR_INVALID_ARGUMENT: API misuse). */
cleave_status cleave_values_check(const cleave_values *values, const char *name,
                                  cleave_status rule_status, cleave_error *err);

/* ---- infer.c ----------------------------------------------------------------------------- */

/**
 * The resolved geometry of one split, from which execution needs nothing else. The input is
 * viewed as [outer, axis_dim, inner]; output i is [outer, length(i), inner].
 * Lengths come in one of two forms, so that no allocation is needed:
 *   - uniform: every output has `chunk`, except the last, which has `last`;
 *   - list: entry i of `list` (whose -1, if any, at `minus_one` resolves to `resolved`).
 */
typedef struct cleave_geometry {
  cleave_split_info info;
  int64_t outer;       /* product of dims before axis (0 if the tensor is empty) */
  int64_t inner_bytes; /* product of dims after axis times the element size (0 if empty) */
  bool uniform;
  int64_t chunk;
  int64_t last;
  const cleave_values *list;
  int64_t minus_one; /* index of the -1 entry, or -1 */
  int64_t resolved;
} cleave_geometry;

/** The one shape-inference routine: validates `op` on (type, shape) and fills `geom`. Every
 * entry point (inference, one-shot runs, plans) goes through it. */
cleave_status cleave_resolve(const cleave_op *op, cleave_type type, const int64_t *shape,
                             size_t rank, cleave_geometry *geom, cleave_error *err);

/** Length of output i on the axis (i < num_outputs). */
int64_t cleave_geometry_length(const cleave_geometry *geom, int64_t i);

/* ---- copy.c ------------------------------------------------------------------------------ */

/** Copies output i only: `length` elements at `offset` along the axis. */
void cleave_copy_one(const void *input, void *output, int64_t outer, int64_t axis_dim,
                     int64_t inner_bytes, int64_t offset, int64_t length);

/* ---- run.c ------------------------------------------------------------------------------- */

/** Checks the pointers a run of `geom` needs: the input (unless it is empty), the outputs array
 * and every output that is not empty. */
cleave_status cleave_check_buffers(const cleave_geometry *geom, const void *input,
                                   void *const *outputs, cleave_error *err);

/** Copies every output of `geom`, in order. No validation. */
void cleave_copy_all(const cleave_geometry *geom, const void *input, void *const *outputs);

#endif /* CLEAVE_INTERNAL_H */
