/*
 * The GGUF metadata llama.cpp's converter writes for a Hugging Face model (save its vocabulary,
 * tokenizer.*, which convert_vocab.h adds, and the authorship keys its metadata.py guesses from
 * a model card): the keys, their GGUF types and values, in the converter's order:
 *
 *   general.architecture, general.type ("model"), general.sampling.* (generation_config.json),
 *   general.name (the folder's name), ARCH.block_count, context_length, embedding_length,
 *   feed_forward_length, attention.head_count, attention.head_count_kv, rope.scaling.*,
 *   rope.freq_base, attention.layer_norm_rms_epsilon, expert_count, expert_used_count,
 *   attention.key_length and value_length (head_dim given), general.file_type, then llama's
 *   vocab_size and rope.dimension_count, then general.quantization_version (2).
 *
 * Each comes from config.json as TextModel.set_gguf_parameters takes it (conversion/base.py);
 * a key the converter would fail without is refused (65, naming config.json and the key).
 */
#ifndef CLEAVE_CONVERT_META_H
#define CLEAVE_CONVERT_META_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_config.h"
#include "ckpt_model.h"
#include "convert_arch.h"
#include "error.h"

/** What the metadata is made from. */
typedef struct convert_meta_input {
  convert_arch arch;
  const ckpt_config *config;
  /** config.json's path, for messages. */
  const char *config_path;
  const ckpt_generation *generation;
  /** general.name: the model folder's name. */
  const char *name;
  /** general.file_type (llama.cpp's LlamaFileType: 0 F32, 1 F16, 7 Q8_0, 32 BF16). */
  uint32_t file_type;
} convert_meta_input;

/**
 * Appends the keys to `*meta` (gguf_meta_build.h: `*count` entries, caller-owned). Returns 0, or
 * CLI_EXIT_DATA (a key the converter needs is missing, a value out of its GGUF type's range, a
 * rope scaling the command does not make: llama3's, which needs a rope_freqs tensor), or
 * CLI_EXIT_SOFTWARE, with `err` set.
 */
int convert_meta_build(const convert_meta_input *in, ckpt_meta **meta, size_t *count,
                       tool_error *err);

#endif /* CLEAVE_CONVERT_META_H */
