/*
 * The options of the joining commands (concat, concat-from-sequence) and of `cleave infer concat`
 * / `infer concat-from-sequence`: parsing, the command-line checks of docs/cli.md (status 64), and
 * the cleave_concat_op they describe (the library owns every rule of docs/operators.md
 * section 8).
 */
#ifndef CLEAVE_OPS_CONCAT_OPTIONS_H
#define CLEAVE_OPS_CONCAT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "op_options.h"

/** A joining command of the CLI. */
typedef struct concat_command {
  const char *name;        /* "concat", "concat-from-sequence" */
  cleave_concat_kind kind; /* CLEAVE_OP_CONCAT (and, with --opset, CLEAVE_OP_ONNX_CONCAT) or
                            * CLEAVE_OP_CONCAT_FROM_SEQUENCE */
} concat_command;

/** Returns the joining command called `name`, or NULL. */
const concat_command *concat_command_find(const char *name);

/** Parsed options. Strings point into argv; the arrays are owned by the struct. */
typedef struct concat_options {
  const concat_command *command;
  int for_infer; /* 1 for `cleave infer concat...` */
  int help;      /* --help was given: nothing else is checked */

  int has_axis;
  int axis_unknown; /* infer: "-a ?" */
  int64_t axis;
  int has_opset;
  int64_t opset;
  int64_t new_axis; /* concat-from-sequence: 0 or 1 */

  op_output_flags flags; /* -o (the output file), -f, --json, -q, ..., --dtype */

  const char **inputs; /* the input files, in order (malloc'd array) */
  size_t input_count;
  const char **shapes; /* the --shape texts, in order (malloc'd array) */
  size_t shape_count;
} concat_options;

/**
 * Parses argv[first..argc) for `command` (on files, or for `infer` when `for_infer` is set) and
 * checks the command line as a whole: -a required where the operator has no default axis
 * (OpenVINO Concat-1, ONNX Concat from version 4, ConcatFromSequence), --opset not below the
 * operator's first version, --new-axis 0 or 1, type names known to the library; on files -o and
 * at least one input, and --shape once per input exactly when --dtype is packed; for infer at
 * least one --shape and no file. Returns 0, or prints a usage error and returns CLI_EXIT_USAGE.
 * When --help is seen, returns 0 with `help` set. Release with concat_options_free.
 */
int concat_options_parse(concat_options *o, const concat_command *command, int for_infer, int argc,
                         char **argv, int first);

/** Releases what concat_options_parse allocated. */
void concat_options_free(concat_options *o);

/** Returns the cleave_concat_op the options describe (an axis given as "?" is a placeholder:
 * pass CLEAVE_UNKNOWN_AXIS when `axis_unknown`). It points into `o`, which must outlive it. */
cleave_concat_op concat_options_build(const concat_options *o);

/** The operator's name for messages: "OpenVINO Concat-1", "ONNX Concat", "ConcatFromSequence". */
const char *concat_options_operator(const concat_options *o);

#endif /* CLEAVE_OPS_CONCAT_OPTIONS_H */
