/*
 * What the commands print on stdout: the outputs' shapes (and paths), as text lines or as the
 * one JSON object of docs/cli.md's "--json" section.
 */
#ifndef CLEAVE_CLI_REPORT_H
#define CLEAVE_CLI_REPORT_H

#include <stddef.h>
#include <stdint.h>

/** A report in progress. */
typedef struct report {
  int json;
  int quiet;
  size_t count;
  int sequence; /* report_sequence was called */
} report;

/** Starts a report for command `op` ("split", ...). `quiet` silences the text form only. */
void report_begin(report *r, const char *op, int json, int quiet);

/**
 * Adds one output: its static shape, and its path (NULL for `infer`). Text form: "PATH SHAPE",
 * or "SHAPE" without a path.
 */
void report_output(report *r, const int64_t *dims, size_t rank, const char *path);

/** Adds one output of `infer` whose shape is already in text form (a partial shape). */
void report_output_text(report *r, const char *shape);

/**
 * Reports a sequence whose element count varies (partial inference of SplitToSequence): text
 * "COUNT x ELEMENT", JSON "count" and "element" instead of "outputs". Call it alone.
 */
void report_sequence(report *r, const char *count, const char *element);

/** Ends the report and flushes stdout. Returns 0, or CLI_EXIT_IOERR when stdout failed. */
int report_end(report *r);

#endif /* CLEAVE_CLI_REPORT_H */
