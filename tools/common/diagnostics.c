/* The one line of every error and warning, and the running command's name (see diagnostics.h). */
#include "diagnostics.h"

#include <stdio.h>

/* The running command, as cli_command_set recorded it; "" before a command is known. */
static char command_name[64];

void cli_command_set(const char *name) {
  snprintf(command_name, sizeof command_name, "%s", name != NULL ? name : "");
}

void cli_vreport(const char *kind, const char *place, const char *format, va_list args) {
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

void cli_report(const char *kind, const char *place, const char *format, ...) {
  va_list args;
  va_start(args, format);
  cli_vreport(kind, place, format, args);
  va_end(args);
}
