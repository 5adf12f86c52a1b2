/*
 * Streaming split of packed sub-byte data (docs/operators.md section 7) whose pieces do not all
 * fall on byte boundaries, in bounded memory. (Byte-aligned packed splits are plain byte splits and
 * go through stream.h.)
 *
 * The data is the packed bit stream of a [outer, axis_dim, inner] tensor; output i takes, from
 * every row, the bits of its lengths[i] positions along the axis, and is written packed from its
 * own bit 0 with the unused bits of its last byte zero. Every bit copy is the library's
 * (cleave_plan_run / cleave_variadic_split on the packed type); this file only chooses pieces of
 * the input whose outputs can be appended to the files bit-exactly:
 *   - rows mode, when a few rows fit in a chunk: batches of k rows, k a multiple of the smallest
 *     row count after which every output holds whole bytes (1, 2, 4 or 8 rows), so that each
 *     batch starts on a byte boundary of the input and of every output;
 *   - piece mode, for longer rows: each output's piece of each row in windows of at most a chunk,
 *     each window split as a 1-D tensor that starts as many bits before the piece as the output's
 *     last byte already holds; those first bits of the result are replaced by the held ones.
 */
#ifndef CLEAVE_CLI_STREAM_BITS_H
#define CLEAVE_CLI_STREAM_BITS_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "outputs.h"
#include "progress.h"
#include "stream.h"

/** What to split and where to. */
typedef struct stream_bits_job {
  stream_input in;
  uint64_t data_bytes;    /* the packed data's bytes: ceil(outer * axis_dim * inner * bits / 8) */
  cleave_type type;       /* a packed type (cleave_type_bits succeeds, bits < 8) */
  int64_t outer;          /* product of the logical dims before the axis */
  int64_t axis_dim;       /* the axis dimension */
  int64_t inner;          /* product of the logical dims after the axis */
  const int64_t *lengths; /* per output, along the axis; they sum to axis_dim */
  size_t count;
  stream_sink sink;
} stream_bits_job;

/**
 * Runs the job: opens each output's temporary file, writes its header and packed data, closes
 * it. The caller has validated the shape (every bit count fits in int64). Returns 0, or prints
 * an error and returns CLI_EXIT_IOERR (a read or write failed, the input ended early) or
 * CLI_EXIT_SOFTWARE (out of memory, a library call failed). Temporaries are left for the caller
 * to commit or abort.
 */
int stream_bits_split(const stream_bits_job *job);

#endif /* CLEAVE_CLI_STREAM_BITS_H */
