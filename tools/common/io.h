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
 * Raises the soft limit of open files (RLIMIT_NOFILE) to the hard one when it is below `needed`:
 * for the commands that hold many files open at once (the inputs of a join, the outputs of a
 * split, a checkpoint's files and outputs). Nothing is reported: a hard limit still too low
 * shows when an open fails, and io_open_reason then names it.
 */
void io_raise_open_limit(size_t needed);

/** Whether an open that failed with errno `e` met a resource limit (EMFILE, ENFILE, ENOMEM)
 * rather than a fault of the file: CLI_EXIT_SOFTWARE then, as for any resource. */
int io_resource_limit(int e);

/** The exit status of an input that cannot be opened (errno `e`): CLI_EXIT_SOFTWARE for a
 * resource limit (io_resource_limit), CLI_EXIT_NOINPUT for anything else, whatever the file's
 * role. */
int io_open_status(int e);

/**
 * Why an open failed with errno `e`, for messages: strerror(e), followed for a resource limit by
 * what it is and its value ("Too many open files (a resource limit: this process may have 300
 * files open, its hard limit is 300)"). Writes into `buf` (of `size` bytes) and returns it.
 */
const char *io_open_reason(int e, char *buf, size_t size);

/** Records that `path` cannot be opened (errno `e`): status io_open_status(e), message "cannot
 * open WHAT 'PATH': REASON" (`what` as for io_open_regular). Returns the status. */
int io_open_fail(tool_error *err, int e, const char *what, const char *path);

/**
 * Opens `path` read-only as a regular file and stores its descriptor in `*fd` (the caller closes
 * it) and its size in `*size`. `what` names the file in messages ("input", "the weights"; NULL
 * for nothing): "cannot open WHAT 'PATH': strerror", "...: it is a directory", "...: it is not a
 * regular file (...)". Returns 0, or CLI_EXIT_NOINPUT (CLI_EXIT_SOFTWARE for a resource limit,
 * io_open_status) with `*fd` -1 and nothing left open.
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
