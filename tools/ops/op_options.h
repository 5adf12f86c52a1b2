/*
 * The options of the operator commands (split, variadic-split, split-to-sequence, onnx-split) and
 * of `cleave infer OP`: parsing, the command-line checks of docs/cli.md (status 64), and the
 * translation into a cleave_op for the library, which owns every rule of docs/operators.md. Also
 * the output options the joining commands (concat_options.h) share with them: op_output_flags.
 */
#ifndef CLEAVE_CLI_OP_OPTIONS_H
#define CLEAVE_CLI_OP_OPTIONS_H

#include <stdint.h>

#include "args.h"
#include "cleave.h"

/**
 * The options the splitting and the joining commands share: where the output goes and how, and
 * the --dtype of the data. Strings point into argv.
 */
typedef struct op_output_flags {
  const char *output; /* -o: a split's output prefix, a concat's output file */
  int force;          /* -f */
  int json;           /* --json */
  int quiet;          /* -q */
  int no_progress;    /* --no-progress */
  int sync;           /* --sync */
  int has_dtype;      /* --dtype was given: dtype_text and dtype are set */
  const char *dtype_text;
  cleave_type dtype; /* f32 unless --dtype */
} op_output_flags;

/** The option ids of op_output_flags; a command's own option ids start at OP_OUTPUT_ID_END. */
enum {
  OP_OUTPUT_ID_OUTPUT = 1,
  OP_OUTPUT_ID_FORCE,
  OP_OUTPUT_ID_JSON,
  OP_OUTPUT_ID_QUIET,
  OP_OUTPUT_ID_NO_PROGRESS,
  OP_OUTPUT_ID_SYNC,
  OP_OUTPUT_ID_DTYPE,
  OP_OUTPUT_ID_END
};

/** How many options op_output_accepted may append (the size of the room it needs). */
#define OP_OUTPUT_OPTION_COUNT 7

/** Sets `flags` to no option given (f32 data). */
void op_output_flags_init(op_output_flags *flags);

/**
 * Appends to `accepted` the shared options a command on files takes (all of them) or an `infer`
 * command takes (--json and --dtype), and returns how many it appended (at most
 * OP_OUTPUT_OPTION_COUNT).
 */
size_t op_output_accepted(int for_infer, cli_option *accepted);

/**
 * Stores the shared option `id` (an OP_OUTPUT_ID_*, labelled `label` in messages). `scope` names
 * the command in "given twice" messages; `output_noun` names what -o gives ("output prefix",
 * "output file name") in "is empty". Returns 0, or prints a usage error and returns
 * CLI_EXIT_USAGE.
 */
int op_output_take(op_output_flags *flags, int id, const char *value, const char *label,
                   const char *scope, const char *output_noun);

/** An operator command of the CLI. */
typedef struct op_command {
  const char *name; /* "split", "variadic-split", ... */
  cleave_op_kind kind;
  const char *operator_name; /* "OpenVINO Split-1", ... for messages */
} op_command;

/** Returns the operator command called `name`, or NULL. */
const op_command *op_command_find(const char *name);

/** Parsed options. Pointers refer to argv or to memory owned by the struct. */
typedef struct op_options {
  const op_command *command;
  int for_infer; /* 1 for `cleave infer OP` */
  int help;      /* --help was given: nothing else is checked */

  int has_axis;
  int axis_unknown; /* infer: "-a ?" */
  int64_t axis;
  int has_num;
  int64_t num;
  int has_lengths;
  int lengths_unknown; /* infer: "-l ?,?": lengths is NULL, length_count is set */
  int64_t *lengths;    /* malloc'd */
  int64_t length_count;
  int has_size;
  int size_unknown; /* infer: "-s ?" */
  int64_t size;
  int has_keepdims;
  int64_t keepdims;
  int has_opset;
  int64_t opset;

  op_output_flags flags; /* -o (the output prefix), -f, --json, -q, ..., --dtype */

  const char *input;
  const char *shape_text;
} op_options;

/**
 * Parses argv[first..argc) for `command` (as an operator command on a file, or for `infer` when
 * `for_infer` is set) and checks the command line as a whole: required options, exclusive options,
 * allowed sets (-k 0|1, --opset not below the operator's first version, type names known to the
 * library, S<n> and U<n>). Returns 0 or
 * prints a usage error and returns CLI_EXIT_USAGE. When --help is seen, returns 0 with `help` set.
 * Release with op_options_free.
 */
int op_options_parse(op_options *o, const op_command *command, int for_infer, int argc, char **argv,
                     int first);

/**
 * Parses a --dtype value (a cleave type name, S<n> or U<n>) into `*type`. Returns 0, or prints a
 * usage error (an unknown name, with what it means to NumPy when it is a NumPy code; a string
 * type without a width) and returns CLI_EXIT_USAGE.
 */
int op_parse_dtype(const char *text, cleave_type *type);

/** Releases what op_options_parse allocated. */
void op_options_free(op_options *o);

/** Returns the cleave_unknown flags of the values given as "?" (infer only). */
unsigned op_options_unknown(const op_options *o);

/**
 * Returns the cleave_op the options describe (values given as "?" are placeholders: see
 * op_options_unknown). It points into `o`, which must outlive it.
 */
cleave_op op_options_build(const op_options *o);

#endif /* CLEAVE_CLI_OP_OPTIONS_H */
