/*
 * The command line of the operator commands (split, variadic-split, split-to-sequence, onnx-split,
 * concat, concat-from-sequence), on files and under `cleave infer`: the values their options take
 * (integers that may be "?" under infer, lists, 0 or 1, type names), the option tables they share
 * (the output options of every command on files, the inference options of every `infer OP`), the
 * checks of the command line as a whole (docs/cli.md, status 64), and the library operator the
 * options describe; the library owns every rule of docs/operators.md. The table of the commands
 * themselves, with their own options and help, is op_commands.h.
 */
#ifndef CLEAVE_OPS_OP_OPTIONS_H
#define CLEAVE_OPS_OP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "cleave.h"

struct op_command;

/** An integer option: whether it was given, and its value or, under infer, "?". */
typedef struct op_int {
  int given;
  int unknown;    /* "?": the value is unknown (infer only) */
  int unknown_ok; /* set before parsing: "?" is accepted (infer) */
  int64_t value;
} op_int;

/** A comma-separated list option (-l): its values (malloc'd), or under infer "?" entries, whose
 * count is known. */
typedef struct op_list {
  int given;
  int unknown;
  int unknown_ok;
  int64_t *values; /* NULL when unknown */
  int64_t count;
} op_list;

/** Options given any number of times (--shape, the inputs): argv's strings, in order. */
typedef struct op_strings {
  const char **items; /* room for every argument */
  size_t count;
} op_strings;

/** The options every operator command on files takes (op_output_options), and those of infer
 * (op_infer_options). Strings point into argv. */
typedef struct op_output_flags {
  const char *output; /* -o: a split's output prefix, a join's output file */
  int force;          /* -f */
  int json;           /* --json */
  int quiet;          /* -q */
  int no_progress;    /* --no-progress */
  int sync;           /* --sync */
  int has_dtype;      /* --dtype was given: dtype_text and dtype are set */
  const char *dtype_text;
  cleave_type dtype; /* f32 unless --dtype */
  op_strings shapes; /* --shape: packed data's logical shapes (files), the shapes (infer) */
} op_output_flags;

/** Parsed options. */
typedef struct op_options {
  const struct op_command *command;
  int for_infer;     /* `cleave infer OP` */
  const char *scope; /* the command as typed, for the help messages point to: "infer split" */

  op_int axis;     /* -a */
  op_int num;      /* -n */
  op_list lengths; /* -l */
  op_int size;     /* -s */
  op_int keepdims; /* -k: 0 or 1 (default 1) */
  op_int opset;    /* --opset */
  op_int new_axis; /* --new-axis: 0 or 1 (default 0) */

  op_output_flags flags;
  op_strings inputs; /* the input files, in order (a split has one) */
} op_options;

/**
 * The option parsers the tables of op_commands.c name (cli_opt_call): an integer, or "?" when
 * the entry's `number` is OP_MAY_BE_UNKNOWN and the target's unknown_ok is set (op_int); 0 or 1
 * (op_int); a list (op_list); one more string (op_strings); a type name (op_output_flags.dtype).
 * Each prints a usage error naming the option and returns CLI_EXIT_USAGE, or returns 0.
 */
int op_take_int(void *target, const char *value, const cli_opt *opt, const char *place);
int op_take_bit(void *target, const char *value, const cli_opt *opt, const char *place);
int op_take_list(void *target, const char *value, const cli_opt *opt, const char *place);
int op_take_string(void *target, const char *value, const cli_opt *opt, const char *place);

/** `number` of an op_take_int option whose value may be "?" under infer (-a, -s). */
#define OP_MAY_BE_UNKNOWN 1

/** The output options of every operator command on files, a group included at the offset of
 * op_options.flags: -o, -f, --json, -q, --no-progress, --sync, --dtype, --shape. */
extern const cli_opt op_output_options[];

/** The options of every `cleave infer OP`, a group included at op_options.flags: --shape,
 * --dtype, --json. */
extern const cli_opt op_infer_options[];

/**
 * Parses a --dtype value (a cleave type name, S<n> or U<n>) into `*type`. Returns 0, or prints a
 * usage error (an unknown name, with what it means to NumPy when it is a NumPy code; a string
 * type without a width) and returns CLI_EXIT_USAGE.
 */
int op_parse_dtype(const char *text, cleave_type *type);

/**
 * Parses argv[first..argc) for `command`, on files or for `infer` when `for_infer` is set,
 * through its table (cli_parse), and checks the command line as a whole: required options,
 * exclusive options, allowed sets (--opset not below the operator's first version), the
 * arguments (one input file for a split, one or more for a join, none under infer), --shape
 * exactly when --dtype is packed (one per input for a join). Returns 0; CLI_HELP_SHOWN when
 * --help printed the help; or prints a usage error and returns CLI_EXIT_USAGE (CLI_EXIT_SOFTWARE
 * when out of memory). Release with op_options_free in every case.
 */
int op_options_parse(op_options *o, const struct op_command *command, int for_infer, int argc,
                     char **argv, int first);

/** Releases what op_options_parse allocated. */
void op_options_free(op_options *o);

/** A split's cleave_op (values given as "?" are placeholders: see op_options_unknown). It points
 * into `o`, which must outlive it. */
cleave_op op_options_split(const op_options *o);

/** A join's cleave_concat_op (an axis given as "?" is a placeholder). It points into `o`. */
cleave_concat_op op_options_join(const op_options *o);

/** The cleave_unknown flags of the values given as "?" (infer only). */
unsigned op_options_unknown(const op_options *o);

#endif /* CLEAVE_OPS_OP_OPTIONS_H */
