/*
 * Opening input files, and full reads and writes at an offset: every file access of the tools
 * goes through these, so that interrupted calls (EINTR) are retried, short counts continue where
 * they stopped, and a failure becomes one tool_error naming the file and the offset.
 */
#ifndef CLEAVE_TOOL_IO_H
#define CLEAVE_TOOL_IO_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/**
 * Opens `path` read-only as a regular file and stores its descriptor in `*fd` (the caller closes
 * it) and its size in `*size`. `what` names the file in messages ("input", "the weights"; NULL
 * for nothing): "cannot open WHAT 'PATH': strerror", "...: it is a directory", "...: it is not a
 * regular file (...)". Returns 0, or CLI_EXIT_NOINPUT with `*fd` -1 and nothing left open.
 */
int io_open_regular(const char *path, const char *what, int *fd, uint64_t *size, tool_error *err);

/** The permission bits of the open file `fd` (its st_mode & 0777; 0 when fstat fails): the
 * outputs made from it are no more readable (out_set_limit_mode). */
unsigned io_permissions(int fd);

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

/**
 * The loops alone, for a caller whose messages name the file its own way (an output by its final
 * name, not its temporary one): reads up to `size` bytes at `offset` until the end of the file,
 * stores the count in `*got`, and returns 0 or the errno of the failed read.
 */
int io_pread_all(int fd, void *buf, size_t size, uint64_t offset, size_t *got);

/** Writes all `size` bytes at `offset`, storing the count written in `*done`; returns 0 or the
 * errno of the failed write (ENOSPC for a write that makes no progress). */
int io_pwrite_all(int fd, const void *buf, size_t size, uint64_t offset, size_t *done);

#endif /* CLEAVE_TOOL_IO_H */
