/*
 * The value forms of OpenVINO IR: element type names (both spellings: `element_type="f32"` and
 * the legacy port precision "FP32", "BIN" for u1, ...) and dimensions (`<dim>` text and the
 * `shape` attribute of Parameter and Const: `N`, `-1`, `?`, `L..H`, `..H`, `L..`, and `...` for a
 * dynamic rank).
 */
#ifndef CLEAVE_IR_TYPES_H
#define CLEAVE_IR_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"

/** What an element type name means. */
typedef enum ir_type_kind {
  IR_TYPE_UNKNOWN_NAME = 0, /* not a name OpenVINO uses */
  IR_TYPE_KNOWN = 1,        /* a concrete type: `type` is set */
  IR_TYPE_DYNAMIC = 2       /* "dynamic", "undefined", "UNSPECIFIED", ...: no concrete type */
} ir_type_kind;

/**
 * Looks up an element type name in either spelling (lower-case `element_type` names such as
 * "f32", "boolean", "u1"; legacy precisions such as "FP32", "BOOL", "BIN", "I64").
 */
ir_type_kind ir_type_from_name(const char *name, cleave_type *type);

/** Returns 1 for the types whose elements are not whole bytes (u1 to u6, i4, nf4, f4e2m1, ...):
 * ir-run reads and writes them as the bytes OpenVINO packs them in. */
int ir_type_is_packed(cleave_type type);

/** The canonical (element_type) name of a type. */
const char *ir_type_name(cleave_type type);

/**
 * Parses one dimension: `N` (0 <= N <= INT64_MAX), `-1` or `?` (any), `L..H`, `..H` (0..H) or
 * `L..` (no upper bound), with no spaces. Returns 0, or -1 with the reason in `why`.
 */
int ir_dim_parse(const char *text, size_t len, cleave_dim *dim, char *why, size_t why_size);

/**
 * Parses a `shape` attribute: comma-separated dimensions with optional spaces, "" for a scalar,
 * "..." for a dynamic rank (`*rank` = CLEAVE_RANK_DYNAMIC). `dims` holds `capacity` entries.
 * Returns 0, or -1 with the reason in `why` (a malformed dimension, more than `capacity`).
 */
int ir_shape_parse(const char *text, cleave_dim *dims, size_t capacity, size_t *rank, char *why,
                   size_t why_size);

/**
 * Parses a non-negative decimal integer attribute (no sign, no spaces). Returns 0 or -1.
 */
int ir_parse_index(const char *text, int64_t *value);

/** Parses a decimal int64 (optional '-'). Returns 0 or -1. */
int ir_parse_int64(const char *text, int64_t *value);

/** Returns 1 when the static shape[0..shape_rank) lies within the declared dims[0..rank) (a
 * dynamic rank takes any shape). */
int ir_dims_fit(const cleave_dim *dims, size_t rank, const int64_t *shape, size_t shape_rank);

#endif /* CLEAVE_IR_TYPES_H */
