/*
 * The one error type of the tools (every command family and every format reader): an exit status
 * (docs/cli.md, "Errors and exit status") and a one-line message that names the place at fault
 * (file, byte offset, tensor, layer). Readers and planners fill a tool_error and return its
 * status; the command that called them prints it once with tool_report. A layer that knows more
 * of the place (the file a tensor is in, the rank a file is) puts it in front with tool_prefix.
 */
#ifndef CLEAVE_TOOL_ERROR_H
#define CLEAVE_TOOL_ERROR_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"

/** Exit statuses of the cleave command (sysexits.h numbers, fixed by docs/cli.md). */
enum {
  /** Success. */
  CLI_EXIT_OK = 0,
  /** A check failed (onnx-test: a test failed; st verify: an output differs). */
  CLI_EXIT_FAIL = 1,
  /** The command line is malformed or incomplete. */
  CLI_EXIT_USAGE = 64,
  /** The request breaks a rule of docs/operators.md, or an input file is not valid. */
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

/** Size of tool_error.message, terminating NUL included. Longer messages are cut. */
#define TOOL_MESSAGE_SIZE 1024

/** A status (CLI_EXIT_*) and its message, without "cleave: error: " and without a newline.
 * Caller-owned; a zeroed one means success. */
typedef struct tool_error {
  int status;
  char message[TOOL_MESSAGE_SIZE];
} tool_error;

#if defined(__GNUC__)
#define TOOL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TOOL_PRINTF(f, a)
#endif

/** Records `status` and the formatted message in `err` (which may be NULL) and returns
 * `status`. */
int tool_fail(tool_error *err, int status, const char *format, ...) TOOL_PRINTF(3, 4);

/** Puts the formatted `format` and ": " in front of the message already in `err` (the place
 * the callee did not know: "model.safetensors: tensor 'w'"); returns err->status. */
int tool_prefix(tool_error *err, const char *format, ...) TOOL_PRINTF(2, 3);

/** Records CLI_EXIT_SOFTWARE with "out of memory" and `what` (e.g. "allocating 3 tensors"). */
int tool_oom(tool_error *err, const char *what);

/** Records a failed library call: its message (after `context` and ": " when not NULL) and the
 * exit status cli_exit_for_status gives its status. Returns that status. */
int tool_from_library(tool_error *err, const cleave_error *lib, const char *context);

/** Returns the exit status for a failing library status: rule violations give CLI_EXIT_DATA, an
 * attribute or opset outside its allowed set CLI_EXIT_USAGE, API misuse and out-of-memory
 * CLI_EXIT_SOFTWARE. CLEAVE_OK gives CLI_EXIT_OK. */
int cli_exit_for_status(cleave_status status);

/** Replaces each control character and DEL of err->message with '?': a message that quotes names
 * from a hostile file (tensor names, metadata keys) stays one line and nothing in it drives a
 * terminal. Returns err->status. */
int tool_scrub(tool_error *err);

/** Prints "cleave: error: COMMAND: <message>\n" for `err` to stderr, as cli_error does (the
 * running command's name in front), and returns err->status. */
int tool_report(const tool_error *err);

/** `singular` when `n` is 1, `plural` otherwise, for messages that count things ("1 output",
 * "2 outputs", "0 outputs"). Returns one of its arguments. */
const char *tool_plural(uint64_t n, const char *singular, const char *plural);

#endif /* CLEAVE_TOOL_ERROR_H */
