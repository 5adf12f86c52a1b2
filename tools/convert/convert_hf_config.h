/*
 * The way back from GGUF: the config.json (and generation_config.json) of a Hugging Face folder
 * from a GGUF file's metadata, the keys llama.cpp's converter reads to write that metadata
 * (docs/convert.md, "GGUF to Hugging Face"). Texts built in memory, so that every error is
 * found before anything is written.
 */
#ifndef CLEAVE_CONVERT_HF_CONFIG_H
#define CLEAVE_CONVERT_HF_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "convert_arch.h"
#include "error.h"

/** What config.json says beyond the metadata. */
typedef struct convert_hf_config_input {
  convert_arch arch;
  /** The file's metadata (sorted by key), and its path for messages. */
  const ckpt_meta *meta;
  size_t meta_count;
  const char *path;
  /** transformers' torch_dtype ("float32", "float16", "bfloat16"). */
  const char *torch_dtype;
  /** 1 when the file has no output.weight (the embeddings are tied). */
  int tied;
  /** The rows of token_embd.weight: vocab_size when the metadata has none. */
  int64_t vocab_rows;
} convert_hf_config_input;

/**
 * Builds config.json into `*config` (malloc'd, NUL-terminated) and generation_config.json into
 * `*generation` (NULL when the metadata has no general.sampling.* key nor token ids). Returns 0,
 * or CLI_EXIT_DATA naming the file and the key that is missing or of the wrong type
 * (block_count, embedding_length, attention.head_count are needed), or CLI_EXIT_SOFTWARE.
 */
int convert_hf_config_build(const convert_hf_config_input *in, char **config, char **generation,
                            tool_error *err);

#endif /* CLEAVE_CONVERT_HF_CONFIG_H */
