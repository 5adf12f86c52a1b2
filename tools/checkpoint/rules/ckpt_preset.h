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

/** How a fused QKV weight orders its rows (--qkv-layout). */
typedef enum ckpt_qkv_layout {
  /** [q; k; v]: all the query heads, then the KV heads of k, then of v (Hugging Face's Phi-3). */
  CKPT_QKV_CONCAT = 0,
  /** Megatron's: for each KV head group, its query heads, then its k head, then its v head. */
  CKPT_QKV_INTERLEAVED,
} ckpt_qkv_layout;

/** The split rules of a preset: its fused tensors into their parts (`st split --preset`). */
typedef struct ckpt_preset_split {
  const char *name;
  ckpt_split_rule rules[2];
  size_t count;
  /** The lengths the rules' cuts point to. */
  int64_t lengths[3];
} ckpt_preset_split;

/** The presets' names, for messages and help: "llama, mistral, ...". */
const char *ckpt_preset_names(void);

/** 1 when `name` is a preset's name or "auto", else 0. */
int ckpt_preset_known(const char *name);

/**
 * Makes preset `name` ("auto": the one named by config->model_type) for the model whose
 * config.json at `config_path` (named in messages) gave `config`, a fused QKV's rows in
 * `layout`; with `replicate_kv` the KV heads (not fused ones) are replicated when the ranks
 * outnumber them (CKPT_HEADS_REPLICATED), else such a cut is refused with a hint
 * (CKPT_HEADS_REPLICABLE). A named preset must be the model's: config.json's model_type (or else
 * the first of its architectures) names its family, unless `override`. Returns 0, CLI_EXIT_USAGE
 * (`name` unknown), CLI_EXIT_DATA (auto without a model_type or with one no preset has, naming it
 * and the presets; a preset of another family; a count the preset needs missing from
 * config.json), CLI_EXIT_SOFTWARE. Free `p` with ckpt_preset_free in either case.
 */
int ckpt_preset_make(const char *name, const ckpt_config *config, const char *config_path,
                     int replicate_kv, ckpt_qkv_layout layout, int override, ckpt_preset *p,
                     tool_error *err);

/** 1 when preset `name` (not "auto") has fused tensors to split (phi3), else 0. */
int ckpt_preset_splits(const char *name);

/**
 * The split rules of preset `name` ("auto" as for ckpt_preset_make) for the model of `config`:
 * phi3's qkv_proj into q_proj, k_proj and v_proj (its rows in `layout`), gate_up_proj into
 * gate_proj and up_proj; a named preset the model's unless `override`, as for ckpt_preset_make.
 * Returns 0, CLI_EXIT_USAGE (`name` unknown), CLI_EXIT_DATA (auto without a known model_type; a
 * preset of another family; a preset without fused tensors; a count missing from config.json).
 */
int ckpt_preset_make_split(const char *name, const ckpt_config *config, const char *config_path,
                           ckpt_qkv_layout layout, int override, ckpt_preset_split *p,
                           tool_error *err);

/** Releases the rules of `p` and zeroes it. */
void ckpt_preset_free(ckpt_preset *p);

#endif /* CLEAVE_CKPT_PRESET_H */
