/* Error reporting and exit statuses of the cleave command. */
#include "cli_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void vreport(const char *kind, const char *format, va_list args) {
  /* One fputs per piece is fine here: the line is short and stderr is unbuffered. */
  fprintf(stderr, "cleave: %s: ", kind);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
}

int cli_error(int status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vreport("error", format, args);
  va_end(args);
  return status;
}

void cli_warning(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vreport("warning", format, args);
  va_end(args);
}

int cli_exit_for_status(cleave_status status) {
  switch (status) {
  case CLEAVE_OK:
    return CLI_EXIT_OK;
  case CLEAVE_ERROR_INVALID_SHAPE:
  case CLEAVE_ERROR_INVALID_AXIS:
  case CLEAVE_ERROR_INVALID_SPLIT:
  case CLEAVE_ERROR_UNSUPPORTED_TYPE:
  case CLEAVE_ERROR_OVERFLOW:
    return CLI_EXIT_DATA;
  /* docs/cli.md puts "-k 2" and "an opset below the operator's first version" among the usage
   * errors: the command line itself holds a value outside the option's allowed set. */
  case CLEAVE_ERROR_INVALID_ATTRIBUTE:
  case CLEAVE_ERROR_UNSUPPORTED_VERSION:
    return CLI_EXIT_USAGE;
  case CLEAVE_ERROR_INVALID_ARGUMENT:
  case CLEAVE_ERROR_OUT_OF_MEMORY:
  case CLEAVE_ERROR_CAPACITY:
  default:
    return CLI_EXIT_SOFTWARE;
  }
}

int cli_library_error(const cleave_error *err, const char *context) {
  if (context != NULL) {
    return cli_error(cli_exit_for_status(err->status), "%s: %s", context, err->message);
  }
  return cli_error(cli_exit_for_status(err->status), "%s", err->message);
}

void *cli_calloc(size_t count, size_t size) {
  void *p = calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);
  if (p == NULL) {
    cli_error(CLI_EXIT_SOFTWARE, "out of memory allocating %zu x %zu bytes", count, size);
  }
  return p;
}
