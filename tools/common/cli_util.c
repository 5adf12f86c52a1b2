/* Error reporting and exit statuses of the cleave command. */
#include "cli_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The running command, as cli_command_set recorded it; "" before a command is known. */
static char command_name[64];

void cli_command_set(const char *name) {
  snprintf(command_name, sizeof command_name, "%s", name != NULL ? name : "");
}

const char *cli_command_name(void) {
  return command_name;
}

/* The one line of every error and warning: "cleave: KIND: COMMAND: PLACE: message", COMMAND
 * left out before a command is known and PLACE when NULL or "". */
static void vreport(const char *kind, const char *place, const char *format, va_list args) {
  /* One fprintf per piece is fine here: the line is short and stderr is unbuffered. */
  fprintf(stderr, "cleave: %s: ", kind);
  if (command_name[0] != '\0') {
    fprintf(stderr, "%s: ", command_name);
  }
  if (place != NULL && place[0] != '\0') {
    fprintf(stderr, "%s: ", place);
  }
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
}

int cli_error(int status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vreport("error", NULL, format, args);
  va_end(args);
  return status;
}

int cli_error_at(const char *place, int status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vreport("error", place, format, args);
  va_end(args);
  return status;
}

void cli_warning(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vreport("warning", NULL, format, args);
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
