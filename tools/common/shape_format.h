/*
 * Static shapes in text: the one formatter of the tools ("[6,4,10,24]", "[]", docs/operators.md
 * section 6), for messages, reports and listings, and its reader, for the reports that hold
 * shapes and values as text and write the static ones to JSON as integers. Partial shapes are
 * written by the library (cleave_partial_shape_format).
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

/**
 * Reads back a static shape in that text: "[" and dims in canonical decimal (0 to 2^63-1, no sign,
 * no leading zero, no space) separated by "," and "]". Stores up to `capacity` dims and the rank.
 * Returns 1 for such a text of at most `capacity` dims, 0 for anything else (a partial shape such
 * as "[?,3..6]" or "[...]", a malformed text).
 */
int shape_parse_static(const char *text, int64_t *dims, size_t capacity, size_t *rank);

/** The same for a list of integers, which may be negative ("[-1,2]", "[]"): the lengths and
 * axis values of a report. */
int shape_parse_int_list(const char *text, int64_t *values, size_t capacity, size_t *count);

/** Reads one integer in canonical decimal ("3", "-1"; INT64_MIN to INT64_MAX) that is the whole
 * of `text`. Returns 1 and stores it, or returns 0. */
int shape_parse_int(const char *text, int64_t *value);

#endif /* CLEAVE_TOOL_SHAPE_FORMAT_H */
