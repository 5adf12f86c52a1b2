/*
 * The `cleave st` commands (cmd_st*.c): the entry point the CLI calls, the option identifiers
 * and tables they share, the helpers of the writing commands (cmd_st_write.c: reports and
 * writing a plan) and the rules of the rank commands (cmd_st_rules.c).
 */
#ifndef CLEAVE_ST_CLI_H
#define CLEAVE_ST_CLI_H

#include <stdint.h>

#include "args.h"
#include "ckpt_plan.h"
#include "ckpt_planner.h"
#include "ckpt_preset.h"
#include "ckpt_rank_options.h"
#include "error.h"
#include "st_model.h"

/** cleave st ls|check|split|shard|merge|reshard|verify ...: `argv[first]` is the subcommand.
 * Returns the process exit status (docs/cli.md, "Errors and exit status"). */
int cmd_st(int argc, char **argv, int first);

enum {
  OPT_HELP = 1,
  OPT_JSON,
  OPT_QUIET,
  OPT_GLOB,
  OPT_OUTPUT,
  OPT_FORCE,
  OPT_SYNC,
  OPT_DRY_RUN,
  OPT_NO_PROGRESS,
  OPT_TENSOR,
  OPT_VIEW,
  OPT_AXIS,
  OPT_NUM,
  OPT_LENGTHS,
  OPT_INTO,
  OPT_RULES,
  OPT_RANKS,
  OPT_REPLICATE,
  OPT_UNMATCHED,
  OPT_MAX_SHARD_SIZE,
  OPT_STRICT,
  OPT_NO_SIDECAR,
  OPT_QUANT_BLOCK,
  OPT_PRESET,
  OPT_REPLICATE_KV,
  OPT_QKV_LAYOUT,
};

/** The options of st ls / st check, and of the writing commands (and rules files). */
extern const cli_option st_common_options[];
extern const size_t st_common_option_count;
extern const cli_option st_write_options[];
extern const size_t st_write_option_count;

/** The options every writing command takes. */
typedef struct write_opts {
  const char *model, *outdir;
  int json, quiet, force, sync, dry_run, progress;
  /** The command line, for the manifest. */
  int argc;
  char **argv;
  /** --no-sidecar: the model folder's other files are not copied. */
  int no_sidecar;
} write_opts;

/** Prints the error of a reader, planner or rule (its control characters made inert) and
 * returns its status. */
int st_report(tool_error *err);

/** Loads MODEL, printing the error; returns 0 or an exit status. Free `m` in either case. */
int st_load(const char *path, st_model *m);

/** Applies -o, -f, --sync, --dry-run, --json, -q, --no-progress, --no-sidecar; returns 1 if `id`
 * was one. */
int st_parse_write_common(int id, const char *value, write_opts *o);

/** Runs the plan through ckpt_run_plan (ckpt_report.h): prints it (--dry-run), or writes it
 * all-or-nothing into OUTDIR and reports what it wrote, then warns about the safetensors files of
 * OUTDIR it did not write (an earlier run's). `cmd` ("st split") names the command in the JSON
 * report. Returns an exit status. */
int st_execute(const ckpt_plan *plan, const st_model *m, const write_opts *o, const char *cmd);

/** The --axis, --view, --replicate and --unmatched rules of shard, merge and reshard, as the
 * command line gives them (base.spec.ranks is the caller's), then --preset's
 * (st_rank_rules_preset).
 * Free with st_rank_rules_free. */
typedef struct st_rank_rules {
  /** The rules as every format's rank commands take them (ckpt_rank_options.h). */
  ckpt_rank_rules base;
  /** --preset NAME|auto (NULL: none), --replicate-kv and --qkv-layout (has_qkv_layout: given). */
  const char *preset_name;
  int replicate_kv;
  int has_qkv_layout;
  ckpt_qkv_layout qkv_layout;
  /** The preset's rules, once appended to spec (its --axis rules after the command line's
   * `command_axes`). */
  ckpt_preset preset;
  size_t command_axes;
} st_rank_rules;

/** Makes room for the rules of a command line of `argc` words. Returns 0 or CLI_EXIT_SOFTWARE
 * (reported). */
int st_rank_rules_init(st_rank_rules *r, int argc);

/** Applies option `id` with `value` when it is one of the rules' options and returns 1, with
 * `*rc` 0 or CLI_EXIT_USAGE (reported, naming `cmd`); returns 0 for another option. */
int st_rank_rule_option(st_rank_rules *r, int id, const char *value, const char *cmd, int *rc);

/** Checks the options of the preset against each other: --replicate-kv or --qkv-layout without
 * --preset, --qkv-layout with a named preset that has no fused QKV. Returns 0 or CLI_EXIT_USAGE
 * (reported, naming `cmd`). */
int st_rank_rules_check(const st_rank_rules *r, const char *cmd);

/**
 * With --preset: reads the config.json of MODEL's folder (MODEL itself when it is a folder, else
 * the folder that holds it; for merge and reshard the first RANK), makes the preset
 * (ckpt_preset_make) and appends its rules to the command line's. Without --preset: nothing.
 * Returns 0 or the status of the error it reported (naming `cmd`): CLI_EXIT_NOINPUT (no
 * config.json), CLI_EXIT_DATA, CLI_EXIT_SOFTWARE.
 */
int st_rank_rules_preset(st_rank_rules *r, const char *model, const char *cmd);

/** Parses --qkv-layout concat|interleaved into `layout`. Returns 0 or CLI_EXIT_USAGE (reported,
 * naming `cmd`). */
int st_parse_qkv_layout(const char *value, const char *cmd, ckpt_qkv_layout *layout);

/** Checks --qkv-layout against --preset NAME: a named preset without a fused QKV, or no preset,
 * is CLI_EXIT_USAGE (reported, naming `cmd`); else 0. */
int st_check_qkv_layout(const char *preset_name, int has_layout, const char *cmd);

/** Reads the config.json of MODEL's folder (as st_rank_rules_preset finds it) into `config`;
 * `*path` is its path (malloc'd, freed by the caller, also on failure). Returns 0 or the status
 * of the error in `err` (CLI_EXIT_NOINPUT naming --preset `preset_name`, CLI_EXIT_DATA,
 * CLI_EXIT_SOFTWARE). */
int st_preset_config(const char *model, const char *preset_name, ckpt_config *config, char **path,
                     tool_error *err);

/** Releases the rules (the globs they copied) and zeroes them. */
void st_rank_rules_free(st_rank_rules *r);

/** Parses --max-shard-size SIZE (ckpt_parse_size). Returns 0 or CLI_EXIT_USAGE (reported). */
int st_parse_max_shard_size(const char *value, const char *cmd, uint64_t *bytes);

/** Parses --quant-block B0,B1 (two sizes from 1 to 2^31) into `q`. Returns 0 or CLI_EXIT_USAGE
 * (reported, naming `cmd`). */
int st_parse_quant_block(const char *value, const char *cmd, ckpt_quant *q);

/** Gives the loaded model `m` the block size of its scales (ckpt_companion.h): `given`
 * (--quant-block) when it has one, else, when the model has scales, the
 * quantization_config.weight_block_size of the config.json of `model` (MODEL/config.json for a
 * folder, else the file beside MODEL; none there: not known). Returns 0, or the status of reading
 * config.json (ckpt_config_read: 65 naming the file and the key, 74), reported with `cmd`. */
int st_model_quant(st_model *m, const ckpt_quant *given, const char *model, const char *cmd);

/** The subcommands. */
int cmd_st_inspect(int argc, char **argv, int first, int is_check);
int cmd_st_split(int argc, char **argv, int first);
int cmd_st_shard(int argc, char **argv, int first);
int cmd_st_merge(int argc, char **argv, int first, int reshard);
int cmd_st_verify(int argc, char **argv, int first);

#endif /* CLEAVE_ST_CLI_H */
