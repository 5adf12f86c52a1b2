/*
 * The options of the operator commands (split, variadic-split, split-to-sequence, onnx-split) and
 * of `cleave infer OP`: parsing, the command-line checks of docs/cli.md (status 64), and the
 * translation into a cleave_op for the library, which owns every rule of docs/operators.md.
 */
#ifndef CLEAVE_CLI_OP_OPTIONS_H
#define CLEAVE_CLI_OP_OPTIONS_H

#include <stdint.h>

#include "cleave.h"

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

  int has_dtype;
  const char *dtype_text;
  cleave_type dtype;

  const char *input;
  const char *prefix;
  int force;
  int json;
  int quiet;
  int no_progress;
  int sync;
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
