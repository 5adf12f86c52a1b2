/*
 * Internal declarations of the shape-inference rules (docs/operators.md sections 1-6), split by
 * concern: versions.c        operator versions and the ONNX type lists prepare.c         the checks
 * before the split: element type, data shape, axis split_common.c    lists of lengths, equal parts,
 * and the dispatch to each operator's rules split_openvino.c  OpenVINO Split-1 and VariadicSplit-1
 *   split_onnx.c      ONNX SplitToSequence and Split
 *   split18.c         Split-18's ceil(d/n) arithmetic on intervals
 *   infer.c           static shapes: the geometry execution needs, and `cleave_infer`
 * The rules work on intervals: a static shape is a partial shape whose dimensions are points,
 * and then every interval is a point and every message is the static one.
 */
#ifndef CLEAVE_RULES_H
#define CLEAVE_RULES_H

#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

/* Text buffer sizes for messages. */
enum { CLEAVE_VALUE_TEXT = 32, CLEAVE_TYPE_TEXT = 48, CLEAVE_RANGE_TEXT = 48 };

static inline int64_t cleave_min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

static inline int64_t cleave_max64(int64_t a, int64_t b) {
  return a > b ? a : b;
}

/* ceil(a / b) for a >= 0, b >= 1, without overflow. */
static inline int64_t cleave_ceil_div(int64_t a, int64_t b) {
  return a / b + (a % b != 0);
}

/* ---- versions.c --------------------------------------------------------------------------- */

/** Resolves the operator version in force at `op->opset` (1 for the OpenVINO operators) and
 * writes the operator's name for messages ("OpenVINO Split-1", "ONNX Split-13"). Fails for an
 * unknown kind or an opset below the operator's first version. */
cleave_status cleave_resolve_version(const cleave_op *op, int64_t *version, char *name,
                                     size_t name_size, cleave_error *err);

/** Checks the element type against an ONNX operator version's type list (docs/operators.md section
 * 4, 5); the OpenVINO operators take every type. */
cleave_status cleave_check_op_type(const cleave_prepared *prep, cleave_type type,
                                   cleave_error *err);

/* ---- values.c (checks with unknown values, and message text) ----------------------------- */

/** `cleave_values_check`, except that unknown values (`known` false) need no data. */
cleave_status cleave_values_check_known(const cleave_values *values, const char *name,
                                        cleave_status rule_status, bool known, cleave_error *err);

/** `cleave_values_check_layout`, except that unknown values need no data. */
cleave_status cleave_values_check_layout_known(const cleave_values *values, const char *name,
                                               bool known, cleave_error *err);

/** Writes an integer read from values (a u64 above INT64_MAX as itself). */
void cleave_format_int(char *buf, size_t size, cleave_int v);

/** Writes "a" for a point, "a..b" otherwise: integer ranges in messages (possibly negative). */
void cleave_format_range(char *buf, size_t size, int64_t lo, int64_t hi);

/* ---- split_common.c ------------------------------------------------------------------------ */

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

/* ---- split_openvino.c ----------------------------------------------------------------------- */

cleave_status cleave_split_1_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                cleave_split_hull *hull, cleave_error *err);
cleave_status cleave_variadic_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                       cleave_split_hull *hull, cleave_error *err);

/* ---- split_onnx.c --------------------------------------------------------------------------- */

cleave_status cleave_sequence_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                 cleave_split_hull *hull, cleave_error *err);
cleave_status cleave_onnx_split_at(const cleave_prepared *prep, int64_t axis, cleave_dim d,
                                   cleave_split_hull *hull, cleave_error *err);

/* ---- split18.c ------------------------------------------------------------------------------ */

/** Sets chunk (c = ceil(d/n)) and last (d - c(n-1)) for Split-18 with num_outputs n >= 1 over
 * the values of `d`. Returns false when no value of `d` is valid. */
bool cleave_ceil_parts(int64_t n, cleave_dim d, cleave_split_hull *hull);

#endif /* CLEAVE_RULES_H */
