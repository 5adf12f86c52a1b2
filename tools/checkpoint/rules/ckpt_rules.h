/*
 * The split rules of the checkpoint commands on the command line and in rules files, whatever
 * the format: "--tensor GLOB [--view SHAPE] -a AXIS (-n N | -l LENGTHS) --into NAME,...", one
 * rule per --tensor, and the GLOB=VALUE options of shard (--axis, --view). Errors are printed
 * ("cleave: error: ...") with the rule's origin ("rule 2 (--tensor 'x')" on the command line,
 * "FILE:LINE (--tensor 'x')" in a rules file) and returned as exit statuses.
 */
#ifndef CLEAVE_CKPT_RULES_H
#define CLEAVE_CKPT_RULES_H

#include <stddef.h>

#include "args.h"
#include "ckpt_planner.h"

/** The options of a rule, as a command's option identifiers must number them. */
enum {
  CKPT_RULE_TENSOR = 101,
  CKPT_RULE_VIEW,
  CKPT_RULE_AXIS,
  CKPT_RULE_NUM,
  CKPT_RULE_LENGTHS,
  CKPT_RULE_INTO
};

/** The rules of one command, and the strings they point to. Zero it before use. */
typedef struct ckpt_rule_set {
  ckpt_split_rule *rules;
  size_t count, cap;
  char **owned;
  size_t owned_count, owned_cap;
  /** The command, for messages ("gguf split"). */
  const char *command;
  /** Rules begun on the command line (numbered "rule 1", "rule 2", ... among themselves), and
   * whether the last rule came from a rules file. */
  size_t command_line;
  int last_in_file;
  /** Whether the command takes rules of experts (CKPT_EXPERT_MARK in a glob or a name). */
  int experts;
} ckpt_rule_set;

/**
 * Applies rule option `kind` (CKPT_RULE_*) with `value` (borrowed: it must outlive the set) to
 * the set: --tensor starts a rule, the others complete the last one. `where` names the place
 * ("rule 2", "rules.txt:3"). Returns 0 or prints the error and returns CLI_EXIT_USAGE or
 * CLI_EXIT_SOFTWARE.
 */
int ckpt_rule_option(ckpt_rule_set *s, int kind, const char *value, const char *where);

/**
 * Applies rule option `kind` given on the command line: --tensor starts the next rule of the
 * command line, named "rule N" (N from 1, counting only the command line's rules, whatever rules
 * files held); another option completes the last rule the command line started, and is refused
 * (CLI_EXIT_USAGE, printed) after --rules FILE or before any --tensor. Returns as
 * ckpt_rule_option.
 */
int ckpt_rule_command_line(ckpt_rule_set *s, int kind, const char *value);

/** Checks that rule `r` is complete (an axis, one of -n and -l, names as many as its parts) and
 * sets what it does with experts: CKPT_EXPERT_MARK once in its glob (a stack: one name, no -n,
 * -l or --view) or once in its one name (an unstack: the same), only when s->experts. Returns 0
 * or prints the error and returns CLI_EXIT_USAGE (CLI_EXIT_SOFTWARE: out of memory). */
int ckpt_rule_complete(ckpt_rule_set *s, ckpt_split_rule *r);

/** Reads a rules file: one rule per line with the options above, written as on the command
 * line (the words split as a shell splits them: quotes and backslashes work, '#' starts a
 * comment; tools/common/words.h), each rule named "FILE:LINE". Returns 0 or prints the error
 * and returns CLI_EXIT_NOINPUT (cannot open), CLI_EXIT_USAGE or CLI_EXIT_SOFTWARE. */
int ckpt_rules_read(ckpt_rule_set *s, const char *path);

/** The options of the split rules on a command line (--tensor, --view, -a, -n, -l, --into) and
 * --rules FILE, whose target is a ckpt_rule_set: include them at its offset (args.h). */
extern const cli_opt ckpt_rule_options[];

/** Releases the set. */
void ckpt_rule_set_free(ckpt_rule_set *s);

/** Splits "GLOB=VALUE" (at its last '='): `*glob` malloc'd, `*value` into `text`. Returns 0 or
 * prints "OPTION 'TEXT' is not GLOB=VALUE" (after `place` when not NULL, as cli_error_at) and
 * returns CLI_EXIT_USAGE. */
int ckpt_parse_glob_value(const char *place, const char *text, const char *option, char **glob,
                          const char **value);

#endif /* CLEAVE_CKPT_RULES_H */
