/*
 * The frame of the cleave executable (tools/cli): the command table that main.c dispatches
 * through, and the help command and overview that help.c makes from it.
 */
#ifndef CLEAVE_CLI_CLI_H
#define CLEAVE_CLI_CLI_H

#include <stddef.h>
#include <stdio.h>

/** A command's entry point: the whole argv and the index of the command's first own argument
 * (argv[first - 1] is the command's name). Returns the process exit status. */
typedef int (*cli_handler)(int argc, char **argv, int first);

/** One entry of the command table. */
typedef struct cli_command {
  /** What the user types: "split", "st", "--version". */
  const char *name;
  cli_handler run;
  /** The overview's line: the synopsis ("help [COMMAND]") and what the command does; NULL
   * summary: not listed (the --help and --version options). */
  const char *synopsis;
  const char *summary;
} cli_command;

/** Prints the overview of the tool (usage, the listed commands of `table`, the options and exit
 * statuses) to `out`. */
void cli_help_overview(const cli_command *table, size_t count, FILE *out);

/**
 * `cleave help [COMMAND [SUBCOMMAND]]`: argv[first..argc) are the words after "help". Prints the
 * overview, or runs `cleave COMMAND [SUBCOMMAND] --help`, and returns its status; or prints a usage
 * error and returns CLI_EXIT_USAGE (an unknown command, an extra argument).
 */
int cli_help_command(const cli_command *table, size_t count, int argc, char **argv, int first);

#endif /* CLEAVE_CLI_CLI_H */
