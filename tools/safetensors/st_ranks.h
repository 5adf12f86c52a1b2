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

/**
 * Loads the `count` (>= 1) rank paths as ckpt_ranks_load does (tools/checkpoint/ckpt_ranks.h:
 * the rank files in order, or one folder of rank<R>.safetensors), each read and checked as st
 * check reads it; a folder's other regular files are the model's sidecars. Returns as
 * ckpt_ranks_load. Free `m` with st_model_free in either case.
 */
int st_ranks_load(char *const *paths, size_t count, st_model *m, tool_error *err);

#endif /* CLEAVE_ST_RANKS_H */
