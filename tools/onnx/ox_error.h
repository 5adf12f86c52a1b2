/* Outcomes of the ONNX test runner: a status (an exit status of `cleave onnx-test`) and a message.
 * Internal to tools/onnx; the `ox_` prefix marks the runner's own names. */
#ifndef CLEAVE_OX_ERROR_H
#define CLEAVE_OX_ERROR_H

#include <stddef.h>

#if defined(__GNUC__)
#define OX_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OX_PRINTF(f, a)
#endif

/** The statuses a test directory can end with; they are also the command's exit statuses. */
enum {
  /** Every test data set ran and every output matched. */
  OX_OK = 0,
  /** The model is well formed but the test fails: an unsupported operator or type, an operator
   * rule broken at run time, or an output that differs from the expected one. */
  OX_FAIL = 1,
  /** A file is not a valid protobuf message of the expected kind, or the model or a test data
   * set is structurally malformed (undefined names, wrong arity, data not matching its dims). */
  OX_MALFORMED = 65,
  /** A file or directory cannot be opened or read. */
  OX_NOINPUT = 66,
  /** Out of memory or another internal failure. */
  OX_INTERNAL = 70
};

/** Size of `ox_error.message`, terminating NUL included. */
#define OX_MESSAGE_SIZE 1024

/** A status with a one-line message (no trailing newline). Caller-owned. */
typedef struct ox_error {
  int status;
  char message[OX_MESSAGE_SIZE];
} ox_error;

/** Records `status` and a formatted message in `err` (if not NULL) and returns `status`. */
int ox_fail(ox_error *err, int status, const char *fmt, ...) OX_PRINTF(3, 4);

/** Puts `prefix` (formatted) in front of the message already in `err`; returns err->status. */
int ox_prefix(ox_error *err, const char *fmt, ...) OX_PRINTF(2, 3);

/** Records success in `err` (if not NULL) and returns OX_OK. */
int ox_succeed(ox_error *err);

/** Returns OX_INTERNAL with an out-of-memory message naming `what`. */
int ox_oom(ox_error *err, const char *what);

#endif /* CLEAVE_OX_ERROR_H */
