/*
 * A model: one .safetensors file, or the shards listed by a *.safetensors.index.json, or a
 * folder holding either. Loading reads every header (never the data) and checks the index
 * against the shards.
 */
#ifndef CLEAVE_ST_MODEL_H
#define CLEAVE_ST_MODEL_H

#include <stddef.h>

#include "st_header.h"

/** A tensor of the model: file index and tensor index in that file. */
typedef struct st_ref {
  size_t file;
  size_t tensor;
} st_ref;

typedef struct st_model {
  /** The folder of the files, with a trailing '/', or "" for the current directory. */
  char *dir;
  /** The index's path and file name, or NULL for a single file. */
  char *index_path;
  char *index_name;
  /** The index's "metadata" object other than total_size (a jansson json_t *), or NULL. */
  void *index_metadata;
  size_t file_count;
  st_file *files;
  /** File names (without the folder), in the order of `files` (sorted). */
  char **file_names;
  /** Every tensor, sorted by name. */
  size_t tensor_count;
  st_ref *sorted;
} st_model;

/**
 * Loads MODEL `path` (a .safetensors file, an index, or a folder holding either). Returns 0, or
 * an exit status with the message in `err`: CLI_EXIT_NOINPUT (nothing to open), CLI_EXIT_DATA
 * (a file breaks a rule, or the index does not match the shards), CLI_EXIT_IOERR,
 * CLI_EXIT_SOFTWARE.
 */
int st_model_load(const char *path, st_model *m, st_error *err);

/** Releases the model (safe on a zeroed or partly loaded one). */
void st_model_free(st_model *m);

/** The tensor a reference points at. */
const st_tensor *st_model_tensor(const st_model *m, st_ref r);

/** Total bytes of every tensor's data. */
unsigned long long st_model_bytes(const st_model *m);

#endif /* CLEAVE_ST_MODEL_H */
