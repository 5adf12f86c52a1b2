/*
 * Loading the ranks of a tensor-parallel GGUF checkpoint (gguf merge with rules, gguf reshard)
 * as one model whose file R is rank R: the rank files in rank order, or one folder holding
 * rank<R>.gguf as gguf shard writes them (tools/checkpoint/ckpt_ranks.h). Each rank is one whole
 * GGUF file read by the strict reader; no data is read.
 */
#ifndef CLEAVE_GGUF_RANKS_H
#define CLEAVE_GGUF_RANKS_H

#include <stddef.h>

#include "error.h"
#include "gguf_model.h"

/**
 * Loads the `count` (>= 1) rank paths into `m` (its base "model", not a set). A rank that is a
 * part of a split set (it has split.count) is refused: CLI_EXIT_DATA naming it. Returns as
 * ckpt_ranks_load. Free `m` with gguf_model_free in either case.
 */
int gguf_ranks_load(char *const *paths, size_t count, gguf_model *m, tool_error *err);

#endif /* CLEAVE_GGUF_RANKS_H */
