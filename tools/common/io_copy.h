/*
 * Copying a byte range from one file to another: inside the kernel (copy_file_range) while the
 * file systems allow it, through a buffer with full reads and writes (io.h) otherwise. For the
 * commands that move large contiguous ranges of an input into an output (the checkpoint
 * writer); the bytes never pass through user space when the kernel does the copy.
 */
#ifndef CLEAVE_TOOL_IO_COPY_H
#define CLEAVE_TOOL_IO_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "progress.h"

/** The state of a run of copies. Caller-owned; `buf` is the caller's. */
typedef struct io_copier {
  /** 1 while copy_file_range may be tried; set to 0 when the kernel refuses it between the
   * files (other file systems, no support), after which every copy goes through `buf`. */
  int in_kernel;
  /** The buffer of the read-and-write path (at least 1 byte). */
  void *buf;
  size_t buf_size;
  /** Bytes copied are added to it (NULL: none). */
  progress *report;
} io_copier;

/**
 * Copies `size` bytes at offset `from` of `in_fd` (named `in_path` in messages) to offset `to`
 * of `out_fd` (named `out_path`). Calls are at most 64 MiB each, so that signals are seen
 * regularly. Returns 0, or CLI_EXIT_IOERR with the message in `err`: a failed read or write
 * (naming the file and the offset), or an input that ends before the range does (it shrank
 * since it was checked). Not thread-safe for one copier.
 */
int io_copy_range(io_copier *c, int in_fd, const char *in_path, uint64_t from, int out_fd,
                  const char *out_path, uint64_t to, uint64_t size, tool_error *err);

#endif /* CLEAVE_TOOL_IO_COPY_H */
