/* Error reporting and exit statuses of the cleave command. */
#include "cli_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "diagnostics.h"

int cli_error(int status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  cli_vreport("error", NULL, format, args);
  va_end(args);
  return status;
}

int cli_error_at(const char *place, int status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  cli_vreport("error", place, format, args);
  va_end(args);
  return status;
}

void cli_warning(const char *format, ...) {
  va_list args;
  va_start(args, format);
  cli_vreport("warning", NULL, format, args);
  va_end(args);
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
