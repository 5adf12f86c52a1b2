/*
 * The `cleave gguf` commands (cmd_gguf*.c): the entry point the CLI calls, the option
 * identifiers and table they share, and the helpers of cmd_gguf_common.c (loading, the write
 * options, finishing and running a plan).
 */
#ifndef CLEAVE_GGUF_CLI_H
#define CLEAVE_GGUF_CLI_H

#include <stdint.h>

#include "args.h"
#include "ckpt_plan.h"
#include "ckpt_rank_options.h"
#include "ckpt_report.h"
#include "ckpt_rules.h"
#include "error.h"
#include "gguf_model.h"
#include "gguf_outputs.h"

/** cleave gguf ls|check|split|shard|merge|verify ...: `argv[first]` is the subcommand. Returns the
 * process exit status (docs/cli.md, "Errors and exit status"). */
int cmd_gguf(int argc, char **argv, int first);

/** Option identifiers (the rule options are CKPT_RULE_*). */
enum {
  GOPT_HELP = 1,
  GOPT_JSON,
  GOPT_QUIET,
  GOPT_GLOB,
  GOPT_METADATA,
  GOPT_OUTPUT,
  GOPT_FORCE,
  GOPT_SYNC,
  GOPT_DRY_RUN,
  GOPT_NO_PROGRESS,
  GOPT_MAX_SIZE,
  GOPT_RULES,
  GOPT_REPLICATE,
  GOPT_UNMATCHED,
};

/** The options of ls and check, and of the writing commands. */
extern const cli_option gguf_inspect_options[];
extern const size_t gguf_inspect_option_count;
extern const cli_option gguf_write_options[];
extern const size_t gguf_write_option_count;

/** What a writing command was asked. */
typedef struct gguf_write_opts {
  ckpt_run_options run;
  /** --max-shard-size in bytes (0: not given). */
  uint64_t max_size;
} gguf_write_opts;

/** Zeroes `o` for a writing command of this command line: progress on, the command line kept
 * for the manifest, the folder's other .gguf files named in a warning after the commit (gguf
 * merge, which writes a file among others, turns that off). */
void gguf_write_opts_init(gguf_write_opts *o, int argc, char **argv);

/** Applies -o, -f, --sync, --dry-run, --json, -q, --no-progress and --max-shard-size (64 for a
 * malformed size); returns 1 when `id` was one of them (with `*rc` set), else 0. */
int gguf_parse_write_option(int id, const char *value, gguf_write_opts *o, int *rc);

/** Applies -n, --axis, --view, --replicate and --unmatched to `r` (ckpt_rank_options.h); returns 1
 * when `id` was one of them (with `*rc` 0 or CLI_EXIT_USAGE, reported naming `cmd`), else 0. */
int gguf_rank_option(ckpt_rank_rules *r, int id, const char *value, const char *cmd, int *rc);

/** Prints the error of a reader or planner (control characters made inert); returns its status. */
int gguf_report(tool_error *err);

/** Loads MODEL, printing the error; returns 0 or an exit status. Free `m` in either case. */
int gguf_load(const char *path, gguf_model *m);

/** Finishes `plan` (gguf_outputs.h) and runs it (ckpt_report.h), printing any error; `cmd`
 * names the command. Returns an exit status. */
int gguf_run(const gguf_model *m, ckpt_plan *plan, const gguf_write_opts *o,
             const gguf_output_options *out, const char *cmd);

/** The subcommands. */
int cmd_gguf_inspect(int argc, char **argv, int first, int is_check);
int cmd_gguf_split(int argc, char **argv, int first);
int cmd_gguf_shard(int argc, char **argv, int first);
int cmd_gguf_merge(int argc, char **argv, int first);
int cmd_gguf_reshard(int argc, char **argv, int first);
/** gguf verify: built when jansson is (CLEAVE_HAVE_GGUF_VERIFY). */
int cmd_gguf_verify(int argc, char **argv, int first);

#endif /* CLEAVE_GGUF_CLI_H */
