/*
 * Command-line parsing for the cleave command: a small option scanner (short options, bundled
 * flags, long options with "=VALUE" or a separate value, "--") and strict parsers for the values
 * the commands take (integers and comma-separated integer lists).
 */
#ifndef CLEAVE_CLI_ARGS_H
#define CLEAVE_CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>

/** One option a command accepts. */
typedef struct cli_option {
  /** Long name without the leading "--" (never NULL). */
  const char *long_name;
  /** Short name, or 0 when the option has none. */
  char short_name;
  /** 1 when the option takes a value. */
  int takes_value;
  /** The caller's identifier, returned by cli_parser_next. */
  int id;
} cli_option;

/** Scanner state over argv. Initialise with cli_parser_init; holds pointers into argv only. */
typedef struct cli_parser {
  int argc;
  char **argv;
  int index;           /* next argv element to look at */
  const char *bundle;  /* rest of a bundle of short flags ("-fq"), or NULL */
  int only_positional; /* set after "--" */
  const char *command; /* for messages, e.g. "split" */
} cli_parser;

/** What cli_parser_next found. */
enum { CLI_NEXT_END = 0, CLI_NEXT_OPTION = 1, CLI_NEXT_POSITIONAL = 2, CLI_NEXT_ERROR = 3 };

/** Starts scanning argv[first..argc). `command` names the command in messages. */
void cli_parser_init(cli_parser *p, int argc, char **argv, int first, const char *command);

/**
 * Returns the next item: CLI_NEXT_OPTION with `*id` and `*value` (NULL for a flag),
 * CLI_NEXT_POSITIONAL with the argument in `*value`, CLI_NEXT_END, or CLI_NEXT_ERROR after
 * printing a usage error (unknown option, missing value, value given to a flag).
 */
int cli_parser_next(cli_parser *p, const cli_option *options, size_t count, int *id,
                    const char **value);

/** Writes "-a/--axis" (or "--opset") for `option` to buf. */
void cli_option_label(const cli_option *option, char *buf, size_t size);

/** Writes the label (as cli_option_label) of the option of `options[0..count)` whose id is `id`
 * to buf; an empty string when none has it. */
void cli_option_label_of(const cli_option *options, size_t count, int id, char *buf, size_t size);

/**
 * Parses a decimal int64 (optional sign, no spaces, no trailing text). On failure prints
 * "<what>: '<text>' is not an integer" (or "is out of range") and returns CLI_EXIT_USAGE;
 * returns 0 on success.
 */
int cli_parse_int64(const char *text, const char *what, int64_t *out);

/**
 * Parses a comma-separated list of int64 values, or of "?" entries (values unknown). Stores a
 * malloc'd array in `*values` (NULL when unknown), the entry count in `*count` and whether the
 * entries are "?" in `*unknown`. An empty list or entry, a malformed number or a mix of numbers
 * and "?" prints a usage error and returns CLI_EXIT_USAGE; returns 0 on success.
 */
int cli_parse_int64_list(const char *text, const char *what, int64_t **values, int64_t *count,
                         int *unknown);

#endif /* CLEAVE_CLI_ARGS_H */
