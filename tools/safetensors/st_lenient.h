/*
 * What the reader does with a file that departs from the canonical form in ways the reference
 * reader accepts and that leave every tensor's bytes intact: whitespace before the header's '{',
 * padding after its '}' other than spaces (NUL bytes, tabs, newlines), a field of a tensor entry
 * other than dtype, shape and data_offsets, and an index whose metadata.total_size is not the
 * sum of the tensors' bytes. Every command accepts them and warns on stderr, naming the file,
 * the byte offset and what; `cleave st check --strict` refuses them (status 65). Faults of the
 * data itself (holes, overlaps, truncation, missing shards) are errors everywhere.
 */
#ifndef CLEAVE_ST_LENIENT_H
#define CLEAVE_ST_LENIENT_H

#include <stddef.h>

#include "error.h"

/** How departures are treated, and how many were accepted. Caller-owned; a zeroed one warns. */
typedef struct st_leniency {
  /** 1: each departure is an error (CLI_EXIT_DATA), as `st check --strict` wants. */
  int strict;
  /** 1: departures are accepted without a word (the fuzzer). */
  int silent;
  /** The departures accepted so far. */
  size_t accepted;
} st_leniency;

/**
 * Reports one departure, whose text (a printf format and its arguments) names the file, the byte
 * offset and what: with a NULL or lenient `l`, prints "cleave: warning: COMMAND: TEXT (accepted;
 * ...)" unless `l` is silent, counts it and returns 0; with a strict `l`, records the text in `err`
 * with CLI_EXIT_DATA and returns that status.
 */
int st_depart(st_leniency *l, tool_error *err, const char *format, ...) TOOL_PRINTF(3, 4);

#endif /* CLEAVE_ST_LENIENT_H */
