/*
 * Streaming join of packed sub-byte data (docs/operators.md section 7) whose pieces do not all
 * fall on byte boundaries, in bounded memory: the inverse of stream_bits.h. (When every input's
 * piece of a row is whole bytes, a packed join is a byte join and goes through stream_concat.h.)
 *
 * Input i is the packed bit stream of `rows` pieces of `piece` elements each; the output, packed
 * from its own bit 0 with the unused bits of its last byte zero, holds row by row input 0's piece,
 * input 1's piece, ... Every bit copy is the library's (cleave_concat_run, cleave_variadic_split
 * on the packed type); this file only chooses what to read and where to write:
 *   - rows mode, when a few rows fit in a chunk: batches of k rows, k a multiple of the smallest
 *     row count after which every input and the output hold whole bytes (1, 2, 4 or 8 rows), so
 *     that each batch starts on a byte boundary everywhere and is one library concat;
 *   - piece mode, for longer rows: each piece in windows of at most a chunk, each window taken
 *     out of the bytes that hold it (a library split drops the elements before and after it) and
 *     joined after the elements the output's last byte already holds.
 */
#ifndef CLEAVE_CLI_STREAM_CONCAT_BITS_H
#define CLEAVE_CLI_STREAM_CONCAT_BITS_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "outputs.h"
#include "progress.h"
#include "stream.h"

/** One packed input. */
typedef struct stream_concat_bits_input {
  stream_input in;
  int64_t piece; /* elements of this input in every output row */
} stream_concat_bits_input;

/** What to join and where to. */
typedef struct stream_concat_bits_job {
  const stream_concat_bits_input *inputs;
  size_t count;
  cleave_type type; /* a packed type (cleave_type_bits succeeds, bits < 8) */
  int64_t rows;     /* product of the logical dims before the axis */
  stream_sink sink; /* its output 0 is written */
} stream_concat_bits_job;

/**
 * Runs the job: opens output 0's temporary file, writes its header and packed data, closes it.
 * The caller has validated the shapes (every bit count fits in int64). Returns 0, or prints an
 * error and returns CLI_EXIT_IOERR (a read or write failed, an input ended early) or
 * CLI_EXIT_SOFTWARE (out of memory, a library call failed). The temporary is left for the caller
 * to commit or abort.
 */
int stream_concat_bits(const stream_concat_bits_job *job);

#endif /* CLEAVE_CLI_STREAM_CONCAT_BITS_H */
