/*
 * Writing one input of a join whose memory order is not the output's (a Fortran-order array
 * joined into a C-order output, or the reverse), in bounded memory.
 *
 * In the output's memory order the input has shape dims[0..rank); its file holds the same
 * elements in the other order, that is, as the C-order array of the reversed shape. The
 * transposition reverses every axis. Its elements, taken in C order of `dims`, are the input's
 * pieces of the output's rows: element n goes to output byte
 *   out_offset + (n * element / piece) * row_bytes + (n * element % piece).
 *
 * The index space is cut into tiles of about one chunk: a tile spans the leading axes (those that
 * are contiguous in the file) and the trailing ones (contiguous in the output) as far as the
 * chunk allows, and one index of every axis between them. Each tile is read as runs that are
 * contiguous in the file, reordered in memory and written as runs that are contiguous in the
 * output, so each read and each write moves about the square root of a chunk's elements or more.
 */
#ifndef CLEAVE_CLI_STREAM_TRANSPOSE_H
#define CLEAVE_CLI_STREAM_TRANSPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "outputs.h"
#include "progress.h"

/** What to transpose and where to. */
typedef struct stream_transpose_job {
  int in_fd;
  const char *in_path;
  uint64_t in_offset;  /* first data byte of the input */
  const int64_t *dims; /* the input's shape in the output's memory order */
  size_t rank;
  size_t element;         /* bytes per element (>= 1) */
  size_t swap;            /* byte-swap units of this many bytes on the way (0 or 1: none) */
  const out_set *outputs; /* output 0, for messages */
  int out_fd;
  uint64_t out_offset; /* where the input's piece of the first output row starts */
  uint64_t piece;      /* bytes of the input in each output row (a multiple of element) */
  uint64_t row_bytes;  /* bytes of an output row */
  size_t chunk;        /* the memory budget: one buffer of this many bytes, and one more */
  progress *progress;
} stream_transpose_job;

/**
 * Writes the input's elements to their places in the output. The caller checked that every size
 * fits in int64. Returns 0, or prints an error and returns CLI_EXIT_IOERR (a read or write failed,
 * the input ended early) or CLI_EXIT_SOFTWARE (out of memory).
 */
int stream_transpose(const stream_transpose_job *job);

#endif /* CLEAVE_CLI_STREAM_TRANSPOSE_H */
