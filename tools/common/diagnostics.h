/*
 * The one line of every error and warning the cleave command prints on stderr:
 * "cleave: KIND: COMMAND: PLACE: message". COMMAND is the running command as the user typed it,
 * recorded once where the command is dispatched; PLACE, when given, says where the words at fault
 * come from if not from the command line (a rules file's line). cli_util.h (cli_error,
 * cli_warning, cli_error_at) and error.h (tool_report) print through it.
 */
#ifndef CLEAVE_DIAGNOSTICS_H
#define CLEAVE_DIAGNOSTICS_H

#include <stdarg.h>

/**
 * Records the running command as the user typed it ("split", "infer split", "st shard", "shard",
 * "help"): every error and warning printed from then on names it after "cleave: error: " or
 * "cleave: warning: ". NULL or "" forgets it (before a command is known the lines have no
 * COMMAND). The name is copied (cut at 63 bytes). Call it before any helper thread starts.
 */
void cli_command_set(const char *name);

/** Prints "cleave: KIND: COMMAND: PLACE: <message>\n" to stderr, COMMAND left out when none is
 * recorded and PLACE when NULL or "". `kind` is "error" or "warning". */
void cli_vreport(const char *kind, const char *place, const char *format, va_list args);

/** cli_vreport with the message's arguments. */
void cli_report(const char *kind, const char *place, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* CLEAVE_DIAGNOSTICS_H */
