/*
 * The help text of every command of the cleave executable, one per command (git help's habit):
 * what `cleave COMMAND --help` and `cleave help COMMAND` print. Below every command family, so
 * that each command prints its own help without depending on the CLI or on another family; the
 * overview of all commands is the CLI's (tools/cli/help.c), made from its command table.
 */
#ifndef CLEAVE_CLI_HELP_H
#define CLEAVE_CLI_HELP_H

#include <stdio.h>

/** Prints the help of `command` ("split", "st shard", ...) to `out`. Returns 0, or -1 when no
 * command has that name (or it is NULL). */
int help_print(const char *command, FILE *out);

/** The text of `command` when it is one of `cleave gguf` ("gguf", "gguf split", ...), else NULL;
 * `*write_options` is set when the writing commands' options (help_gguf_write_options) follow
 * it. The texts are static. */
const char *help_gguf_text(const char *command, int *write_options);

/** The options of the writing gguf commands, printed after their texts. */
const char *help_gguf_write_options(void);

#endif /* CLEAVE_CLI_HELP_H */
