/*
 * Full reads and writes at an offset: every file access of the tools goes through these, so
 * that interrupted calls (EINTR) are retried, short counts continue where they stopped, and a
 * failure becomes one tool_error naming the file and the offset.
 */
#ifndef CLEAVE_TOOL_IO_H
#define CLEAVE_TOOL_IO_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/**
 * Reads exactly `size` bytes at `offset` of `fd` (named `path` in messages) into `buf`.
 * Returns 0; CLI_EXIT_IOERR when a read fails ("cannot read 'PATH' at offset N: strerror");
 * or `short_status` when the file ends first ("'PATH' ends at byte N, before the M bytes at
 * offset O"): a reader passes CLI_EXIT_DATA (the file is truncated), a copy of a range that was
 * checked before passes CLI_EXIT_IOERR (the file shrank meanwhile).
 */
int io_read_full(int fd, const char *path, void *buf, size_t size, uint64_t offset,
                 int short_status, tool_error *err);

/**
 * Writes the `size` bytes of `buf` at `offset` of `fd` (named `path` in messages). Returns 0 or
 * CLI_EXIT_IOERR ("writing 'PATH' failed at offset N: strerror"; a write that makes no progress
 * is reported as ENOSPC).
 */
int io_write_full(int fd, const char *path, const void *buf, size_t size, uint64_t offset,
                  tool_error *err);

/**
 * Reads at most `size` bytes at `offset` into `buf`, retrying on EINTR and continuing after short
 * counts until `size` bytes or the end of the file; stores the count in `*got`. Returns 0 or
 * CLI_EXIT_IOERR. For readers that accept a file shorter than the buffer.
 */
int io_read_upto(int fd, const char *path, void *buf, size_t size, uint64_t offset, size_t *got,
                 tool_error *err);

#endif /* CLEAVE_TOOL_IO_H */
