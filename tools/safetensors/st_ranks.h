/*
 * Loading the ranks of a tensor-parallel checkpoint (st merge, st reshard) as one model whose file
 * R is rank R (ckpt_model.h): the rank files in rank order, or one folder holding
 * rank<R>.safetensors for R from 0 (as st shard writes them). Each rank is one safetensors file,
 * read and checked as st check reads it; no data is read.
 */
#ifndef CLEAVE_ST_RANKS_H
#define CLEAVE_ST_RANKS_H

#include <stddef.h>

#include "error.h"
#include "st_model.h"

/** The most ranks a model of ranks may have. */
#define ST_MAX_RANKS 4096

/**
 * Loads the `count` (>= 1) rank paths: with one path that is a folder, its files named
 * rank<R>.safetensors (R in decimal without leading zeros; other files are ignored), which must be
 * rank0 to rank<N-1> without a gap; otherwise each path is the file of the next rank. Returns 0, or
 * an exit status with the message in `err`: CLI_EXIT_NOINPUT (a rank or the folder cannot be
 * opened, the folder holds no rank file), CLI_EXIT_DATA (a rank is missing from the folder, more
 * than ST_MAX_RANKS, a file breaks a rule of the format), CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE. Free
 * `m` with st_model_free in either case.
 */
int st_ranks_load(char *const *paths, size_t count, st_model *m, tool_error *err);

#endif /* CLEAVE_ST_RANKS_H */
