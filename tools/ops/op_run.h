/*
 * An operator command on files, after its command line: what its family (the splits, op_split.c;
 * the joins, op_join.c) computes from the opened inputs, and how it streams them into its
 * outputs. cmd_op.c runs the flow every operator command shares (inputs, plan, output set, the
 * stream with the .npy headers and the progress line, the report, the commit) through the family
 * of the command's entry in the table of operators (op_commands.h).
 */
#ifndef CLEAVE_OPS_OP_RUN_H
#define CLEAVE_OPS_OP_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "op_inputs.h"
#include "op_options.h"
#include "outputs.h"
#include "split_infer.h"
#include "stream.h"

/** What a command will write, from the library's inference on the inputs. */
typedef struct op_plan {
  size_t count;          /* outputs */
  size_t rank;           /* each output's logical rank */
  uint64_t total;        /* data bytes the stream moves (the progress line's total) */
  const char *descr;     /* the outputs' .npy descr */
  int fortran_order;     /* the outputs' memory order */
  int64_t *packed_bytes; /* packed data: each output's byte count, written as a 1-D uint8 array
                          * (malloc'd); NULL otherwise */

  /* A split's inference. */
  split_result split;

  /* A join's layout, in the output's memory order. */
  cleave_concat_info info;
  int64_t *out_dims; /* the output's logical shape (malloc'd) */
  int64_t *in_dims;  /* inputs x rank: each input's shape in the output's memory order */
  size_t axis;       /* the axis in the output's memory order */
} op_plan;

/** What a family of operator commands does on files; every function prints its failure and
 * returns its exit status, or returns 0. */
typedef struct op_family {
  /** The library's inference on the opened inputs: the outputs, or the rule they break (65). */
  int (*plan)(const op_options *o, const op_inputs *in, op_plan *p);
  /** Output i's logical shape (p->rank dims). */
  void (*dims)(const op_inputs *in, const op_plan *p, size_t i, int64_t *dims);
  /** The output set: PREFIX_i.npy, or the one file -o names. */
  int (*outputs)(const op_options *o, const op_inputs *in, const op_plan *p, out_set *set);
  /** The data of the inputs into the outputs of `sink` (created: the stream opens them and
   * writes their headers through it). */
  int (*stream)(const op_inputs *in, const op_plan *p, const stream_sink *sink);
} op_family;

/** split, variadic-split, split-to-sequence, onnx-split. */
extern const op_family op_split_family;
/** concat, concat-from-sequence. */
extern const op_family op_join_family;

#endif /* CLEAVE_OPS_OP_RUN_H */
