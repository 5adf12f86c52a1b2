/*
 * Loading a GGUF model into the checkpoint layer's ckpt_model: one .gguf file, or a split set
 * as gguf-split writes it (NAME-00001-of-0000N.gguf ... NAME-0000N-of-0000N.gguf, each with
 * split.no, split.count and split.tensors.count; the model's metadata in the first). Loading
 * reads every header (never the data), checks the set, and removes the split.* keys from the
 * files' metadata: the writer (gguf_outputs.h) puts them back where the outputs form a set.
 * A file whose split.count is 0 is a whole model, as llama.cpp's loader reads it (gguf-split
 * --merge writes its output so, the first part's split.no and split.tensors.count kept): its
 * split keys are set aside as a set's are.
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

/** A file's place in a split set, as its split keys say. */
typedef struct gguf_split {
  /** 1 when the file has the split keys (a file has all three or none). */
  int keyed;
  /** split.no, split.count, split.tensors.count (all 0 when not keyed). A split.count of 0 makes
   * the file a whole model, whatever the other two say. */
  uint64_t no, count, tensors;
} gguf_split;

/** A GGUF model. */
typedef struct gguf_model {
  ckpt_model ckpt;
  /** What each file has beyond ckpt_file (info[i] for ckpt.files[i]). */
  gguf_info *info;
  /** 1 when the model was loaded from a split set (of one file or more). */
  int is_set;
  /** 1 when the model is one part of a set read alone (gguf_model_load's `any_part`); `part` is
   * its place in the set. */
  int alone;
  gguf_split part;
  /** 1 when the model is one file whose split.count is 0 (a whole model, its split keys set
   * aside). */
  int merged;
  /** The name outputs derive theirs from: "model" for model.gguf and for
   * model-00001-of-00003.gguf (malloc'd). */
  char *base;
} gguf_model;

/**
 * Loads MODEL `path`: a .gguf file, or the first file of a split set (the others are found by
 * their names). With `any_part` (ls, check), `path` may be any file of a set: the whole set is
 * loaded from its first file when that can be opened (its name is gguf-split's, on the same
 * prefix as this file's), else this file alone (m->alone) after a warning on stderr saying why.
 * Returns 0, or an exit status with the message in `err`: CLI_EXIT_NOINPUT (the file cannot be
 * opened), CLI_EXIT_DATA (a file breaks a rule, a part of the set is missing or does not match),
 * CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE. Free `m` with gguf_model_free in either case.
 */
int gguf_model_load(const char *path, int any_part, gguf_model *m, tool_error *err);

/**
 * Loads the split set whose files are `paths[0..count)` (in any order; each must carry the split
 * keys, and together they must be the whole set). One path is gguf_model_load of it, which must
 * be a split set. Returns as gguf_model_load.
 */
int gguf_model_load_parts(char *const *paths, size_t count, gguf_model *m, tool_error *err);

/**
 * The split keys of file `f` (read by gguf_read_fd with `info`) into `out`: split.no (u16),
 * split.count (u16) and split.tensors.count (i32, not negative), all three or none, and when
 * split.count is not 0, split.no below it. Returns 0, or CLI_EXIT_DATA with the message (the
 * file, the byte offset of the key) in `err`.
 */
int gguf_split_keys(const ckpt_file *f, const gguf_info *info, gguf_split *out, tool_error *err);

/** Removes the split keys from file `f`'s metadata and `info`'s order of it (the writer puts
 * them back into the files of an output set). */
void gguf_strip_split_keys(ckpt_file *f, gguf_info *info);

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
