/*
 * Static shape inference for the CLI: one call to the library's cleave_infer that also fetches
 * the per-output lengths, and the output shapes derived from them.
 */
#ifndef CLEAVE_CLI_SPLIT_INFER_H
#define CLEAVE_CLI_SPLIT_INFER_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"

/** The inferred outputs. `lengths` (malloc'd) has info.num_outputs entries. */
typedef struct split_result {
  cleave_split_info info;
  int64_t *lengths;
} split_result;

/**
 * Infers `op` on `type` and shape[0..rank). Returns 0, or prints the library's message and returns
 * the exit status for its status (see cli_exit_for_status). Release with split_result_free.
 */
int split_infer(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                split_result *result);

/** Releases the lengths. */
void split_result_free(split_result *result);

/** Writes output i's shape (result->info.output_rank dims) to `dims`. */
void split_output_dims(const split_result *result, const int64_t *shape, size_t rank, size_t i,
                       int64_t *dims);

#endif /* CLEAVE_CLI_SPLIT_INFER_H */
