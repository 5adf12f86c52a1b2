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
 * and the concatenating family's (docs/operators.md section 8), beside them:
 *   concat_prepare.c  the checks before the dims: operator, inputs, types, shapes, ranks, axis
 *   concat_dims.c     the dims: their intersection off the axis, their sum on it, the output
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

/** prepare.c: checks dimension i of a shape that `tensor` names in messages ("data",
 * "inputs[2]"): >= 0, and for a partial dimension lo <= hi (else CLEAVE_ERROR_INVALID_SHAPE). */
cleave_status cleave_check_dim(const cleave_shape_view *shape, int64_t i, const char *tensor,
                               cleave_error *err);

/** prepare.c: the element size in bytes (0 for packed types), in bits, and the bit order of a
 * type, checking it. */
cleave_status cleave_element_size(cleave_type type, int64_t *size, int64_t *bits,
                                  cleave_bit_order *order, cleave_error *err);

/** prepare.c: checks that a static shape's byte size (element count for packed types) fits in
 * int64 (else CLEAVE_ERROR_OVERFLOW naming `tensor`: "data", "inputs[1]", "the output"). */
cleave_status cleave_check_byte_size(const int64_t *shape, int64_t rank, cleave_type type,
                                     int64_t element_size, const char *tensor, cleave_error *err);

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

/* ---- the concatenating family (docs/operators.md section 8) ------------------------------ */

/** A concat's inputs as the rules see them: static tensors (`tensors`, each with its own type;
 * their data is not read) or partial shapes (`partial`, all of type `type`). */
typedef struct cleave_concat_inputs {
  size_t count;
  const cleave_tensor *tensors;
  const cleave_partial_shape *partial;
  cleave_type type;
} cleave_concat_inputs;

/** The checks that do not depend on the axis position, and what they establish. */
typedef struct cleave_concat_prepared {
  const cleave_concat_op *op;
  const cleave_concat_inputs *inputs;
  char op_name[40];
  int64_t version;
  cleave_type type;
  int64_t element_size; /* 0 for packed types */
  int64_t element_bits;
  cleave_bit_order bit_order;
  bool stack;          /* ConcatFromSequence with new_axis 1 */
  int64_t rank;        /* the inputs' rank; CLEAVE_VIEW_RANK_DYNAMIC when every input's is */
  size_t rank_source;  /* the first input of static rank (0 when there is none) */
  int64_t output_rank; /* rank, plus 1 when stacking; CLEAVE_VIEW_RANK_DYNAMIC as rank */
  int64_t axis;        /* the normalised axis of the output, or -1 when its position is unknown */
} cleave_concat_prepared;

/** concat_prepare.c: input i's shape as the rules see it. */
cleave_shape_view cleave_concat_view(const cleave_concat_inputs *inputs, size_t i);

/** concat_prepare.c: checks `op` on `inputs` up to and including the axis, in the order of
 * docs/operators.md section 8. `unknown` holds CLEAVE_UNKNOWN_* flags; `static_mode` adds the
 * byte-size checks of static shapes. */
cleave_status cleave_concat_prepare(const cleave_concat_op *op, unsigned unknown,
                                    const cleave_concat_inputs *inputs, bool static_mode,
                                    cleave_concat_prepared *prep, cleave_error *err);

/** concat_dims.c: the inputs' common dimension at input position j (the intersection of their
 * intervals); fails with CLEAVE_ERROR_INVALID_SHAPE naming the first input that leaves it empty.
 * `axis` is the output axis, for the message. */
cleave_status cleave_concat_common(const cleave_concat_prepared *prep, int64_t j, int64_t axis,
                                   cleave_dim *dim, cleave_error *err);

/** concat_dims.c: the sum of the inputs' dimensions at input position j, as an interval; fails
 * with CLEAVE_ERROR_OVERFLOW when even the lower bounds sum above INT64_MAX (an upper bound
 * beyond it is clamped: no dimension exceeds it). */
cleave_status cleave_concat_sum(const cleave_concat_prepared *prep, int64_t j, cleave_dim *dim,
                                cleave_error *err);

/** concat_dims.c: the output's dimension at position p (< `prep->output_rank`) for the output
 * axis at position `axis`: the stacked count, the inputs' sum, or their common dimension. */
cleave_status cleave_concat_dim(const cleave_concat_prepared *prep, int64_t axis, int64_t p,
                                cleave_dim *dim, cleave_error *err);

/** concat_dims.c: static shapes whose dims passed `cleave_concat_at`: checks that the output's
 * byte size (element count for packed types) fits in int64 (else CLEAVE_ERROR_OVERFLOW). */
cleave_status cleave_concat_check_output_size(const cleave_concat_prepared *prep, int64_t axis,
                                              cleave_error *err);

/** concat_dims.c: the output's dimensions (`prep->output_rank` of them, written to `dims` unless
 * it is NULL) for the output axis at position `axis`, checking every dimension in order. */
cleave_status cleave_concat_at(const cleave_concat_prepared *prep, int64_t axis, cleave_dim *dims,
                               cleave_error *err);

/* ---- versions.c: the concatenating family ---------------------------------------------- */

/** Resolves the version of a concat operator in force at `op->opset` (1 for OpenVINO Concat-1)
 * and writes its name for messages ("OpenVINO Concat-1", "ONNX Concat-11"). */
cleave_status cleave_resolve_concat_version(const cleave_concat_op *op, int64_t *version,
                                            char *name, size_t name_size, cleave_error *err);

/** Checks the element type against the concat operator version's type list. */
cleave_status cleave_check_concat_type(const cleave_concat_prepared *prep, cleave_error *err);

#endif /* CLEAVE_RULES_H */
