/*
 * Streaming join of several files' data into one output file, in bounded memory: the inverse of
 * stream.h's split. Format-neutral: the caller writes the output's header through a callback
 * (concat writes a .npy header) and describes each input by where its data starts and how many
 * bytes of it every output row takes.
 *
 * In C order (and, reversed, in Fortran order) the output is `rows` rows; each row holds, back to
 * back, input 0's piece, input 1's piece, ... where input i's data is its `rows` pieces one after
 * the other. The output is written in order: rows whose pieces are small are gathered a batch at
 * a time (each input's part of the batch read with one call, joined by a library concat plan,
 * written with one call); large pieces are copied one by one, inside the kernel
 * (copy_file_range) when the file systems allow it. Memory use is two chunks whatever the sizes.
 *
 * An input may differ from the output in byte order (its units are swapped on the way) or in
 * memory order (C against Fortran): such an input's pieces are left as holes by the row pass and
 * filled afterwards by a transposition (stream_transpose.h).
 */
#ifndef CLEAVE_CLI_STREAM_CONCAT_H
#define CLEAVE_CLI_STREAM_CONCAT_H

#include <stddef.h>
#include <stdint.h>

#include "outputs.h"
#include "progress.h"
#include "stream.h"

/** One input of a join. */
typedef struct stream_concat_input {
  stream_input in;
  uint64_t piece; /* bytes of this input in every output row (0: it adds nothing) */
  size_t swap;    /* byte-swap units of this many bytes on the way (0 or 1: none) */
  /* The input is in the other memory order: `dims` (its shape in the output's memory order,
   * `rank` of them) and `element` (bytes per element) describe its transposition; NULL dims: the
   * input is in the output's order, read as rows. */
  const int64_t *dims;
  size_t rank;
  size_t element;
} stream_concat_input;

/** What to join and where to. */
typedef struct stream_concat_job {
  const stream_concat_input *inputs;
  size_t count;
  uint64_t rows;    /* product of the output's dims before the (physical) axis */
  stream_sink sink; /* its output 0 is written */
} stream_concat_job;

/**
 * Runs the job: opens output 0's temporary file, writes its header and data, closes it. The
 * caller has checked that every size fits in int64 and that each input holds rows * piece data
 * bytes. Returns 0, or prints an error and returns CLI_EXIT_IOERR (a read or write failed, an
 * input ended early) or CLI_EXIT_SOFTWARE (out of memory). The temporary is left for the caller
 * to commit or abort.
 */
int stream_concat(const stream_concat_job *job);

#endif /* CLEAVE_CLI_STREAM_CONCAT_H */
