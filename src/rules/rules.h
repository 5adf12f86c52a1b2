/*
 * The operators' rules (internal, never installed): docs/operators.md sections 1-6, on intervals.
 * A static shape is a partial shape whose dimensions are points: then every interval is a point
 * and every message is the static one, so static inference, execution and partial shapes
 * (infer/) run the very same checks. By concern:
 *   versions.c        operator versions and the ONNX type lists
 *   prepare.c         the checks before the split: operator, element type, data shape, axis
 *   split.c           the split family's entry: which operator's rules apply (`cleave_split_at`)
 *   split_openvino.c  OpenVINO Split-1 and VariadicSplit-1
 *   split_onnx.c      ONNX SplitToSequence and Split
 *   split18.c         Split-18's ceil(d/n) arithmetic on intervals
 *   split_common.c    what those share: lists of lengths, equal parts, the hull's lengths
 * The concatenating family (Concat, ConcatFromSequence) gets files of its own beside these
 * (concat*.c, with an entry like split.c), using versions.c and prepare.c's kind of checks.
 */
#ifndef CLEAVE_RULES_H
#define CLEAVE_RULES_H

#include "core/core.h"

#include <inttypes.h>
#include <stdio.h>

/* ---- what inference uses: a shape as the rules see it, the checks before the split, the hull */

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

/** split.c: applies the operator's split rules for the axis at position `axis` (-1 when the rank
 * is dynamic) whose dimension is `dim`. Fails with the operator's error when no value of `dim`
 * (and of unknown lengths) is valid. */
cleave_status cleave_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim dim,
                              cleave_split_hull *hull, cleave_error *err);

/** split_common.c: the interval of output i's length on the axis (i < count.lo when count is a
 * point). */
cleave_dim cleave_split_hull_length(const cleave_split_hull *hull, int64_t i);

/* ---- versions.c ---------------------------------------------------------------------------- */

/** Resolves the operator version in force at `op->opset` (1 for the OpenVINO operators) and
 * writes the operator's name for messages ("OpenVINO Split-1", "ONNX Split-13"). Fails for an
 * unknown kind or an opset below the operator's first version. */
cleave_status cleave_resolve_version(const cleave_op *op, int64_t *version, char *name,
                                     size_t name_size, cleave_error *err);

/** Checks the element type against an ONNX operator version's type list (docs/operators.md section
 * 4, 5); the OpenVINO operators take every type. */
cleave_status cleave_check_op_type(const cleave_prepared *prep, cleave_type type,
                                   cleave_error *err);

/* ---- split_common.c: what the split family's operators share ------------------------------ */

/** Sets a uniform hull: outputs 0..count-2 get `chunk`, the last gets `last`. */
void cleave_hull_uniform(cleave_split_hull *hull, cleave_dim count, cleave_dim chunk,
                         cleave_dim last);

/** Validates a list of lengths (`name` in messages) against the axis dimension `d` and sets the
 * hull from it; `allow_minus_one`: VariadicSplit's single -1 entry. */
cleave_status cleave_resolve_list(const cleave_values *list, const char *name, bool allow_minus_one,
                                  bool known, int64_t axis, cleave_dim d, cleave_split_hull *hull,
                                  cleave_error *err);

/** Checks that a list of lengths is 1-D. */
cleave_status cleave_require_1d(const cleave_values *list, const char *name, const char *op_name,
                                cleave_error *err);

/** n equal parts of `d`; false when `d` holds no multiple of n. */
bool cleave_equal_parts(int64_t n, cleave_dim d, cleave_split_hull *hull);

/* ---- each operator's rules on one axis dimension (called by split.c) ----------------------
 * Each applies its operator's rules (docs/operators.md sections 2-5) for the axis at position
 * `axis` whose dimension is `d`, sets `hull` and fails with the operator's error. */

/** split_openvino.c: OpenVINO Split-1 (num_splits equal parts). */
cleave_status cleave_split_1_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                cleave_split_hull *hull, cleave_error *err);

/** split_openvino.c: OpenVINO VariadicSplit-1 (split_lengths with at most one -1). */
cleave_status cleave_variadic_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                       cleave_split_hull *hull, cleave_error *err);

/** split_onnx.c: ONNX SplitToSequence-11 and -24 (scalar or 1-D split, keepdims). */
cleave_status cleave_sequence_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                 cleave_split_hull *hull, cleave_error *err);

/** split_onnx.c: ONNX Split-1/2/11/13/18 (split, the node's output count, num_outputs). */
cleave_status cleave_onnx_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                   cleave_split_hull *hull, cleave_error *err);

/** split18.c: sets chunk (c = ceil(d/n)) and last (d - c(n-1)) for Split-18 with num_outputs n >= 1
 * over the values of `d`. Returns false when no value of `d` is valid. */
bool cleave_ceil_parts(int64_t n, cleave_dim d, cleave_split_hull *hull);

#endif /* CLEAVE_RULES_H */
