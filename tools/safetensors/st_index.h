/*
 * Reading a sharded model's index (`*.safetensors.index.json`, Hugging Face's layout): its
 * weight_map (tensor name -> shard file name) and metadata, parsed by jansson with duplicate
 * keys refused. Whether the shards match it is checked by st_model.c, which reads them.
 */
#ifndef CLEAVE_ST_INDEX_H
#define CLEAVE_ST_INDEX_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** A parsed index. */
typedef struct st_index {
  /** The whole document (owned), its "weight_map" object and its "metadata" object or NULL
   * (borrowed from root). */
  json_t *root;
  json_t *weight_map;
  json_t *metadata;
  /** metadata.total_size, or -1 when absent, and the byte offset of its key in the file (for
   * messages). */
  int64_t total_size;
  uint64_t total_size_at;
  /** The distinct shard file names the weight_map lists, sorted (strings borrowed from root). */
  size_t shard_count;
  const char **shards;
} st_index;

/**
 * Reads the index at `path`: at most ST_MAX_HEADER bytes of JSON whose "weight_map" is an object
 * of strings, each the name of a file in the index's folder (no '/', '.' or '..'), and whose
 * optional "metadata" is an object with an optional integer "total_size" from 0 to 2^63-1.
 * Returns 0, or CLI_EXIT_NOINPUT (cannot be opened), CLI_EXIT_DATA (breaks a rule, naming the
 * byte or the entry) or CLI_EXIT_SOFTWARE with the message in `err`. Free `ix` with
 * st_index_free in either case.
 */
int st_index_read(const char *path, st_index *ix, tool_error *err);

/** The shard the index lists tensor `name` in, or NULL when it does not list it. */
const char *st_index_shard_of(const st_index *ix, const char *name);

/** Releases what `ix` holds and zeroes it. */
void st_index_free(st_index *ix);

#endif /* CLEAVE_ST_INDEX_H */
