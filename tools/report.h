/*
 * What the commands print on stdout: the outputs' shapes (and paths), as text lines or as the
 * one JSON object of CLI.md's "--json" section.
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
} report;

/** Starts a report for command `op` ("split", ...). `quiet` silences the text form only. */
void report_begin(report *r, const char *op, int json, int quiet);

/**
 * Adds one output: its shape, and its path (NULL for `infer`). Text form: "PATH SHAPE", or
 * "SHAPE" without a path.
 */
void report_output(report *r, const int64_t *dims, size_t rank, const char *path);

/** Ends the report and flushes stdout. Returns 0, or CLI_EXIT_IOERR when stdout failed. */
int report_end(report *r);

#endif /* CLEAVE_CLI_REPORT_H */
