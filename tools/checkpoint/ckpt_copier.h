/*
 * The state and the primitives of the streaming writer (ckpt_copy.c), shared by its two ways of
 * moving strided spans: the gather of one source's parts (ckpt_gather.c) and the assembly of a
 * tensor from several sources (ckpt_assemble.c). Private to this folder's writer.
 *
 * Every write is positioned (each tensor's offset is known from the plan), and every failure is
 * printed where it happens ("cleave: error: ...") and returned as an exit status, as the output
 * machinery of tools/common does.
 */
#ifndef CLEAVE_CKPT_COPIER_H
#define CLEAVE_CKPT_COPIER_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "ckpt_sums.h"
#include "ckpt_writeq.h"
#include "io_copy.h"
#include "outputs.h"
#include "progress.h"

/** Reads go to the chunk at the source's offset modulo this (ckpt_read_buffer): the kernel's
 * copy into it is then aligned on both sides (ckpt_copier.c says why). */
#define CKPT_READ_ALIGN 64

/** One run of the writer: the plan, its inputs (open), two buffers of chunk_bytes (the chunk
 * CKPT_READ_ALIGN bytes longer), and where the outputs' checksums go (NULL: not computed). */
typedef struct ckpt_copier {
  const ckpt_plan *plan;
  const ckpt_model *model;
  const out_set *out;
  ckpt_file_sums *sums;
  int *in_fds;
  unsigned char *chunk, *staging;
  size_t chunk_bytes;
  io_copier io;
  progress *progress;
  ckpt_writeq *wq;
} ckpt_copier;

struct ckpt_member;

/**
 * A sequence of writes into one output file through a window of `span` bytes (a power of two):
 * bytes written one after another gather in `wbuf` (the destination range [wstart, wstart +
 * wlen)) and are passed on when they reach a multiple of `span`; a write elsewhere passes on
 * what is pending first. So the file is written in writes that end on window boundaries
 * (ckpt_copier.c says why). A file written in several places at once (the parts of a cut) has
 * a stream per place.
 */
typedef struct ckpt_stream {
  struct ckpt_member *m;
  unsigned char *wbuf;
  uint64_t span, wstart;
  size_t wlen;
} ckpt_stream;

/** An output file being written; `written` counts its bytes, checked against the plan at the
 * end; `out` is its stream; with `hashing`, every byte written is fed to `flight` (its
 * checksums, ckpt_sums.h); its writes go through `wq` (ckpt_writeq.h) unless NULL. */
typedef struct ckpt_member {
  size_t file;
  int fd;
  ckpt_writeq *wq;
  uint64_t written;
  const char *path;
  char path_buf[OUT_PATH_BUF];
  ckpt_stream out;
  int hashing;
  ckpt_flight flight;
} ckpt_member;

/** Makes `s` a stream into member m with a window of `span` bytes. Returns 0, or prints the
 * error and returns CLI_EXIT_SOFTWARE (out of memory). Release with ckpt_stream_free. */
int ckpt_stream_init(ckpt_stream *s, ckpt_member *m, uint64_t span);

/** Releases the window of `s` (what is pending is lost: flush first). */
void ckpt_stream_free(ckpt_stream *s);

/** Writes `size` bytes of `buf` at offset `at` of the stream's file. Returns 0 or prints the
 * error and returns CLI_EXIT_IOERR. */
int ckpt_stream_write(ckpt_copier *c, ckpt_stream *s, const void *buf, size_t size, uint64_t at);

/** Writes the stream's pending bytes. Returns 0 or prints the error and returns
 * CLI_EXIT_IOERR. */
int ckpt_stream_flush(ckpt_stream *s);

/** Copies `size` bytes at offset `from` of input file `src` to offset `at` of the stream's file:
 * inside the kernel when the offsets agree modulo 64 KiB and the file is not hashed in flight,
 * else read into the chunk and written through the stream. Returns 0 or prints the error and
 * returns CLI_EXIT_IOERR. */
int ckpt_stream_copy(ckpt_copier *c, ckpt_stream *s, size_t src, uint64_t from, uint64_t size,
                     uint64_t at);

/** ckpt_stream_write and ckpt_stream_copy on member m's stream. */
int ckpt_write_at(ckpt_copier *c, ckpt_member *m, const void *buf, size_t size, uint64_t at);
int ckpt_copy_at(ckpt_copier *c, ckpt_member *m, size_t src, uint64_t from, uint64_t size,
                 uint64_t at);

/** Reads `size` bytes at offset `from` of input file `src` into `buf`. Returns 0 or prints the
 * error and returns CLI_EXIT_IOERR (a failed read, or the input shrank since it was read). */
int ckpt_read_at(ckpt_copier *c, size_t src, void *buf, size_t size, uint64_t from);

/** Where a read of up to chunk_bytes from offset `from` goes: the chunk, at `from` modulo
 * CKPT_READ_ALIGN. */
unsigned char *ckpt_read_buffer(const ckpt_copier *c, uint64_t from);

/** The file offset where tensor `t` of member m's file starts. */
uint64_t ckpt_tensor_start(const ckpt_copier *c, const ckpt_member *m, const ckpt_out_tensor *t);

/** One output tensor of a gather: its one span, written through stream `s` from offset `at`
 * on. */
typedef struct ckpt_dest {
  ckpt_stream *s;
  const ckpt_out_tensor *tensor;
  const ckpt_span *span;
  uint64_t at;
} ckpt_dest;

/**
 * Writes the `count` parts of one cut (spans of one group: columns of the same source rows, each
 * packed into its own output tensor). Long rows go piece by piece; short rows in blocks of whole
 * rows read once, gathered into every part by one run of a library plan. Reorders `dests`.
 * Returns 0 or prints the error and returns an exit status.
 */
int ckpt_gather(ckpt_copier *c, ckpt_dest *dests, size_t count);

/**
 * Writes tensor `t` of member m's file from its spans, whatever they are (several sources, a
 * strided destination): blocks of output rows assembled in the staging buffer when the spans
 * share their rows, else span by span. Returns 0 or prints the error and returns an exit status.
 */
int ckpt_assemble(ckpt_copier *c, ckpt_member *m, const ckpt_out_tensor *t);

#endif /* CLEAVE_CKPT_COPIER_H */
