/*
 * What the commands that write or infer outputs print (the operator commands, infer, ir-run): the
 * outputs' shapes (and paths), as text lines or as the one JSON object of docs/cli.md's "--json"
 * section, {"op": ..., "outputs": [{"shape": "[1,12,10,24]", "path": ..., "dims": [1, 12, 10,
 * 24]}, ...]}: "shape" is the text form (the contract's), "dims" the same shape as integers, only
 * when it is static.
 */
#ifndef CLEAVE_TOOL_REPORT_H
#define CLEAVE_TOOL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "json_out.h"

/** A report in progress. Plain data, filled by report_begin. */
typedef struct report {
  FILE *out;
  int json;
  int quiet;
  size_t count;
  int sequence; /* report_sequence was called */
  json_out writer;
} report;

/** Starts a report for command `op` ("split", ...) on `out` (stdout). `quiet` silences the text
 * form only. */
void report_begin(report *r, FILE *out, const char *op, int json, int quiet);

/**
 * Adds one output: its static shape, and its path (NULL for `infer`). Text form: "PATH SHAPE",
 * or "SHAPE" without a path.
 */
void report_output(report *r, const int64_t *dims, size_t rank, const char *path);

/** Adds one output of `infer` whose shape is already in text form (a partial shape; "dims" in
 * JSON when it is static after all). */
void report_output_text(report *r, const char *shape);

/**
 * Reports a sequence whose element count varies (partial inference of SplitToSequence): text
 * "COUNT x ELEMENT", JSON "count" and "element" (and "element_dims" when the element's shape is
 * static) instead of "outputs". Call it alone.
 */
void report_sequence(report *r, const char *count, const char *element);

/** Ends the report and flushes the stream. Returns 0, or prints an error naming stdout and
 * returns CLI_EXIT_IOERR when the stream failed. */
int report_end(report *r);

#endif /* CLEAVE_TOOL_REPORT_H */
