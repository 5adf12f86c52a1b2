/*
 * The ranks of a tensor-parallel checkpoint (merge, reshard) loaded as one model whose file R is
 * rank R (ckpt_model.h), whatever the format: the rank files in rank order, or one folder
 * holding rank<R>SUFFIX for R from 0 (as the shard commands write them). The format reads each
 * file's header; no data is read.
 */
#ifndef CLEAVE_CKPT_RANKS_H
#define CLEAVE_CKPT_RANKS_H

#include <stddef.h>

#include "ckpt_model.h"
#include "error.h"

/** The most ranks a model of ranks may have (and the most a shard or reshard writes). */
#define CKPT_MAX_RANKS 4096

/** Reads rank `r` (ranks are read in order from 0) from `path` into `out`, as the format's
 * check reads a file. Returns 0 or an exit status with the message in `err`. */
typedef int (*ckpt_read_rank)(void *ctx, size_t r, const char *path, ckpt_file *out,
                              tool_error *err);

/** How to find and read the ranks of one format. */
typedef struct ckpt_rank_source {
  /** The suffix of a rank file in a folder (".safetensors": rank0.safetensors, ...). */
  const char *suffix;
  /** The command that writes such folders, for messages ("st shard"). */
  const char *writer;
  ckpt_read_rank read;
  void *ctx;
} ckpt_rank_source;

/**
 * Loads the `count` (>= 1) rank paths into `m` (zeroed here): with one path that is a folder,
 * its files named rank<R>SUFFIX (R in decimal without leading zeros; other files are ignored),
 * which must be rank0 to rank<N-1> without a gap, and m->dir is the folder with a trailing '/';
 * otherwise each path is the file of the next rank and m->dir is "". Every tensor's `file` is
 * its rank; the model is sorted (ckpt_model_sort). Returns 0, or an exit status with the
 * message in `err`: CLI_EXIT_NOINPUT (a rank or the folder cannot be opened, the folder holds
 * no rank file), CLI_EXIT_DATA (a rank missing from the folder, more than CKPT_MAX_RANKS, a file
 * the format refuses), CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE. Free `m` with ckpt_model_free in
 * either case.
 */
int ckpt_ranks_load(char *const *paths, size_t count, const ckpt_rank_source *source, ckpt_model *m,
                    tool_error *err);

#endif /* CLEAVE_CKPT_RANKS_H */
