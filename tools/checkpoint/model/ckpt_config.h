/*
 * A model folder's config.json (Hugging Face's model configuration), read as hostile input: the
 * fields the presets (ckpt_preset.h) and the quantization companions need, each checked for its
 * type and range, every error naming the file and the key. Built with jansson.
 */
#ifndef CLEAVE_CKPT_CONFIG_H
#define CLEAVE_CKPT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** The largest config.json read, in bytes: configurations are a few KiB; the limit keeps a
 * hostile file from taking memory. */
#define CKPT_CONFIG_MAX_BYTES (4u << 20)

/** The fields of a config.json. A count or size the file does not give is 0 (null counts as not
 * given); one it gives is from 1 to 2^24; a string it does not give is "". */
typedef struct ckpt_config {
  /** "model_type" ("llama", "qwen2", ...), and the first of "architectures" ("LlamaForCausalLM"),
   * or "". */
  char model_type[64];
  char architecture[128];
  /** "num_attention_heads". */
  int64_t heads;
  /** "num_key_value_heads", or `heads` when not given; it divides `heads`. */
  int64_t kv_heads;
  /** "head_dim", or hidden_size / heads when not given (then heads divides hidden_size). */
  int64_t head_dim;
  /** "hidden_size", "intermediate_size", "vocab_size". */
  int64_t hidden_size, intermediate_size, vocab_size;
  /** The experts of a mixture-of-experts model: "num_local_experts" (Mixtral) or "num_experts"
   * (Qwen MoE), 0 for a dense model; both given must agree. */
  int64_t experts;
  /** "moe_intermediate_size" and "shared_expert_intermediate_size" (Qwen MoE). */
  int64_t moe_intermediate_size, shared_expert_intermediate_size;
  /** "tie_word_embeddings": 1 when true, 0 when false or not given. */
  int tie_word_embeddings;
  /** 1 when "quantization_config" is given (an object). */
  int has_quantization;
  /** Its "quant_method" ("fp8", ...), or "". */
  char quant_method[32];
  /** Its "weight_block_size" [b0, b1] (both 1 or more) when `has_block`. */
  int has_block;
  int64_t block[2];
  /** Set by a read that failed because the file does not exist (ENOENT): a caller for which a
   * missing config.json only means "not known" tells it from one that cannot be read (66). */
  int absent;
  /* What `cleave convert` writes into GGUF metadata (0 or not `has_*`: not given): */
  /** "num_hidden_layers", "max_position_embeddings", "num_experts_per_tok". */
  int64_t layers, context_length, experts_used;
  /** Whether "head_dim" and "num_key_value_heads" were given (not derived). */
  int head_dim_given, kv_heads_given;
  /** "rope_theta" and "rms_norm_eps" (numbers), as the file's decimal text read to the nearest
   * double. */
  int has_rope_theta, has_rms_norm_eps;
  double rope_theta, rms_norm_eps;
  /** The rope scaling: "rope_scaling" (or "rope_parameters", transformers' newer name) when an
   * object: its "rope_type" (or "type"), "" when none; its "factor" and
   * "original_max_position_embeddings"; YaRN's "extrapolation_factor", "attention_factor" (or
   * "attn_factor"), "beta_fast", "beta_slow". rope_parameters' "rope_theta" is rope_theta's. */
  char rope_type[32];
  int has_rope_factor, has_rope_ext_factor, has_rope_attn_factor, has_rope_beta_fast,
      has_rope_beta_slow;
  double rope_factor, rope_ext_factor, rope_attn_factor, rope_beta_fast, rope_beta_slow;
  int64_t rope_original_context;
} ckpt_config;

/** The sampling defaults of a model folder's generation_config.json (what llama.cpp's
 * converter writes as general.sampling.*): each `has_*` says the key is given (not null). */
typedef struct ckpt_generation {
  int has_top_k, has_top_p, has_min_p, has_temp, has_xtc_probability, has_xtc_threshold,
      has_penalty_last_n, has_penalty_repeat, has_mirostat, has_mirostat_tau, has_mirostat_eta,
      has_sequence;
  int64_t top_k, penalty_last_n, mirostat;
  double top_p, min_p, temp, xtc_probability, xtc_threshold, penalty_repeat, mirostat_tau,
      mirostat_eta;
  char sequence[256];
  /** The file does not exist (the read then returns 0 with nothing given). */
  int absent;
} ckpt_generation;

/**
 * Reads generation_config.json at `path` as hostile input (the size limit of config.json, JSON
 * without duplicate keys, each key's type checked: top_k, penalty_last_n and mirostat integers
 * within int32, the others numbers, sequence a string). A missing file is no error (`absent`).
 * Returns 0, or CLI_EXIT_DATA / CLI_EXIT_NOINPUT / CLI_EXIT_IOERR / CLI_EXIT_SOFTWARE with the
 * file and the key in `err`.
 */
int ckpt_generation_read(const char *path, ckpt_generation *g, tool_error *err);

/**
 * Parses the `size` bytes of `text` (not NUL-terminated) as the config.json at `path` (named in
 * messages). Returns 0, or CLI_EXIT_DATA with the message in `err` ("PATH: num_key_value_heads:
 * 3 does not divide num_attention_heads (32)"): invalid JSON, a document that is not an object, a
 * key of the wrong type or out of range, counts that disagree. CLI_EXIT_SOFTWARE when out of
 * memory.
 */
int ckpt_config_parse(const char *text, size_t size, const char *path, ckpt_config *c,
                      tool_error *err);

/**
 * Reads and parses the config.json at `path` (at most CKPT_CONFIG_MAX_BYTES). Returns 0,
 * CLI_EXIT_NOINPUT (it cannot be opened or is not a regular file), CLI_EXIT_IOERR (a read
 * failed), or the statuses of ckpt_config_parse (CLI_EXIT_DATA also for a file over the limit).
 */
int ckpt_config_read(const char *path, ckpt_config *c, tool_error *err);

/**
 * Reads the config.json at `path` as ckpt_config_read does, but only its quantization_config
 * (has_quantization, quant_method, has_block, block; every other field 0): the block size of a
 * command without a preset, which must not be refused for keys it does not use. Duplicate keys
 * take their last value (Python's json module). Returns as ckpt_config_read.
 */
int ckpt_config_read_quantization(const char *path, ckpt_config *c, tool_error *err);

#endif /* CLEAVE_CKPT_CONFIG_H */
