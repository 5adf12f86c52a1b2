/*
 * Reporting at once on stderr, for the commands that print a fault where they find it (the exit
 * statuses and the error type that readers fill are in error.h): "cleave: error: ..." and
 * "cleave: warning: ...", a failed library call, and an allocation that reports its failure.
 */
#ifndef CLEAVE_CLI_UTIL_H
#define CLEAVE_CLI_UTIL_H

#include <stddef.h>

#include "cleave.h"
#include "error.h"

/**
 * Prints "cleave: error: <message>\n" to stderr, formatting the message like printf, and returns
 * `status` so that callers can write `return cli_error(CLI_EXIT_USAGE, ...)`. Not thread-safe with
 * respect to other writers of stderr.
 */
int cli_error(int status, const char *format, ...) __attribute__((format(printf, 2, 3)));

/** Prints "cleave: warning: <message>\n" to stderr. */
void cli_warning(const char *format, ...) __attribute__((format(printf, 1, 2)));

/**
 * Reports a failed library call: prints the library's message (prefixed by `context` and ": "
 * when `context` is not NULL) and returns cli_exit_for_status(err->status).
 */
int cli_library_error(const cleave_error *err, const char *context);

/**
 * Allocates `count` elements of `size` bytes (zeroed), or reports "out of memory" and returns
 * NULL. A zero count returns a valid one-byte allocation, so that NULL always means failure.
 */
void *cli_calloc(size_t count, size_t size);

#endif /* CLEAVE_CLI_UTIL_H */
