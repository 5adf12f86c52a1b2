/*
 * Loading a GGUF model into the checkpoint layer's ckpt_model: one .gguf file, or a split set
 * as gguf-split writes it (NAME-00001-of-0000N.gguf ... NAME-0000N-of-0000N.gguf, each with
 * split.no, split.count and split.tensors.count; the model's metadata in the first). Loading
 * reads every header (never the data), checks the set, and removes the split.* keys from the
 * files' metadata: the writer (gguf_outputs.h) puts them back where the outputs form a set.
 */
#ifndef CLEAVE_GGUF_MODEL_H
#define CLEAVE_GGUF_MODEL_H

#include <stddef.h>

#include "ckpt_model.h"
#include "error.h"
#include "gguf_read.h"

/** The keys of a split set (llama.cpp's LLM_KV_SPLIT_*), and their types. */
#define GGUF_SPLIT_NO "split.no"
#define GGUF_SPLIT_COUNT "split.count"
#define GGUF_SPLIT_TENSORS "split.tensors.count"

/** A GGUF model. */
typedef struct gguf_model {
  ckpt_model ckpt;
  /** What each file has beyond ckpt_file (info[i] for ckpt.files[i]). */
  gguf_info *info;
  /** 1 when the model was loaded from a split set (of one file or more). */
  int is_set;
  /** The name outputs derive theirs from: "model" for model.gguf and for
   * model-00001-of-00003.gguf (malloc'd). */
  char *base;
} gguf_model;

/**
 * Loads MODEL `path`: a .gguf file, or the first file of a split set (the others are found by
 * their names). Returns 0, or an exit status with the message in `err`: CLI_EXIT_NOINPUT (the
 * file cannot be opened), CLI_EXIT_DATA (a file breaks a rule, a part of the set is missing or
 * does not match), CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE. Free `m` with gguf_model_free in either
 * case.
 */
int gguf_model_load(const char *path, gguf_model *m, tool_error *err);

/**
 * Loads the split set whose files are `paths[0..count)` (in any order; each must carry the split
 * keys, and together they must be the whole set). One path is gguf_model_load of it, which must
 * be a split set. Returns as gguf_model_load.
 */
int gguf_model_load_parts(char *const *paths, size_t count, gguf_model *m, tool_error *err);

/** Releases the model and zeroes it (safe on a zeroed or partly loaded one). */
void gguf_model_free(gguf_model *m);

/** Removes metadata entry `i` of file `file` of `m` (freeing it), with the place of every other
 * entry in the header kept. */
void gguf_forget_meta(gguf_model *m, size_t file, size_t i);

/** The entry `key` of `meta[0..count)` (in any order), or NULL. */
const ckpt_meta *gguf_meta_lookup(const ckpt_meta *meta, size_t count, const char *key);

/** The ggml file name of part `no` (from 0) of a set of `count` files on `base`:
 * "BASE-00001-of-00003.gguf", as llama.cpp's llama_split_path makes it. */
void gguf_split_name(const char *base, size_t no, size_t count, char *buf, size_t size);

#endif /* CLEAVE_GGUF_MODEL_H */
