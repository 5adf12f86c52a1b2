/*
 * Reporting at once on stderr, for the commands that print a fault where they find it (the exit
 * statuses and the error type that readers fill are in error.h): the one line of every error and
 * warning, "cleave: error: COMMAND: ..." and "cleave: warning: COMMAND: ...", where COMMAND is
 * the running command as the user typed it, recorded once by the dispatcher (cli_command_set,
 * diagnostics.h, which prints the line); a failed library call; and an allocation that reports
 * its failure.
 */
#ifndef CLEAVE_CLI_UTIL_H
#define CLEAVE_CLI_UTIL_H

#include <stddef.h>

#include "cleave.h"
#include "diagnostics.h"
#include "error.h"

/**
 * Prints "cleave: error: COMMAND: <message>\n" to stderr (without "COMMAND: " when no command is
 * recorded), formatting the message like printf, and returns
 * `status` so that callers can write `return cli_error(CLI_EXIT_USAGE, ...)`. Not thread-safe with
 * respect to other writers of stderr.
 */
int cli_error(int status, const char *format, ...) __attribute__((format(printf, 2, 3)));

/**
 * cli_error for words that do not come from the command line itself: "cleave: error: COMMAND:
 * PLACE: <message>\n", where PLACE says where they come from (a rules file's line, "rules.txt:3";
 * a ranks' record); NULL or "" gives cli_error's line. Returns `status`.
 */
int cli_error_at(const char *place, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/** Prints "cleave: warning: COMMAND: <message>\n" to stderr, as cli_error does. */
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
