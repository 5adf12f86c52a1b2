/*
 * Loading a safetensors model into the checkpoint layer's ckpt_model: one .safetensors file, or
 * the shards listed by a *.safetensors.index.json, or a folder holding either. Loading reads
 * every header (never the data) and checks the index against the shards; what departs from the
 * canonical form without harming the data is a warning, or an error in strict mode.
 */
#ifndef CLEAVE_ST_MODEL_H
#define CLEAVE_ST_MODEL_H

#include <jansson.h>

#include "ckpt_model.h"
#include "error.h"
#include "st_lenient.h"

/** A safetensors model: the format-neutral model, and what only this format has. */
typedef struct st_model {
  ckpt_model ckpt;
  /** The index's "metadata" object other than total_size (owned), or NULL: an output index
   * keeps it. */
  json_t *index_metadata;
} st_model;

/**
 * Loads MODEL `path` (a .safetensors file, an index, or a folder holding one index or else one
 * .safetensors file). The sidecars are listed for a folder or an index. Returns 0, or an exit
 * status with the message in `err`: CLI_EXIT_NOINPUT (nothing to open), CLI_EXIT_DATA (a file
 * breaks a rule, or the index does not match the shards), CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE.
 * Free `m` with st_model_free in either case.
 */
int st_model_load(const char *path, st_model *m, tool_error *err);

/**
 * st_model_load with the departures from the canonical form (st_lenient.h) treated as `lenient`
 * says: NULL or a lenient one warns on stderr and counts them, a strict one refuses the first
 * (CLI_EXIT_DATA). st_model_load warns.
 */
int st_model_load_with(const char *path, st_leniency *lenient, st_model *m, tool_error *err);

/** Releases the model and zeroes it (safe on a zeroed or partly loaded one). */
void st_model_free(st_model *m);

#endif /* CLEAVE_ST_MODEL_H */
