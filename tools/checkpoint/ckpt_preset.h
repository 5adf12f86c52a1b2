/*
 * Architecture presets: the shard rules of a known model family (Hugging Face tensor names), made
 * head-aware from the model's config.json (ckpt_config.h). docs/presets.md documents each preset
 * as a table. The rules go after the command line's in a ckpt_shard_spec (ckpt_planner.h).
 */
#ifndef CLEAVE_CKPT_PRESET_H
#define CLEAVE_CKPT_PRESET_H

#include <stddef.h>

#include "ckpt_config.h"
#include "ckpt_planner.h"

/** The rules of a preset for one model. */
typedef struct ckpt_preset {
  /** The preset's name ("llama"; static). */
  const char *name;
  /** Its --axis rules (owned; their globs static), marked `preset`, head-aware where they cut
   * attention or KV heads. */
  ckpt_shard_rule *axes;
  size_t axis_count;
  /** Its --replicate globs (static). */
  const char *const *replicate;
  size_t replicate_count;
} ckpt_preset;

/** The presets' names, for messages and help: "llama, mistral, ...". */
const char *ckpt_preset_names(void);

/** 1 when `name` is a preset's name or "auto", else 0. */
int ckpt_preset_known(const char *name);

/**
 * Makes preset `name` ("auto": the one named by config->model_type) for the model whose
 * config.json at `config_path` (named in messages) gave `config`; with `replicate_kv` the KV
 * heads are replicated when the ranks outnumber them (CKPT_HEADS_REPLICATED), else such a cut is
 * refused with a hint (CKPT_HEADS_REPLICABLE). Returns 0, CLI_EXIT_USAGE (`name` unknown),
 * CLI_EXIT_DATA (auto without a model_type or with one no preset has, naming it and the presets;
 * a count the preset needs missing from config.json), CLI_EXIT_SOFTWARE. Free `p` with
 * ckpt_preset_free in either case.
 */
int ckpt_preset_make(const char *name, const ckpt_config *config, const char *config_path,
                     int replicate_kv, ckpt_preset *p, tool_error *err);

/** Releases the rules of `p` and zeroes it. */
void ckpt_preset_free(ckpt_preset *p);

#endif /* CLEAVE_CKPT_PRESET_H */
