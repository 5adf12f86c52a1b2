/*
 * The checkpoint commands, each written once over the formats' drivers (ckpt_driver.h): ls,
 * check, split, shard, merge, reshard and verify. `cleave st VERB` and `cleave gguf VERB` pin the
 * format; `cleave VERB` (but split, which is the .npy operator there) finds it from the model.
 *
 * The entry points are the first two functions; the rest is what the verbs' files (inspect.c,
 * split.c, ranks.c, verify.c) share with command.c: the invocation, the option groups every
 * writing verb takes, loading, and running a plan.
 */
#ifndef CLEAVE_CKPT_COMMANDS_H
#define CLEAVE_CKPT_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "ckpt_driver.h"
#include "ckpt_plan.h"
#include "ckpt_preset.h"
#include "ckpt_rank_options.h"
#include "ckpt_report.h"
#include "ckpt_rules.h"

/** `cleave st|gguf VERB ...`: argv[first] is the verb; `driver` pins the format. Returns the
 * process exit status (docs/cli.md, "Errors and exit status"). */
int ckpt_family_command(const ckpt_driver *driver, int argc, char **argv, int first);

/** `cleave VERB ...` (ls, check, shard, merge, reshard, verify): argv[first - 1] is the verb;
 * the format is the model's (the first driver whose probe takes it). Returns an exit status. */
int ckpt_detected_command(int argc, char **argv, int first);

/* ---- what the verbs share (internal to tools/checkpoint/commands) ------------------------- */

/** The verbs, in the order of the help. */
typedef enum ckpt_verb {
  CKPT_LS,
  CKPT_CHECK,
  CKPT_SPLIT,
  CKPT_SHARD,
  CKPT_MERGE,
  CKPT_RESHARD,
  CKPT_VERIFY,
  /** Only without a format's word: `cleave convert HF_FOLDER -o OUT.gguf`. */
  CKPT_CONVERT,
  CKPT_VERB_COUNT
} ckpt_verb;

/** --preset and the options that go with it (safetensors models: Hugging Face's names). */
typedef struct ckpt_preset_args {
  /** --preset NAME|auto (NULL: none), --replicate-kv, --qkv-layout (a CKPT_QKV_*; -1: not
   * given). */
  const char *name;
  int replicate_kv;
  int qkv_layout;
  /** --override-preset: a named preset's rules though config.json names another family. */
  int override;
} ckpt_preset_args;

/** A rank rule as the command line (or a ranks' record) gave it, for the record the outputs carry:
 * its CKPT_RANK_* kind and its value. */
typedef struct ckpt_rule_given {
  int kind;
  const char *value;
} ckpt_rule_given;

/** --rank R: write only rank R of the run (`given` 0: every rank). */
typedef struct ckpt_one_rank {
  int given;
  int64_t rank;
} ckpt_one_rank;

/** Every option of every verb lands here (each verb's table sets its own). Strings point into
 * argv. */
typedef struct ckpt_args {
  /** -o, -f, --sync, --dry-run, --json, -q, --no-progress, --no-sidecar (the writing verbs);
   * --json and -q (ls, check, verify). */
  ckpt_run_options run;
  /** --max-shard-size in bytes, --max-tensors (0: not given). */
  uint64_t max_shard_size, max_tensors;
  /** shard, merge, reshard: -n, --axis, --view, --replicate, --unmatched. */
  ckpt_rank_rules ranks;
  /** shard, reshard: --rank R, the one rank of the run this run writes. */
  ckpt_one_rank one_rank;
  /** The rank rules given (--axis, --view, --replicate, --unmatched), in order; growable. */
  ckpt_rule_given *given_rules;
  size_t given_rule_count, given_rule_cap;
  /** split: --tensor ... --into and --rules. */
  ckpt_rule_set rules;
  ckpt_preset_args preset;
  /** --quant-block B0,B1. */
  ckpt_quant quant;
  /** ls: --glob, --metadata; check: --strict. */
  const char *glob;
  int metadata, strict;
  /** --outtype: the index of its word in CKPT_OUTTYPES, -1 when not given. */
  int outtype;
  /** verify: the --against inputs (and the positionals after --against). */
  const char **against;
  size_t against_count;
  /** convert: --outtype, an index into its words (0: auto; convert's --outtype also takes
   * auto and q8_0, as llama.cpp's converter does). */
  int convert_outtype;
} ckpt_args;

/** What the outputs of a run record of where they come from (ckpt_record.h). */
typedef enum ckpt_lineage_kind {
  /** Nothing: split, merge (a merged model is the source again, byte for byte). */
  CKPT_LINEAGE_NONE = 0,
  /** Each output is a rank: its rank, the count, the run, the source, the rules (shard,
   * reshard). */
  CKPT_LINEAGE_RANKS,
} ckpt_lineage_kind;

typedef struct ckpt_lineage {
  ckpt_lineage_kind what;
  /** The source's identity, 16 hex digits. */
  char source[17];
  /** The rules, as command-line options (malloc'd; CKPT_LINEAGE_RANKS). */
  char *rules;
  /** The run's identity (cleave.run), 16 hex digits, once the records are made. */
  char run[17];
} ckpt_lineage;

/** One run of a verb. */
typedef struct ckpt_command {
  ckpt_verb verb;
  /** The format: pinned by the command's word, or found from the model (NULL until then). */
  const ckpt_driver *driver;
  /** The command as messages, the JSON report and the manifest name it: "st shard" (once the
   * format is known, also when the user typed `cleave shard`), else "shard". */
  char name[32];
  int argc;
  char **argv;
  int first;
  ckpt_args args;
  cli_args parsed;
  /** What the outputs record, and the words of a ranks' record the rules were read from. */
  ckpt_lineage lineage;
  char *record_text;
  char **record_words;
  /** The manifest's name of a run of one rank (CKPT_MANIFEST_RANK_FORMAT), and the other ranks'
   * files and manifests (NULL-terminated, malloc'd), which other runs write beside it. */
  char manifest_name[64];
  char **other_ranks;
} ckpt_command;

/** How a verb runs: after its options were parsed into c->args (0 or an exit status). */
typedef int (*ckpt_verb_run)(ckpt_command *c);

/** The option groups of the writing verbs (their targets are ckpt_args fields: include them with
 * CLI_INCLUDE_SAME): -o OUTDIR (merge has its own), the other output options, --max-shard-size
 * (and GGUF's --max-tensors), --quant-block. */
extern const cli_opt ckpt_outdir_option[];
extern const cli_opt ckpt_write_options[];
/** The run's flags every writing verb takes, which ckpt_write_options includes (--dry-run, -f,
 * --sync, --json, -q, --no-progress): convert takes them without the verbs' --outtype. */
extern const cli_opt ckpt_run_flags[];
extern const cli_opt ckpt_size_option[];
extern const cli_opt ckpt_quant_option[];
/** --preset, --replicate-kv and --qkv-layout of shard, merge and reshard; --preset and
 * --qkv-layout of split (model_options.c). */
extern const cli_opt ckpt_preset_options[];
extern const cli_opt ckpt_split_preset_options[];

/** The end of the writing verbs' help: the copy buffers and the write thread. */
#define CKPT_WRITE_NOTES                                                                           \
  "CLEAVE_CHUNK_BYTES (default 1048576) sets the size of the two copy buffers. With two\n"         \
  "CPUs or more the outputs are written by a second thread while the first reads, gathers\n"       \
  "and checksums; CLEAVE_WRITE_THREAD=0 keeps all the work on one.\n"

/** The drivers, in the order their probes are tried (NULL-terminated). */
extern const ckpt_driver *const ckpt_drivers[];

/** Every format's bit. */
#define CKPT_ALL_FORMATS (CKPT_FORMAT_ST | CKPT_FORMAT_GGUF)

/** The verb's word: "shard". */
const char *ckpt_verb_word(ckpt_verb verb);

/** The formats the command line pins or that the models may be (the tags of its options). */
unsigned ckpt_command_tags(const ckpt_command *c);

/** Sets c->name from the verb and the format once known ("st shard", else "shard"). */
void ckpt_command_set_name(ckpt_command *c);

/** Finds the format of `path` when no word pinned it, sets c->driver and c->name, and refuses an
 * option of another format that the command line gave. Returns 0, or an exit status after
 * printing the error: CLI_EXIT_NOINPUT (nothing at `path`), CLI_EXIT_DATA (no driver takes it),
 * CLI_EXIT_USAGE (an option of another format). */
int ckpt_command_find_format(ckpt_command *c, const char *path);

/** Prints `err` (its control characters made inert) and returns its status. */
int ckpt_command_report(tool_error *err);

/** --outtype's words, in the order of their library types (ckpt_command_cast). */
#define CKPT_OUTTYPES "f32|f16|bf16"

/** The conversion --outtype asks of plans on model `m` (`to` NULL without --outtype): the
 * format's dtype of the type (ckpt_cast.h). */
ckpt_cast ckpt_command_cast(const ckpt_command *c, const ckpt_model *m);

/** The writing verbs' plan, finished by the format and run (ckpt_run_plan: --dry-run, the
 * all-or-nothing write, the report). `finish` gives the format's sizing. Returns an exit
 * status. */
int ckpt_command_write(ckpt_command *c, const ckpt_model *m, ckpt_plan *plan,
                       const ckpt_finish_options *finish);

/** -- the model options of safetensors models (commands/model_options.c) -- */

/** --preset's, --qkv-layout's and --replicate-kv's checks against each other (64). */
int ckpt_preset_args_check(const ckpt_command *c, int split);

/** The split rules of --preset for the model at `model` (its config.json), or none without
 * --preset. Returns 0 or an exit status (reported). */
int ckpt_preset_split_rules(const ckpt_command *c, const char *model, ckpt_preset_split *ps);

/** The preset's rules appended to the command line's rank rules (`*preset`, to free with
 * ckpt_preset_free, holds them; `*command_axes` the command line's --axis count). Returns 0 or
 * an exit status (reported). */
int ckpt_preset_rank_rules(ckpt_command *c, const char *model, ckpt_preset *preset,
                           size_t *command_axes);

/** Gives model `m` (loaded from `model`) the block size of its FP8 scales: --quant-block's, or
 * config.json's when the model has scales. Returns 0 or an exit status (reported). */
int ckpt_model_quant(const ckpt_command *c, ckpt_model *m, const char *model);

/** The verbs (their files). */
int ckpt_run_inspect(ckpt_command *c);
int ckpt_run_split(ckpt_command *c);
int ckpt_run_ranks(ckpt_command *c);
int ckpt_run_verify(ckpt_command *c);
int ckpt_run_convert(ckpt_command *c);

/** convert's way back (convert_to_hf.c): the GGUF file `path` into the Hugging Face folder
 * -o names. Returns an exit status (reported). */
int ckpt_convert_to_hf(ckpt_command *c, const char *path);

/** The spans of convert's tensor `t`: the whole tensor, or its rows moved by llama's Q/K
 * permutation for `heads` heads (heads 0: none; `inverse` 1: GGUF to Hugging Face), in input
 * bytes (convert_rows.c). Returns 0 or an exit status with the message in `err` (rows not whole
 * heads: CLI_EXIT_DATA). */
int ckpt_convert_row_spans(const ckpt_tensor *t, int64_t heads, int inverse, ckpt_span **spans,
                           size_t *count, tool_error *err);

/** Each verb's option table and help text (cli_spec without name, siblings or tags). */
extern const cli_spec ckpt_inspect_specs[2];
extern const cli_spec ckpt_split_spec;
extern const cli_spec ckpt_rank_specs[3];
extern const cli_spec ckpt_verify_spec;
extern const cli_spec ckpt_convert_spec;

#endif /* CLEAVE_CKPT_COMMANDS_H */
