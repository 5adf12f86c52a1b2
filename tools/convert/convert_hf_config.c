/* config.json and generation_config.json from a GGUF file's metadata (convert_hf_config.h). */
#include "convert_hf_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "gguf_model.h"
#include "gguf_value.h"

/* A JSON object written member by member into a growing text. */
typedef struct json_text {
  char *text;
  size_t len, cap;
  size_t members;
  int failed;
} json_text;

static void append(json_text *j, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    /* No text yet: vsnprintf(NULL, 0) only counts (NULL + 0 is undefined). */
    char *at = j->text != NULL ? j->text + j->len : NULL;
    int n = j->failed ? -1 : vsnprintf(at, j->cap - j->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      j->failed = 1;
      return;
    }
    if ((size_t)n < j->cap - j->len) {
      j->len += (size_t)n;
      return;
    }
    size_t cap = j->cap * 2 + (size_t)n + 64;
    char *grown = realloc(j->text, cap);
    if (grown == NULL) {
      j->failed = 1;
      return;
    }
    j->text = grown;
    j->cap = cap;
  }
}

static void member(json_text *j, const char *key) {
  append(j, "%s\n  \"%s\": ", j->members++ == 0 ? "{" : ",", key);
}

/* A float32 as the shortest decimal that reads back as the same float32 (JSON has no NaN nor
 * infinity: those are refused by the caller). */
static void put_float(json_text *j, const char *key, float v) {
  char buf[48];
  for (int p = 1; p <= 9; p++) {
    snprintf(buf, sizeof buf, "%.*g", p, (double)v);
    if ((float)strtod(buf, NULL) == v) {
      break;
    }
  }
  /* A number that reads as an integer stays a float for Python ("10000.0"). */
  if (strpbrk(buf, ".e") == NULL) {
    strcat(buf, ".0");
  }
  member(j, key);
  append(j, "%s", buf);
}

static void put_int(json_text *j, const char *key, uint64_t v) {
  member(j, key);
  append(j, "%llu", (unsigned long long)v);
}

static void put_word(json_text *j, const char *key, const char *word) {
  member(j, key);
  append(j, "\"%s\"", word);
}

/* A GGUF string as a JSON string (control characters, quotes and backslashes escaped). */
static void put_text(json_text *j, const char *key, const char *s, size_t n) {
  member(j, key);
  append(j, "\"");
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch == '"' || ch == '\\') {
      append(j, "\\%c", ch);
    } else if (ch < 0x20) {
      append(j, "\\u%04x", ch);
    } else {
      append(j, "%c", ch);
    }
  }
  append(j, "\"");
}

static const ckpt_meta *find(const convert_hf_config_input *in, const char *key) {
  return gguf_meta_lookup(in->meta, in->meta_count, key);
}

/* `<arch>.suffix` */
static const ckpt_meta *find_arch(const convert_hf_config_input *in, const char *suffix) {
  char key[160];
  snprintf(key, sizeof key, "%s.%s", convert_arch_get(in->arch)->name, suffix);
  return find(in, key);
}

/* An unsigned integer entry: 1 (with *v), 0 absent, -1 another type or negative. */
static int read_uint(const ckpt_meta *m, uint64_t *v) {
  int neg;
  if (m == NULL) {
    return 0;
  }
  return gguf_meta_integer(m, &neg, v) == 0 && !neg ? 1 : -1;
}

/* A finite f32 (or f64) entry: 1, 0 absent, -1 another type or not finite. */
static int read_float(const ckpt_meta *m, float *v) {
  if (m == NULL) {
    return 0;
  }
  int t = gguf_meta_type(m);
  if (t == GGUF_F32 && m->value_size == 4) {
    uint32_t bits = (uint32_t)gguf_le((const unsigned char *)m->value, 4);
    memcpy(v, &bits, 4);
  } else if (t == GGUF_F64 && m->value_size == 8) {
    uint64_t bits = gguf_le((const unsigned char *)m->value, 8);
    double d;
    memcpy(&d, &bits, 8);
    *v = (float)d;
  } else {
    return -1;
  }
  return *v - *v == 0.0f ? 1 : -1;
}

static int bad(const convert_hf_config_input *in, const char *key, const char *what,
               tool_error *err) {
  return tool_fail(err, CLI_EXIT_DATA, "%s: the metadata key '%s' %s", in->path, key, what);
}

/* config.json's integer `name` from `<arch>.suffix`: required or not. */
static int arch_uint(const convert_hf_config_input *in, json_text *j, const char *suffix,
                     const char *name, int required, uint64_t *out, tool_error *err) {
  char key[160];
  snprintf(key, sizeof key, "%s.%s", convert_arch_get(in->arch)->name, suffix);
  uint64_t v = 0;
  int got = read_uint(find(in, key), &v);
  if (got < 0) {
    return bad(in, key, "is not a non-negative integer", err);
  }
  if (got == 0 && required) {
    return bad(in, key, "is missing: config.json needs it", err);
  }
  if (got == 1 && name != NULL) {
    put_int(j, name, v);
  }
  if (out != NULL) {
    *out = got == 1 ? v : 0;
  }
  return 0;
}

static int arch_float(const convert_hf_config_input *in, json_text *j, const char *suffix,
                      const char *name, tool_error *err) {
  char key[160];
  snprintf(key, sizeof key, "%s.%s", convert_arch_get(in->arch)->name, suffix);
  float v;
  int got = read_float(find(in, key), &v);
  if (got < 0) {
    return bad(in, key, "is not a finite float", err);
  }
  if (got == 1) {
    put_float(j, name, v);
  }
  return 0;
}

/* The Hugging Face class of a GGUF architecture: the first the table maps to it. */
static const char *hf_class(convert_arch arch) {
  unsigned n;
  const convert_hf_class *all = convert_hf_classes(&n);
  for (unsigned i = 0; i < n; i++) {
    if (all[i].arch == arch) {
      return all[i].hf_class;
    }
  }
  return "";
}

/* rope_scaling from rope.scaling.* (the types the forward direction writes). */
static int rope_scaling(const convert_hf_config_input *in, json_text *j, tool_error *err) {
  const ckpt_meta *type = find_arch(in, "rope.scaling.type");
  if (type == NULL) {
    return 0;
  }
  if (gguf_meta_type(type) != GGUF_STRING) {
    return bad(in, type->key, "is not a string", err);
  }
  float factor;
  int has_factor = read_float(find_arch(in, "rope.scaling.factor"), &factor);
  if (strcmp(type->value, "none") == 0) {
    return 0;
  }
  if ((strcmp(type->value, "linear") != 0 && strcmp(type->value, "yarn") != 0) || has_factor != 1) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: rope scaling '%.60s' %s: cleave writes rope_scaling for linear and yarn "
                     "with their factor",
                     in->path, type->value, has_factor != 1 ? "without a factor" : "");
  }
  member(j, "rope_scaling");
  json_text inner = {0};
  put_word(&inner, "rope_type", type->value);
  put_float(&inner, "factor", factor);
  if (strcmp(type->value, "yarn") == 0) {
    uint64_t ctx;
    if (read_uint(find_arch(in, "rope.scaling.original_context_length"), &ctx) == 1) {
      put_int(&inner, "original_max_position_embeddings", ctx);
    }
    static const char *const yarn[][2] = {{"rope.scaling.yarn_ext_factor", "extrapolation_factor"},
                                          {"rope.scaling.yarn_attn_factor", "attention_factor"},
                                          {"rope.scaling.yarn_beta_fast", "beta_fast"},
                                          {"rope.scaling.yarn_beta_slow", "beta_slow"}};
    for (size_t i = 0; i < sizeof yarn / sizeof *yarn; i++) {
      float v;
      if (read_float(find_arch(in, yarn[i][0]), &v) == 1) {
        put_float(&inner, yarn[i][1], v);
      }
    }
  }
  append(&inner, "\n  }");
  /* Indent the inner object's members one level more. */
  for (size_t i = 0; i < inner.len && !inner.failed; i++) {
    append(j, inner.text[i] == '\n' ? "\n  " : "%c", inner.text[i]);
  }
  j->failed |= inner.failed;
  free(inner.text);
  return 0;
}

/* bos_token_id and eos_token_id from tokenizer.ggml.*_token_id. */
static void token_ids(const convert_hf_config_input *in, json_text *j) {
  uint64_t v;
  if (read_uint(find(in, "tokenizer.ggml.bos_token_id"), &v) == 1) {
    put_int(j, "bos_token_id", v);
  }
  if (read_uint(find(in, "tokenizer.ggml.eos_token_id"), &v) == 1) {
    put_int(j, "eos_token_id", v);
  }
}

static int generation(const convert_hf_config_input *in, char **out, tool_error *err) {
  static const char *const floats[][2] = {{"general.sampling.top_p", "top_p"},
                                          {"general.sampling.min_p", "min_p"},
                                          {"general.sampling.xtc_probability", "xtc_probability"},
                                          {"general.sampling.xtc_threshold", "xtc_threshold"},
                                          {"general.sampling.temp", "temperature"},
                                          {"general.sampling.penalty_repeat", "repetition_penalty"},
                                          {"general.sampling.mirostat_tau", "mirostat_tau"},
                                          {"general.sampling.mirostat_eta", "mirostat_eta"}};
  static const char *const ints[][2] = {{"general.sampling.top_k", "top_k"},
                                        {"general.sampling.penalty_last_n", "penalty_last_n"},
                                        {"general.sampling.mirostat", "mirostat"}};
  json_text j = {0};
  token_ids(in, &j);
  const ckpt_meta *seq = find(in, "general.sampling.sequence");
  if (seq != NULL && gguf_meta_type(seq) == GGUF_STRING) {
    put_text(&j, "sequence", seq->value, seq->value_size);
  }
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
    const ckpt_meta *m = find(in, ints[i][0]);
    int neg;
    uint64_t mag;
    if (m == NULL) {
      continue;
    }
    if (gguf_meta_integer(m, &neg, &mag) != 0) {
      free(j.text);
      return bad(in, ints[i][0], "is not an integer", err);
    }
    member(&j, ints[i][1]);
    append(&j, "%s%llu", neg ? "-" : "", (unsigned long long)mag);
  }
  for (size_t i = 0; i < sizeof floats / sizeof *floats; i++) {
    float v;
    int got = read_float(find(in, floats[i][0]), &v);
    if (got < 0) {
      free(j.text);
      return bad(in, floats[i][0], "is not a finite float", err);
    }
    if (got == 1) {
      put_float(&j, floats[i][1], v);
    }
  }
  if (j.members == 0) {
    free(j.text);
    *out = NULL;
    return 0;
  }
  append(&j, "\n}\n");
  if (j.failed) {
    free(j.text);
    return tool_oom(err, "writing generation_config.json");
  }
  *out = j.text;
  return 0;
}

int convert_hf_config_build(const convert_hf_config_input *in, char **config, char **gen,
                            tool_error *err) {
  json_text j = {0};
  *config = NULL;
  *gen = NULL;
  const char *arch = convert_arch_get(in->arch)->name;
  member(&j, "architectures");
  append(&j, "[\"%s\"]", hf_class(in->arch));
  put_word(&j, "model_type", arch);
  uint64_t heads = 0, kv = 0, vocab = 0;
  int rc = arch_uint(in, &j, "embedding_length", "hidden_size", 1, NULL, err);
  rc = rc == 0 ? arch_uint(in, &j, "feed_forward_length", "intermediate_size", 0, NULL, err) : rc;
  rc = rc == 0 ? arch_uint(in, &j, "block_count", "num_hidden_layers", 1, NULL, err) : rc;
  rc = rc == 0 ? arch_uint(in, &j, "attention.head_count", "num_attention_heads", 1, &heads, err)
               : rc;
  rc = rc == 0 ? arch_uint(in, &j, "attention.head_count_kv", NULL, 0, &kv, err) : rc;
  if (rc == 0) {
    put_int(&j, "num_key_value_heads", kv != 0 ? kv : heads);
  }
  rc = rc == 0 ? arch_uint(in, &j, "attention.key_length", "head_dim", 0, NULL, err) : rc;
  rc = rc == 0 ? arch_float(in, &j, "attention.layer_norm_rms_epsilon", "rms_norm_eps", err) : rc;
  rc = rc == 0 ? arch_float(in, &j, "rope.freq_base", "rope_theta", err) : rc;
  rc = rc == 0 ? rope_scaling(in, &j, err) : rc;
  rc = rc == 0 ? arch_uint(in, &j, "context_length", "max_position_embeddings", 0, NULL, err) : rc;
  rc = rc == 0 ? arch_uint(in, &j, "vocab_size", NULL, 0, &vocab, err) : rc;
  rc = rc == 0 ? arch_uint(in, &j, "expert_count", "num_local_experts", 0, NULL, err) : rc;
  rc = rc == 0 ? arch_uint(in, &j, "expert_used_count", "num_experts_per_tok", 0, NULL, err) : rc;
  if (rc != 0) {
    free(j.text);
    return rc;
  }
  put_int(&j, "vocab_size", vocab != 0 ? vocab : (uint64_t)in->vocab_rows);
  member(&j, "tie_word_embeddings");
  append(&j, in->tied ? "true" : "false");
  put_word(&j, "torch_dtype", in->torch_dtype);
  token_ids(in, &j);
  append(&j, "\n}\n");
  if (j.failed) {
    free(j.text);
    return tool_oom(err, "writing config.json");
  }
  rc = generation(in, gen, err);
  if (rc != 0) {
    free(j.text);
    return rc;
  }
  *config = j.text;
  return 0;
}
