/*
 * The text form of shapes (SEMANTICS.md section 6): "[6,12,10,24]", "[]" (a scalar), and the
 * partial forms "?" / "-1" (any size), "L..H", "L.." for a dimension and "[...]" for a dynamic
 * rank. The cleave command parses them for `infer --shape` and prints static shapes in the
 * canonical form (no spaces).
 */
#ifndef CLEAVE_CLI_SHAPE_TEXT_H
#define CLEAVE_CLI_SHAPE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** A dimension interval [lo, hi]; hi is -1 when there is no upper bound. */
typedef struct cli_dim {
  int64_t lo;
  int64_t hi;
} cli_dim;

/** A parsed shape: either a dynamic rank, or `rank` dims (malloc'd, owned by the struct). */
typedef struct cli_partial_shape {
  int dynamic_rank;
  size_t rank;
  cli_dim *dims;
} cli_partial_shape;

/**
 * Parses `text` into `*shape` (spaces around items are allowed). On a malformed shape, including
 * "L..H" with L > H, prints a usage error naming `what` and the text, and returns CLI_EXIT_USAGE;
 * returns 0 on success. Free the result with cli_partial_shape_free.
 */
int cli_parse_shape(const char *text, const char *what, cli_partial_shape *shape);

/** Releases the dims of a parsed shape. */
void cli_partial_shape_free(cli_partial_shape *shape);

/** Returns 1 when every dim is a single value and the rank is static. */
int cli_partial_shape_is_static(const cli_partial_shape *shape);

/** Prints dims[0..rank) in the canonical text form, e.g. "[6,4,10,24]" or "[]". */
void cli_print_shape(FILE *out, const int64_t *dims, size_t rank);

#endif /* CLEAVE_CLI_SHAPE_TEXT_H */
