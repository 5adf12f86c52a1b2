/*
 * The input files of the operator commands (a split's one, a join's several): opened and checked
 * in docs/cli.md's status order (every --shape of packed data first, 64; then every file opened,
 * 66; then every header, type and data size, 65), each described to the library as a
 * cleave_tensor, with what a join needs to know of its layout (byte order, memory order). Library
 * messages about a join's inputs ("inputs[1].shape[0] is 3 ...") get the names of the files they
 * mean.
 */
#ifndef CLEAVE_OPS_OP_INPUTS_H
#define CLEAVE_OPS_OP_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "npy.h"
#include "op_options.h"
#include "packed_input.h"

/** One input file. */
typedef struct op_input {
  const char *path;
  int fd; /* -1 when not open */
  uint64_t file_size;
  npy_header h;
  npy_dtype dt;         /* byte-sized data: the file's type */
  packed_input packed;  /* packed data: the logical shape (--shape) */
  const int64_t *shape; /* the logical shape: the header's, or --shape */
  size_t rank;
  uint64_t data_bytes;
  char order;         /* the data's byte order: '<' or '>', or 0 when it has none (1-byte units,
                       * byte strings, raw void data) */
  int layout_matters; /* 1 when C and Fortran order put its elements in different places */
} op_input;

/** Every input, and their descriptions for the library. */
typedef struct op_inputs {
  op_input *items;
  size_t count;
  int packed;             /* a packed --dtype: the files hold packed bytes */
  cleave_tensor *tensors; /* type, rank and shape of each (data NULL) */
} op_inputs;

/**
 * Parses the --shape options of packed data (64), opens every input (66), reads and checks every
 * header, type and data size (65), in that order; the soft limit of open files is raised as far
 * as the hard limit allows when the inputs need it. Prints the first fault and returns its status,
 * or returns 0. Release with op_inputs_close in either case.
 */
int op_inputs_open(op_inputs *in, const op_options *o);

/** Closes the files and releases the arrays. Safe on a zeroed struct. */
void op_inputs_close(op_inputs *in);

/**
 * Reports a failed library call about the inputs: its message, followed by the files that the
 * message's "inputs[i]" mean ("(inputs[0] is 'a.npy', inputs[1] is 'b.npy')"). Returns the exit
 * status for its status (cli_exit_for_status).
 */
int op_inputs_error(const op_inputs *in, const cleave_error *err);

/** The byte-swap unit that puts input i's data in input 0's byte order: 0 when they agree. */
size_t op_input_swap(const op_inputs *in, size_t i);

#endif /* CLEAVE_OPS_OP_INPUTS_H */
