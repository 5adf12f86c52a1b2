/*
 * The help texts of the cleave executable (tools/help.c), for every command family: the format
 * folders' commands print their own help through it without depending on the operator commands.
 */
#ifndef CLEAVE_CLI_HELP_H
#define CLEAVE_CLI_HELP_H

#include <stdio.h>

/** Prints the help of `command` (NULL: the tool's overview) to `out`. Returns 0 if known. */
int help_print(const char *command, FILE *out);

#endif /* CLEAVE_CLI_HELP_H */
