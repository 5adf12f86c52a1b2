/*
 * The format-neutral model every checkpoint command reads: named tensors (name, dtype, shape,
 * the file they are in and their byte range there), each file's metadata, and the sidecar files
 * of the model's folder. A format's reader fills it (tools/safetensors/st_model.c); the rules,
 * the planner and the writer of this folder work on it alone.
 */
#ifndef CLEAVE_CKPT_MODEL_H
#define CLEAVE_CKPT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_dtype.h"
#include "error.h"

/** The largest rank of a checkpoint tensor (and of a view of one). */
#define CKPT_MAX_RANK 64

/** One tensor of a file. */
typedef struct ckpt_tensor {
  char *name;
  const ckpt_dtype *dtype;
  int ndim;
  /** ndim dimensions in C order (the last varies fastest), malloc'd; NULL when ndim is 0. */
  int64_t *shape;
  /** The index of its file in the model (ckpt_model.files). */
  size_t file;
  /** The file offset of its first byte, and its size. */
  uint64_t offset, bytes;
  /** The file offset of its entry in the file's header, for messages. */
  uint64_t entry_pos;
} ckpt_tensor;

/** The kinds of metadata values: text here; a format may number its own from 16 on (their
 * `value` holds the format's encoding of the value). */
enum { CKPT_META_TEXT = 0 };

/** One metadata entry of a file. */
typedef struct ckpt_meta {
  char *key;
  /** value_size bytes, NUL-terminated after them (a text holds no NUL). */
  char *value;
  size_t value_size;
  unsigned kind;
} ckpt_meta;

/** One file of a model. Everything is malloc'd and owned by it (ckpt_file_free). */
typedef struct ckpt_file {
  /** The path it was opened by, and its name in the model's folder. */
  char *path;
  char *name;
  uint64_t size;
  /** The file offset of the data section (the end of the header). */
  uint64_t data_start;
  /** Its tensors, in the order of their data. */
  size_t tensor_count;
  ckpt_tensor *tensors;
  /** Whether the header has a metadata section (which may be empty), and its entries, sorted by
   * key (byte-wise). */
  int has_meta;
  size_t meta_count;
  ckpt_meta *meta;
} ckpt_file;

/** The block size of a model's quantization scales (ckpt_companion.h): rows and columns of the
 * weight per scale (B0, B1), when known (`has_block`); a model whose scaled weights are cut needs
 * it. Plain data. */
typedef struct ckpt_quant {
  int has_block;
  int64_t block[2];
} ckpt_quant;

/** A model: one file, or the files an index lists, or a folder holding either. */
typedef struct ckpt_model {
  /** The folder of the files with a trailing '/', or "" for the current directory. */
  char *dir;
  /** The index's path and file name, or NULL for a model of one file without an index. */
  char *index_path;
  char *index_name;
  /** The files, sorted by name; in a model of ranks (merge, reshard), file R is rank R. */
  size_t file_count;
  ckpt_file *files;
  /** Every tensor of every file, sorted by name and tensors of one name by file (pointers into
   * the files' arrays). */
  size_t tensor_count;
  const ckpt_tensor **by_name;
  /** The other regular files of the model's folder (config.json, tokenizer files...), sorted,
   * when the model was given as a folder or an index; none for a file given by its path. */
  size_t sidecar_count;
  char **sidecars;
  /** The errno of a folder that could not be listed for its sidecars (0: listed): a command that
   * copies them refuses to go on without them (66). */
  int sidecar_errno;
  /** The folder is a URL (it cannot be listed): `sidecars` are the names a Hub folder may hold,
   * each asked for when a command copies them, and left out when the server has none. */
  int sidecars_remote;
  /** The model was given as its folder (a folder or an index whose folder's other files are its
   * sidecars), or as a folder of ranks (`ranks_dir`): no output may go into that folder, nor,
   * for a folder of ranks, into a folder inside it. */
  int owns_dir, ranks_dir;
  /** The block size of its `*_scale_inv` scales, which the command sets (from its options or the
   * model's config.json); zero: not known. */
  ckpt_quant quant;
} ckpt_model;

/** Releases what `f` holds and zeroes it (safe on a zeroed or partly filled file). */
void ckpt_file_free(ckpt_file *f);

/** Removes metadata entry `index` of file `file` of `m`, freeing it (the others keep their
 * order). */
void ckpt_meta_remove(ckpt_model *m, size_t file, size_t index);

/** Releases what `m` holds and zeroes it (safe on a zeroed or partly loaded model). */
void ckpt_model_free(ckpt_model *m);

/** Fills m->by_name from the files' tensors. Returns 0 or CLI_EXIT_SOFTWARE (out of memory). */
int ckpt_model_sort(ckpt_model *m, tool_error *err);

/** The tensor named `name` (after ckpt_model_sort; the first of equal names), or NULL. */
const ckpt_tensor *ckpt_model_find(const ckpt_model *m, const char *name);

/** The bytes of every tensor's data. */
uint64_t ckpt_model_bytes(const ckpt_model *m);

/**
 * Lists the sidecar files of m->dir into m->sidecars: the regular files (links followed) that are
 * not hidden, not the model's files or index, and whose names end with none of the `count`
 * suffixes `skip` (the format's other files); the model then owns its folder (`owns_dir`).
 * Returns 0, or CLI_EXIT_NOINPUT (the folder cannot be read: m->sidecar_errno says why) or
 * CLI_EXIT_SOFTWARE with the message in `err`.
 */
int ckpt_model_list_sidecars(ckpt_model *m, const char *const *skip, size_t count, tool_error *err);

/**
 * For a driver's probe (ckpt_driver.h): 1 when `path` is a folder holding a file whose name is
 * not hidden and ends with one of `suffixes` (NULL-terminated), 0 when it is a folder holding
 * none, -1 when it is not a folder (or cannot be read as one). Never fails otherwise.
 */
int ckpt_folder_holds(const char *path, const char *const *suffixes);

/** For a driver's probe: the first `size` bytes of the file at `path` into `buf`; returns how
 * many were read (0 when it cannot be opened). */
size_t ckpt_file_head(const char *path, unsigned char *buf, size_t size);

#endif /* CLEAVE_CKPT_MODEL_H */
