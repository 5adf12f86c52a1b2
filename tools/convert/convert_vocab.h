/*
 * The vocabulary of `cleave convert HF_FOLDER -o OUT.gguf`: the tokenizer.* metadata llama.cpp's
 * convert_hf_to_gguf.py writes for a Hugging Face folder, made from the folder's tokenizer files
 * without Python (docs/convert.md, "The vocabulary").
 */
#ifndef CLEAVE_CONVERT_VOCAB_H
#define CLEAVE_CONVERT_VOCAB_H

#include <stddef.h>

#include "ckpt_model.h"
#include "error.h"

/**
 * Appends to the GGUF metadata `*meta` (`*count` entries, grown with realloc as
 * gguf_meta_build.h grows it; entries and array owned by the caller) the tokenizer.* keys the
 * converter writes for the folder `hf_dir` and the GGUF architecture `arch` ("llama" for Llama,
 * Mistral and Mixtral; "qwen2", "qwen3", "qwen2moe", "qwen3moe"), in the converter's order and
 * with its types:
 *
 * - a SentencePiece tokenizer.model: tokenizer.ggml.model "llama", pre "default", tokens, scores,
 *   token types, with added_tokens.json, tokenizer_config.json's added_tokens_decoder and
 *   config.json's vocab_size;
 * - a BPE tokenizer.json: model "gpt2", the pre-tokenizer's name (llama-bpe, qwen2), tokens,
 *   token types, merges;
 * - then the special token ids, add_bos/eos/sep_token, the chat template and the normalizer's
 *   flags (gguf-py's SpecialVocab); for llama, tokenizer.ggml.add_space_prefix first when
 *   tokenizer_config.json says, and CodeLlama's and Granite's additions.
 *
 * A key the array already holds is replaced in its place. Reads the folder's files as hostile
 * input. Returns 0; CLI_EXIT_DATA with the file and what is wrong (a file that does not parse, a
 * value out of range, a tokenizer cleave cannot convert exactly: an unknown pre-tokenizer, a
 * SentencePiece-like tokenizer.json without tokenizer.model, another tokenizer kind, an
 * architecture without a vocabulary rule); CLI_EXIT_NOINPUT when the folder has no tokenizer or
 * a file cannot be opened; CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE. On failure `*meta` may hold some
 * of the keys (the caller frees it). Thread-safe on distinct arrays.
 */
int convert_vocab_add(const char *hf_dir, const char *arch, ckpt_meta **meta, size_t *count,
                      tool_error *err);

#endif /* CLEAVE_CONVERT_VOCAB_H */
