/* Departures from the canonical form that the reader accepts: a warning, or an error in strict
 * mode. */
#include "st_lenient.h"

#include <stdarg.h>
#include <stdio.h>

#include "cli_util.h"

int st_depart(st_leniency *l, tool_error *err, const char *format, ...) {
  char what[TOOL_MESSAGE_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  if (l != NULL && l->strict) {
    return tool_fail(err, CLI_EXIT_DATA, "%s (--strict refuses what other readers accept)", what);
  }
  if (l != NULL) {
    l->accepted++;
  }
  if (l == NULL || !l->silent) {
    /* Names come from the file: their control characters are made inert, as in errors. */
    tool_error shown;
    tool_fail(&shown, 0, "%s", what);
    tool_scrub(&shown);
    cli_warning("%s (accepted: the data is intact; 'cleave st check --strict' refuses it)",
                shown.message);
  }
  return 0;
}
