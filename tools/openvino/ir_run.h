/*
 * ir-run's graph interpreter: executes an IR graph made of Parameter, Const, Split, VariadicSplit,
 * Concat and Result layers (chained to any depth) with the library, every tensor held in memory.
 * Parameters take their data from .npy files (ir_parameter.c), Consts from the .bin; the Results
 * are handed back for the command to write (cmd_ir_run.c).
 */
#ifndef CLEAVE_IR_RUN_H
#define CLEAVE_IR_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "error.h"
#include "ir_const.h"
#include "ir_model.h"
#include "npy.h"

/** One tensor of the graph: the value of one output port. */
typedef struct ir_tensor {
  int set;
  cleave_type type;
  size_t rank; /* never CLEAVE_RANK_DYNAMIC: a computed tensor has a shape */
  int64_t shape[IR_MAX_RANK];
  const void *data;           /* strings: cleave_string handles */
  int64_t bytes;              /* of data (strings: of the handles) */
  char descr[NPY_DESCR_SIZE]; /* byte-sized types: the .npy descr to write; "" for none */
} ir_tensor;

/** One --input NAME=FILE: the Parameter named NAME reads the .npy file at `path`, opened by the
 * command (`fd`, `size`). */
typedef struct ir_input {
  const char *name;
  const char *path;
  int fd;
  uint64_t size;
  int used; /* set when a Parameter took it */
} ir_input;

/** A run: the tensors of every layer's ports and the buffers that hold them. */
typedef struct ir_run {
  const ir_model *model;
  const ir_bin *bin;
  ir_tensor **tensors; /* per layer, per port index */
  void **owned;        /* every buffer to free */
  size_t num_owned, cap_owned;
  /** After ir_run_graph: the input of each Result layer, in document order. */
  const ir_tensor **results;
  size_t num_results;
} ir_run;

/** Refuses (CLI_EXIT_DATA, naming the file, line and layer) a model with a layer type ir-run does
 * not run; returns 0 otherwise. */
int ir_run_check_layers(const ir_model *model, tool_error *err);

/**
 * Runs `model` (weights in `bin`) on `inputs`: every Parameter first (each takes the input of its
 * name; a missing or unused input is CLI_EXIT_USAGE), then Consts and splits in topological
 * order; collects the Results' tensors, each checked to have a .npy form. Returns 0, or fills
 * `err` and returns its exit status. Release `run` with ir_run_free in either case.
 */
int ir_run_graph(ir_run *run, const ir_model *model, const ir_bin *bin, ir_input *inputs,
                 size_t num_inputs, tool_error *err);

/** Releases every buffer of the run. Safe on a zeroed run. */
void ir_run_free(ir_run *run);

#endif /* CLEAVE_IR_RUN_H */
