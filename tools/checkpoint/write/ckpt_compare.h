/*
 * Comparing the copies a plan must find equal (ckpt_plan.checks: a tensor no rule of merge or
 * reshard takes must be the same in every rank) before anything is written, so that a rank that
 * differs fails the run with nothing created. Chunk by chunk, in two buffers of
 * CLEAVE_CHUNK_BYTES, whatever the tensors' sizes.
 */
#ifndef CLEAVE_CKPT_COMPARE_H
#define CLEAVE_CKPT_COMPARE_H

#include "ckpt_model.h"
#include "ckpt_plan.h"

/**
 * Compares every check of `plan`, in order, reading the files of `model`. Returns 0 when each
 * copy equals its tensor; else prints the error and returns CLI_EXIT_DATA for the first copy
 * that differs (naming the tensor, the two ranks or files, and the first byte that differs),
 * CLI_EXIT_NOINPUT (an input cannot be opened), CLI_EXIT_IOERR (a read failed, an input shrank)
 * or CLI_EXIT_SOFTWARE.
 */
int ckpt_compare_copies(const ckpt_plan *plan, const ckpt_model *model);

#endif /* CLEAVE_CKPT_COMPARE_H */
