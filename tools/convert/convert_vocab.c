/*
 * Which vocabulary a folder gets, as llama.cpp's converter chooses it per architecture (read
 * 2026-12-07: conversion/llama.py LlamaModel.set_vocab, conversion/qwen.py Qwen2Model,
 * Qwen3Model, Qwen2MoeModel and Qwen3MoeModel set_vocab, conversion/base.py
 * _set_vocab_sentencepiece and _set_vocab_gpt2), and the keys in its order:
 *
 * - llama (Llama, Mistral, Mixtral): tokenizer_config.json's add_prefix_space (when not null) as
 *   tokenizer.ggml.add_space_prefix; a tokenizer.model makes a SentencePiece vocabulary, else a
 *   tokenizer.json of Llama 3's kind (or any other not SentencePiece-like) a GPT-2 one; then,
 *   when config.json's vocab_size (default 32000) is 32016 (CodeLlama), a second SpecialVocab of
 *   the types prefix, suffix, middle and eot with eot 32010 (the writer has keys for eot only);
 *   when it is 49152 (Granite), add_bos_token false;
 * - qwen2, qwen3: SentencePiece when tokenizer.model is there, else GPT-2;
 * - qwen2moe, qwen3moe: GPT-2.
 *
 * The vocabulary size is config.json's (text_config's over the root's, as the converter merges
 * them): for SentencePiece vocab_size_per_layer_input, else vocab_size, else (absent, null or 0)
 * the model's piece count; for GPT-2 vocab_size, else the number of tokens.
 */
#include "convert_vocab.h"

#include <stdlib.h>
#include <string.h>

#include "gguf_meta_build.h"
#include "vocab_internal.h"

/* An integer hyperparameter of config.json (text_config's first): *value 0 and *present 0 when
 * absent; *present 1 and *value 0 for null. */
static int hparam(const json_t *config, const char *key, const char *path, int64_t *value,
                  int *present, tool_error *err) {
  json_t *text = json_object_get(config, "text_config");
  json_t *v = json_is_object(text) ? json_object_get(text, key) : NULL;
  if (v == NULL) {
    v = json_object_get(config, key);
  }
  *value = 0;
  *present = v != NULL;
  if (v == NULL || json_is_null(v)) {
    return 0;
  }
  if (!json_is_integer(v) || json_integer_value(v) < 0 ||
      json_integer_value(v) > (json_int_t)VOCAB_MAX_TOKENS) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s is not an integer from 0 to %u", path, key,
                     VOCAB_MAX_TOKENS);
  }
  *value = (int64_t)json_integer_value(v);
  return 0;
}

static int put_tokens(const vocab_table *t, ckpt_meta **meta, size_t *count, tool_error *err) {
  int rc = gguf_meta_put_string_array(meta, count, "tokenizer.ggml.tokens",
                                      (const char *const *)t->text, NULL, t->count, err);
  if (rc == 0 && t->scores != NULL && t->count > 0) {
    rc = gguf_meta_put_f32_array(meta, count, "tokenizer.ggml.scores", t->scores, t->count, err);
  }
  if (rc == 0 && t->count > 0) {
    rc = gguf_meta_put_i32_array(meta, count, "tokenizer.ggml.token_type", t->types, t->count, err);
  }
  return rc;
}

static int sentencepiece(const char *dir, const char *model_path, const json_t *config,
                         const char *config_path, ckpt_meta **meta, size_t *count,
                         tool_error *err) {
  int64_t size;
  int present;
  int rc = hparam(config, "vocab_size_per_layer_input", config_path, &size, &present, err);
  if (rc == 0 && !present) {
    rc = hparam(config, "vocab_size", config_path, &size, &present, err);
  }
  vocab_table t;
  if (rc == 0) {
    rc = vocab_spm_read(model_path, (size_t)size, &t, err);
  }
  if (rc != 0) {
    return rc;
  }
  rc = vocab_spm_added(dir, &t, err);
  if (rc == 0) {
    rc = gguf_meta_put_string(meta, count, "tokenizer.ggml.model", "llama", err);
  }
  if (rc == 0) {
    rc = gguf_meta_put_string(meta, count, "tokenizer.ggml.pre", "default", err);
  }
  if (rc == 0) {
    rc = put_tokens(&t, meta, count, err);
  }
  if (rc == 0) {
    vocab_special_opts o = {.n_vocab = t.count};
    rc = vocab_special_add(dir, &o, meta, count, err);
  }
  vocab_table_free(&t);
  return rc;
}

static int gpt2(const char *dir, const json_t *tokenizer, const char *path, const char *arch,
                const json_t *config, const char *config_path, ckpt_meta **meta, size_t *count,
                tool_error *err) {
  int64_t size;
  int present;
  int rc = hparam(config, "vocab_size", config_path, &size, &present, err);
  if (rc == 0 && present && size == 0) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: vocab_size is %s", config_path,
                   json_is_null(json_object_get(config, "vocab_size")) ? "null" : "0");
  }
  vocab_table t;
  if (rc == 0) {
    rc = vocab_bpe_tokens(tokenizer, path, (size_t)size, &t, err);
  }
  if (rc != 0) {
    return rc;
  }
  const char *pre = NULL;
  rc = vocab_pre_name(tokenizer, path, arch, &pre, err);
  if (rc == 0) {
    rc = gguf_meta_put_string(meta, count, "tokenizer.ggml.model", "gpt2", err);
  }
  if (rc == 0) {
    rc = gguf_meta_put_string(meta, count, "tokenizer.ggml.pre", pre, err);
  }
  if (rc == 0) {
    rc = put_tokens(&t, meta, count, err);
  }
  vocab_table_free(&t);
  if (rc == 0) {
    vocab_special_opts o = {.load_merges = 1, .tokenizer = tokenizer};
    rc = vocab_special_add(dir, &o, meta, count, err);
  }
  return rc;
}

typedef enum { RULE_LLAMA, RULE_SPM_OR_GPT2, RULE_GPT2 } vocab_rule;

static int rule_of(const char *arch, vocab_rule *rule) {
  static const struct {
    const char *arch;
    vocab_rule rule;
  } rules[] = {
      {"llama", RULE_LLAMA},   {"qwen2", RULE_SPM_OR_GPT2}, {"qwen3", RULE_SPM_OR_GPT2},
      {"qwen2moe", RULE_GPT2}, {"qwen3moe", RULE_GPT2},
  };
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    if (strcmp(rules[i].arch, arch) == 0) {
      *rule = rules[i].rule;
      return 0;
    }
  }
  return -1;
}

/* LlamaModel.set_vocab's reading of tokenizer_config.json before the vocabulary. */
static int llama_config(const char *dir, ckpt_meta **meta, size_t *count, tool_error *err) {
  char *path = vocab_path(dir, "tokenizer_config.json");
  if (path == NULL) {
    return tool_oom(err, "a path");
  }
  json_t *tc;
  int rc = vocab_read_json(path, 1, &tc, err);
  if (rc == 0 && tc != NULL && !json_is_object(tc)) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", path);
  }
  json_t *prefix = rc == 0 ? json_object_get(tc, "add_prefix_space") : NULL;
  if (prefix != NULL && !json_is_null(prefix)) {
    rc = gguf_meta_put_bool(meta, count, "tokenizer.ggml.add_space_prefix", vocab_truthy(prefix),
                            err);
  }
  json_t *cls = rc == 0 ? json_object_get(tc, "tokenizer_class") : NULL;
  if (json_is_string(cls) && strcmp(json_string_value(cls), "HybridDNATokenizer") == 0) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s: tokenizer_class HybridDNATokenizer: cleave does not convert its vocabulary",
                   path);
  }
  json_decref(tc);
  free(path);
  return rc;
}

int convert_vocab_add(const char *hf_dir, const char *arch, ckpt_meta **meta, size_t *count,
                      tool_error *err) {
  vocab_rule rule;
  if (rule_of(arch, &rule) != 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "architecture %s: cleave has no vocabulary rule for it (it converts those of "
                     "llama, qwen2, qwen3, qwen2moe and qwen3moe)",
                     arch);
  }
  char *config_path = vocab_path(hf_dir, "config.json");
  char *model_path = vocab_path(hf_dir, "tokenizer.model");
  char *json_path = vocab_path(hf_dir, "tokenizer.json");
  char *tekken_path = vocab_path(hf_dir, "tekken.json");
  json_t *config = NULL, *tokenizer = NULL;
  int rc = config_path && model_path && json_path && tekken_path ? 0 : tool_oom(err, "a path");
  if (rc == 0) {
    rc = vocab_read_json(config_path, 1, &config, err);
  }
  if (rc == 0 && config != NULL && !json_is_object(config)) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", config_path);
  }
  if (rc == 0 && config == NULL && (config = json_object()) == NULL) {
    rc = tool_oom(err, "config.json");
  }
  if (rc == 0 && rule == RULE_LLAMA && vocab_is_file(tekken_path) && !vocab_is_file(json_path)) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s: a Mistral tekken.json without tokenizer.json: cleave does not convert "
                   "mistral-common vocabularies",
                   tekken_path);
  }
  if (rc == 0 && rule == RULE_LLAMA) {
    rc = llama_config(hf_dir, meta, count, err);
  }
  int use_spm = rule != RULE_GPT2 && vocab_is_file(model_path);
  if (rc == 0 && use_spm) {
    rc = sentencepiece(hf_dir, model_path, config, config_path, meta, count, err);
  } else if (rc == 0 && !vocab_is_file(json_path)) {
    rc = tool_fail(err, CLI_EXIT_NOINPUT, "%s: no %stokenizer.json: the folder has no vocabulary",
                   hf_dir, rule == RULE_GPT2 ? "" : "tokenizer.model or ");
  } else if (rc == 0) {
    rc = vocab_read_json(json_path, 0, &tokenizer, err);
    if (rc == 0 && !json_is_object(tokenizer)) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", json_path);
    }
    if (rc == 0 && rule == RULE_LLAMA && !vocab_bpe_is_gpt2(tokenizer)) {
      rc = tool_fail(err, CLI_EXIT_DATA,
                     "%s: a SentencePiece-like BPE (byte_fallback) without tokenizer.model: the "
                     "converter reads it with transformers (gguf-py's LlamaHfVocab), which cleave "
                     "does not reproduce",
                     json_path);
    }
    if (rc == 0) {
      rc = gpt2(hf_dir, tokenizer, json_path, arch, config, config_path, meta, count, err);
    }
  }
  if (rc == 0 && rule == RULE_LLAMA) {
    int64_t size;
    int present;
    rc = hparam(config, "vocab_size", config_path, &size, &present, err);
    if (!present) {
      size = 32000;
    }
    if (rc == 0 && size == 32016) {
      static const char *const types[] = {"prefix", "suffix", "middle", "eot"};
      static const uint32_t ids[] = {32007, 32008, 32009, 32010};
      vocab_special_opts o = {
          .types = types, .type_count = 4, .set_types = types, .set_ids = ids, .set_count = 4};
      rc = vocab_special_add(hf_dir, &o, meta, count, err);
    } else if (rc == 0 && size == 49152) {
      rc = gguf_meta_put_bool(meta, count, "tokenizer.ggml.add_bos_token", 0, err);
    }
  }
  json_decref(tokenizer);
  json_decref(config);
  free(config_path);
  free(model_path);
  free(json_path);
  free(tekken_path);
  return rc;
}
