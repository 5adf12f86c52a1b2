/*
 * `--shape` in the text form of docs/operators.md section 6: parsed with the library's parser, so
 * that the CLI accepts exactly what the library documents (static shapes are printed by
 * tools/common/shape_format.h).
 */
#ifndef CLEAVE_CLI_SHAPE_TEXT_H
#define CLEAVE_CLI_SHAPE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"

/** A parsed shape: `rank` (or CLEAVE_RANK_DYNAMIC) and its dims (malloc'd, owned). */
typedef struct cli_shape {
  size_t rank;
  cleave_dim *dims;
} cli_shape;

/**
 * Parses `text` (e.g. "[2,?,3..6,4..]", "[...]") into `*shape`. A malformed shape, including
 * "L..H" with L > H, prints a usage error naming `what` and the text and returns CLI_EXIT_USAGE;
 * returns 0 on success. Free the result with cli_shape_free.
 */
int cli_shape_parse(const char *text, const char *what, cli_shape *shape);

/** Releases the dims of a parsed shape. */
void cli_shape_free(cli_shape *shape);

/** Returns 1 when the rank is static and every dim a single value. */
int cli_shape_is_static(const cli_shape *shape);

#endif /* CLEAVE_CLI_SHAPE_TEXT_H */
