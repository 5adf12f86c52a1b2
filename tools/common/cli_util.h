/*
 * Shared helpers of the cleave command: exit statuses (docs/cli.md, "Errors and exit status"),
 * error messages on stderr, and the mapping from library statuses to exit statuses. Every command
 * family (the operator commands, ir-*, st) and the .npy, IR and safetensors readers use them, so
 * that every command reports errors the same way.
 */
#ifndef CLEAVE_CLI_UTIL_H
#define CLEAVE_CLI_UTIL_H

#include <stddef.h>

#include "cleave.h"

/** Exit statuses of the cleave command (sysexits.h numbers, fixed by docs/cli.md). */
enum {
  /** Success. */
  CLI_EXIT_OK = 0,
  /** The command line is malformed or incomplete. */
  CLI_EXIT_USAGE = 64,
  /** The request breaks a rule of docs/operators.md, or the input is not a valid .npy file. */
  CLI_EXIT_DATA = 65,
  /** The input file cannot be opened. */
  CLI_EXIT_NOINPUT = 66,
  /** Internal error (including running out of memory). */
  CLI_EXIT_SOFTWARE = 70,
  /** An output cannot be created, or exists and --force was not given. */
  CLI_EXIT_CANTCREAT = 73,
  /** A read or write system call failed. */
  CLI_EXIT_IOERR = 74
};

/**
 * Prints "cleave: error: <message>\n" to stderr, formatting the message like printf, and returns
 * `status` so that callers can write `return cli_error(CLI_EXIT_USAGE, ...)`. Not thread-safe with
 * respect to other writers of stderr.
 */
int cli_error(int status, const char *format, ...) __attribute__((format(printf, 2, 3)));

/** Prints "cleave: warning: <message>\n" to stderr. */
void cli_warning(const char *format, ...) __attribute__((format(printf, 1, 2)));

/**
 * Returns the exit status for a failing library status: rule violations give CLI_EXIT_DATA, an
 * attribute or opset outside its allowed set CLI_EXIT_USAGE, API misuse and out-of-memory
 * CLI_EXIT_SOFTWARE. CLEAVE_OK gives CLI_EXIT_OK.
 */
int cli_exit_for_status(cleave_status status);

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
