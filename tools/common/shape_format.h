/*
 * Static shapes in text: the one formatter of the tools ("[6,4,10,24]", "[]", docs/operators.md
 * section 6), for messages, reports and listings. Partial shapes are written by the library
 * (cleave_partial_shape_format).
 */
#ifndef CLEAVE_TOOL_SHAPE_FORMAT_H
#define CLEAVE_TOOL_SHAPE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** The buffer that holds any shape of rank up to 64 (20 characters a dim). */
#define SHAPE_TEXT_MAX (64 * 21 + 3)

/** Writes dims[0..rank) as "[d0,d1,...]" to buf (cut to `size` bytes, always terminated) and
 * returns buf, so that a message can write shape_format(dims, rank, buf, sizeof buf). */
const char *shape_format(const int64_t *dims, size_t rank, char *buf, size_t size);

/** Prints the same text to `out`. */
void shape_print(FILE *out, const int64_t *dims, size_t rank);

#endif /* CLEAVE_TOOL_SHAPE_FORMAT_H */
