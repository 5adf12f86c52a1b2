/* The tools' error type: recording, prefixing and reporting. */
#include "error.h"

#include "diagnostics.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int tool_fail(tool_error *err, int status, const char *format, ...) {
  if (err != NULL) {
    err->status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
  }
  return status;
}

int tool_prefix(tool_error *err, const char *format, ...) {
  char head[TOOL_MESSAGE_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(head, sizeof head, format, args);
  va_end(args);
  /* head, ": ", then as much of the old message as fits (the message may be cut, never the
   * place). */
  size_t head_len = strlen(head);
  size_t room = sizeof err->message - 1;
  size_t lead = head_len + 2 < room ? head_len + 2 : room;
  size_t tail = strlen(err->message);
  if (tail > room - lead) {
    tail = room - lead;
  }
  memmove(err->message + lead, err->message, tail);
  err->message[lead + tail] = '\0';
  memcpy(err->message, head, lead < head_len ? lead : head_len);
  if (lead > head_len) {
    memcpy(err->message + head_len, ": ", lead - head_len);
  }
  return err->status;
}

int tool_oom(tool_error *err, const char *what) {
  return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory %s", what);
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

int tool_from_library(tool_error *err, const cleave_error *lib, const char *context) {
  int status = cli_exit_for_status(lib->status);
  if (context != NULL) {
    return tool_fail(err, status, "%s: %s", context, lib->message);
  }
  return tool_fail(err, status, "%s", lib->message);
}

int tool_scrub(tool_error *err) {
  for (char *c = err->message; *c != '\0'; c++) {
    if ((unsigned char)*c < 0x20 || *c == 0x7f) {
      *c = '?';
    }
  }
  return err->status;
}

int tool_report(const tool_error *err) {
  /* The one line of every error, the running command's name included. */
  cli_report("error", NULL, "%s", err->message);
  return err->status;
}

const char *tool_plural(uint64_t n, const char *singular, const char *plural) {
  return n == 1 ? singular : plural;
}
