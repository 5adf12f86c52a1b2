/*
 * Streaming split of a file's data into the output files, in bounded memory. Format-neutral: the
 * caller writes each output's header through a callback (split writes .npy headers), and the
 * checkpoint copy (tools/checkpoint) uses its chunk size; ir-run its writes. Every stream, the
 * split of packed data (stream_bits.h) and the joins (stream_concat.h, stream_concat_bits.h)
 * too, reads its inputs (stream_input) and writes its outputs (stream_sink) in the frame of
 * stream_outputs.
 *
 * In C order (and, reversed, in Fortran order) the data is `rows` rows; each row holds the axis
 * dimension's `unit`-byte slices back to back, so output i takes, from every row, the bytes of
 * its lengths[i] slices. The input is read in order, in chunks of a few MiB, and each output is
 * written in order: memory use is a few chunks whatever the input size. Large pieces are copied
 * inside the kernel (copy_file_range) when the file systems allow it.
 */
#ifndef CLEAVE_CLI_STREAM_H
#define CLEAVE_CLI_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "outputs.h"
#include "progress.h"

/** Outputs open at the same time; more outputs are processed in groups. */
#define STREAM_GROUP_SIZE 256
/** Bounds of the chunk size that CLEAVE_CHUNK_BYTES may set. */
#define STREAM_MIN_CHUNK 64u
#define STREAM_MAX_CHUNK (1ul << 30)

/**
 * The size of the input chunks and staging buffers: 1 MiB, or the value of the environment
 * variable CLEAVE_CHUNK_BYTES (STREAM_MIN_CHUNK to STREAM_MAX_CHUNK bytes; otherwise a warning and
 * the default). A small value lets tests split inputs larger than several chunks cheaply.
 */
size_t stream_chunk_bytes(void);

/**
 * Reads exactly `size` bytes at `offset` of the input `fd` (named `path` in messages). Returns 0,
 * or prints an error and returns CLI_EXIT_IOERR (a failed read, or the file ended early).
 */
int stream_read(int fd, const char *path, void *buf, size_t size, uint64_t offset);

/**
 * Writes `size` bytes to output i's descriptor `fd` at `*pos` and advances `*pos`. Returns 0, or
 * prints an error naming output i of `outputs` and returns CLI_EXIT_IOERR.
 */
int stream_write(const out_set *outputs, size_t i, int fd, uint64_t *pos, const void *buf,
                 size_t size);

/** Writes output i's header at offset 0 of `fd` and stores its size (where the data starts). */
typedef int (*stream_header_fn)(void *ctx, size_t i, int fd, uint64_t *header_size);

/** One input of a stream: an open file and where its data starts. */
typedef struct stream_input {
  int fd;
  const char *path;     /* for messages */
  uint64_t data_offset; /* first data byte */
} stream_input;

/** Where a stream writes: the outputs of `outputs`, each opened with its header written by
 * `write_header(header_ctx, ...)`; the bytes moved are added to `progress`. */
typedef struct stream_sink {
  out_set *outputs;
  stream_header_fn write_header;
  void *header_ctx;
  progress *progress;
} stream_sink;

/** An open output of a group: its descriptor and where its next byte goes. */
typedef struct stream_out {
  int fd;
  uint64_t pos;
} stream_out;

/** What a stream writes into the open outputs g0..g1-1 (outs[i - g0], their headers written).
 * Returns 0, or prints an error and returns its status. */
typedef int (*stream_group_fn)(void *ctx, size_t g0, size_t g1, stream_out *outs);

/**
 * The frame of every stream, splits and joins alike: the `count` outputs of `sink`, a group of at
 * most STREAM_GROUP_SIZE at a time: opens the temporary files of outputs g0..g1-1 into
 * outs[0..g1-g0), writes each one's header, runs `body` on the group and closes them whatever
 * failed; stops at the first failure. `outs` has room for min(count, STREAM_GROUP_SIZE) entries.
 * Returns 0 or the first failure's status (CLI_EXIT_IOERR when opening or closing failed). The
 * temporaries are left for the caller to commit or abort.
 */
int stream_outputs(const stream_sink *sink, size_t count, stream_out *outs, stream_group_fn body,
                   void *ctx);

/**
 * Whether the pieces of a row, which lie at byte offsets col[g0] to col[g1] of it (piece i from
 * col[i] to col[i + 1]), are better copied one by one than gathered a batch of rows at a time:
 * when the row's span is too long for several to fit in a chunk of `chunk` bytes, or its
 * smallest piece is large enough for a system call of its own. Both directions decide so.
 */
int stream_by_piece(const uint64_t *col, size_t g0, size_t g1, size_t chunk);

/** What to split and where to. */
typedef struct stream_job {
  stream_input in;
  uint64_t rows;          /* product of the dims before the (physical) axis */
  uint64_t unit;          /* bytes of one slice along the axis: dims after it times element size */
  const int64_t *lengths; /* per output, in slices; they sum to the axis dimension */
  size_t count;
  stream_sink sink;
} stream_job;

/**
 * Runs the job: opens each output's temporary file, writes its header and data, closes it.
 * Returns 0, or prints an error and returns CLI_EXIT_IOERR (a read or write failed, the input
 * ended early) or CLI_EXIT_SOFTWARE (out of memory). Temporaries are left for the caller to
 * commit or abort.
 */
int stream_split(const stream_job *job);

/** The greatest common divisor of a and b (gcd(a, 0) = a): the largest copy unit that divides
 * several byte (or bit) counts, for the callers that choose a job's `unit`. */
static inline uint64_t stream_gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

#endif /* CLEAVE_CLI_STREAM_H */
