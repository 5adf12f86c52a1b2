/*
 * The table of operators: every operator command on .npy files (split, variadic-split,
 * split-to-sequence, onnx-split, concat, concat-from-sequence) as one entry, with the library
 * operator it runs, what its family computes on files (op_run.h), and its two commands, on files
 * and under `cleave infer`, as the parser and --help see them: its own options, the shared
 * groups it includes (op_options.h) and its help text.
 */
#ifndef CLEAVE_OPS_OP_COMMANDS_H
#define CLEAVE_OPS_OP_COMMANDS_H

#include "args.h"
#include "cleave.h"

struct op_family;

/** An operator command. */
typedef struct op_command {
  const char *name; /* "split", ..., "concat-from-sequence" */
  /* 0: a split (one input; output i to PREFIX_i.npy); 1: a join (inputs in order; one output,
   * the file -o names). */
  int join;
  cleave_op_kind kind;            /* a split's operator */
  cleave_concat_kind join_kind;   /* a join's: CLEAVE_OP_CONCAT (ONNX Concat with --opset) or
                                   * CLEAVE_OP_CONCAT_FROM_SEQUENCE */
  const struct op_family *family; /* what it computes on files */
  const cli_spec *spec;           /* `cleave NAME` */
  const cli_spec *infer_spec;     /* `cleave infer NAME` */
} op_command;

/** The operator command called `name`, or NULL. */
const op_command *op_command_find(const char *name);

/** `cleave infer` itself: its help (the operators are its subcommands). */
extern const cli_spec op_infer_spec;

#endif /* CLEAVE_OPS_OP_COMMANDS_H */
