/* config.json read with jansson: every field the presets use, checked before it is used. */
#include "ckpt_config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

/* Counts and sizes above 2^24 are refused: no model has 16 million heads or a hidden size or
 * vocabulary that large, and sums of a few products of two of them (a fused QKV's rows: (heads +
 * 2 * kv_heads) * head_dim) then stay far inside 64 bits. */
#define CONFIG_MAX_COUNT (INT64_C(1) << 24)

/* A positive integer at `key` of `obj` into *out (left 0 when the key is missing or null). */
static int get_count(json_t *obj, const char *key, const char *path, const char *where,
                     int64_t *out, tool_error *err) {
  json_t *v = json_object_get(obj, key);
  *out = 0;
  if (v == NULL || json_is_null(v)) {
    return 0;
  }
  if (!json_is_integer(v)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s%s is not an integer", path, where, key);
  }
  json_int_t n = json_integer_value(v);
  if (n < 1 || n > CONFIG_MAX_COUNT) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s%s is %lld (from 1 to %lld)", path, where, key,
                     (long long)n, (long long)CONFIG_MAX_COUNT);
  }
  *out = (int64_t)n;
  return 0;
}

/* A string at `key` of `obj` into out[size] ("" when missing or null). */
static int get_text(json_t *obj, const char *key, const char *path, const char *where, char *out,
                    size_t size, tool_error *err) {
  json_t *v = json_object_get(obj, key);
  out[0] = '\0';
  if (v == NULL || json_is_null(v)) {
    return 0;
  }
  if (!json_is_string(v)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s%s is not a string", path, where, key);
  }
  size_t n = json_string_length(v);
  const char *s = json_string_value(v);
  if (n >= size || strlen(s) != n) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: %s%s is not a name of at most %zu characters without NUL", path, where,
                     key, size - 1);
  }
  memcpy(out, s, n + 1);
  return 0;
}

static int get_bool(json_t *obj, const char *key, const char *path, int *out, tool_error *err) {
  json_t *v = json_object_get(obj, key);
  *out = 0;
  if (v == NULL || json_is_null(v)) {
    return 0;
  }
  if (!json_is_boolean(v)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s is not true or false", path, key);
  }
  *out = json_is_true(v);
  return 0;
}

/* A number at `key` of `obj` into *out, *has set (left 0 when missing or null). */
static int get_number(json_t *obj, const char *key, const char *path, const char *where,
                      double *out, int *has, tool_error *err) {
  json_t *v = json_object_get(obj, key);
  *out = 0;
  *has = 0;
  if (v == NULL || json_is_null(v)) {
    return 0;
  }
  if (!json_is_number(v)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s%s is not a number", path, where, key);
  }
  *out = json_number_value(v);
  *has = 1;
  return 0;
}

/* The rope scaling object (rope_scaling, or rope_parameters), when given. */
static int read_rope(json_t *root, const char *path, ckpt_config *c, tool_error *err) {
  const char *name = "rope_parameters";
  json_t *r = json_object_get(root, name);
  if (r == NULL || json_is_null(r)) {
    name = "rope_scaling";
    r = json_object_get(root, name);
  }
  if (r == NULL || json_is_null(r)) {
    return 0;
  }
  if (!json_is_object(r)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s is not an object", path, name);
  }
  char where[32];
  snprintf(where, sizeof where, "%s.", name);
  int rc = get_text(r, "rope_type", path, where, c->rope_type, sizeof c->rope_type, err);
  if (rc == 0 && c->rope_type[0] == '\0') {
    rc = get_text(r, "type", path, where, c->rope_type, sizeof c->rope_type, err);
  }
  int has_theta = 0;
  double theta = 0;
  rc = rc != 0 ? rc : get_number(r, "rope_theta", path, where, &theta, &has_theta, err);
  if (rc == 0 && has_theta) {
    c->rope_theta = theta;
    c->has_rope_theta = 1;
  }
  rc = rc != 0 ? rc
               : get_number(r, "factor", path, where, &c->rope_factor, &c->has_rope_factor, err);
  rc = rc != 0 ? rc
               : get_count(r, "original_max_position_embeddings", path, where,
                           &c->rope_original_context, err);
  rc = rc != 0 ? rc
               : get_number(r, "extrapolation_factor", path, where, &c->rope_ext_factor,
                            &c->has_rope_ext_factor, err);
  rc = rc != 0 ? rc
               : get_number(r, "attention_factor", path, where, &c->rope_attn_factor,
                            &c->has_rope_attn_factor, err);
  if (rc == 0 && !c->has_rope_attn_factor) {
    rc = get_number(r, "attn_factor", path, where, &c->rope_attn_factor, &c->has_rope_attn_factor,
                    err);
  }
  rc = rc != 0 ? rc
               : get_number(r, "beta_fast", path, where, &c->rope_beta_fast, &c->has_rope_beta_fast,
                            err);
  rc = rc != 0 ? rc
               : get_number(r, "beta_slow", path, where, &c->rope_beta_slow, &c->has_rope_beta_slow,
                            err);
  return rc;
}

static int read_quantization(json_t *root, const char *path, ckpt_config *c, tool_error *err) {
  json_t *q = json_object_get(root, "quantization_config");
  if (q == NULL || json_is_null(q)) {
    return 0;
  }
  if (!json_is_object(q)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: quantization_config is not an object", path);
  }
  c->has_quantization = 1;
  const char *where = "quantization_config.";
  int rc = get_text(q, "quant_method", path, where, c->quant_method, sizeof c->quant_method, err);
  json_t *b = json_object_get(q, "weight_block_size");
  if (rc != 0 || b == NULL || json_is_null(b)) {
    return rc;
  }
  if (!json_is_array(b) || json_array_size(b) != 2) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: quantization_config.weight_block_size is not an array of 2 integers",
                     path);
  }
  for (size_t i = 0; i < 2; i++) {
    json_t *v = json_array_get(b, i);
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
    if (n < 1 || n > CONFIG_MAX_COUNT) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: quantization_config.weight_block_size[%zu] is not an integer from 1 "
                       "to %lld",
                       path, i, (long long)CONFIG_MAX_COUNT);
    }
    c->block[i] = (int64_t)n;
  }
  c->has_block = 1;
  return 0;
}

/* The defaults and the relations between the counts. */
static int derive(const char *path, ckpt_config *c, int64_t local_experts, int64_t experts,
                  tool_error *err) {
  if (local_experts != 0 && experts != 0 && local_experts != experts) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: num_local_experts (%lld) and num_experts (%lld) disagree", path,
                     (long long)local_experts, (long long)experts);
  }
  c->experts = local_experts != 0 ? local_experts : experts;
  if (c->kv_heads != 0 && c->heads == 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: num_key_value_heads is given without num_attention_heads", path);
  }
  if (c->kv_heads == 0) {
    c->kv_heads = c->heads;
  }
  if (c->kv_heads != 0 && c->heads % c->kv_heads != 0) { /* both 0: no heads given */
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: num_key_value_heads (%lld) does not divide num_attention_heads (%lld)",
                     path, (long long)c->kv_heads, (long long)c->heads);
  }
  if (c->head_dim == 0 && c->heads != 0 && c->hidden_size != 0) {
    if (c->hidden_size % c->heads != 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: no head_dim, and num_attention_heads (%lld) does not divide "
                       "hidden_size (%lld)",
                       path, (long long)c->heads, (long long)c->hidden_size);
    }
    c->head_dim = c->hidden_size / c->heads;
  }
  return 0;
}

int ckpt_config_parse(const char *text, size_t size, const char *path, ckpt_config *c,
                      tool_error *err) {
  memset(c, 0, sizeof *c);
  json_error_t jerr;
  json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: byte %d: invalid JSON: %s", path, jerr.position,
                     jerr.text);
  }
  int rc = 0;
  if (!json_is_object(root)) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", path);
  }
  int64_t local_experts = 0, experts = 0;
  struct {
    const char *key;
    int64_t *out;
  } counts[] = {
      {"num_attention_heads", &c->heads},
      {"num_key_value_heads", &c->kv_heads},
      {"head_dim", &c->head_dim},
      {"hidden_size", &c->hidden_size},
      {"intermediate_size", &c->intermediate_size},
      {"vocab_size", &c->vocab_size},
      {"num_local_experts", &local_experts},
      {"num_experts", &experts},
      {"moe_intermediate_size", &c->moe_intermediate_size},
      {"shared_expert_intermediate_size", &c->shared_expert_intermediate_size},
      {"num_hidden_layers", &c->layers},
      {"max_position_embeddings", &c->context_length},
      {"num_experts_per_tok", &c->experts_used},
  };
  rc = rc != 0 ? rc
               : get_text(root, "model_type", path, "", c->model_type, sizeof c->model_type, err);
  json_t *architectures = json_object_get(root, "architectures");
  if (rc == 0 && architectures != NULL && !json_is_null(architectures)) {
    if (!json_is_array(architectures)) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: architectures is not a list of names", path);
    } else if (json_array_size(architectures) > 0) {
      json_t *first = json_pack("{sO}", "architectures[0]", json_array_get(architectures, 0));
      rc = first == NULL ? tool_oom(err, "reading config.json")
                         : get_text(first, "architectures[0]", path, "", c->architecture,
                                    sizeof c->architecture, err);
      json_decref(first);
    }
  }
  for (size_t i = 0; i < sizeof counts / sizeof counts[0] && rc == 0; i++) {
    rc = get_count(root, counts[i].key, path, "", counts[i].out, err);
  }
  rc = rc != 0 ? rc : get_bool(root, "tie_word_embeddings", path, &c->tie_word_embeddings, err);
  c->head_dim_given = c->head_dim != 0;
  c->kv_heads_given = c->kv_heads != 0;
  rc = rc != 0 ? rc
               : get_number(root, "rope_theta", path, "", &c->rope_theta, &c->has_rope_theta, err);
  rc = rc != 0 ? rc
               : get_number(root, "rms_norm_eps", path, "", &c->rms_norm_eps, &c->has_rms_norm_eps,
                            err);
  rc = rc != 0 ? rc : read_rope(root, path, c, err);
  rc = rc != 0 ? rc : read_quantization(root, path, c, err);
  rc = rc != 0 ? rc : derive(path, c, local_experts, experts, err);
  json_decref(root);
  return rc;
}

/* Only quantization_config, for a command that needs nothing else of the file: the other keys
 * are not looked at, and a key given twice takes its last value, as Python's json module reads
 * it. */
static int parse_quantization(const char *text, size_t size, const char *path, ckpt_config *c,
                              tool_error *err) {
  memset(c, 0, sizeof *c);
  json_error_t jerr;
  json_t *root = json_loadb(text, size, 0, &jerr);
  if (root == NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: byte %d: invalid JSON: %s", path, jerr.position,
                     jerr.text);
  }
  int rc = json_is_object(root) ? read_quantization(root, path, c, err)
                                : tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", path);
  json_decref(root);
  return rc;
}

/* Reads the file at `path` (at most CKPT_CONFIG_MAX_BYTES) and parses it with `parse`. */
static int read_with(const char *path, void *c, int *absent, tool_error *err,
                     int (*parse)(const char *, size_t, const char *, void *, tool_error *)) {
  *absent = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *absent = errno == ENOENT;
    return io_open_fail(err, errno, NULL, path);
  }
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    rc = tool_fail(err, CLI_EXIT_NOINPUT, "'%s' is not a regular file", path);
  } else if (st.st_size > (off_t)CKPT_CONFIG_MAX_BYTES) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: %lld bytes, more than a config.json holds (at most %u)",
                   path, (long long)st.st_size, CKPT_CONFIG_MAX_BYTES);
  }
  size_t size = rc == 0 ? (size_t)st.st_size : 0;
  char *text = rc == 0 ? malloc(size + 1) : NULL;
  if (rc == 0 && text == NULL) {
    rc = tool_oom(err, "reading config.json");
  }
  if (rc == 0) {
    rc = io_read_full(fd, path, text, size, 0, CLI_EXIT_IOERR, err);
  }
  close(fd);
  if (rc == 0) {
    rc = parse(text, size, path, c, err);
  }
  free(text);
  return rc;
}

static int parse_config(const char *text, size_t size, const char *path, void *c, tool_error *err) {
  return ckpt_config_parse(text, size, path, c, err);
}

static int parse_quantization_of(const char *text, size_t size, const char *path, void *c,
                                 tool_error *err) {
  return parse_quantization(text, size, path, c, err);
}

int ckpt_config_read(const char *path, ckpt_config *c, tool_error *err) {
  memset(c, 0, sizeof *c);
  int absent = 0;
  int rc = read_with(path, c, &absent, err, parse_config);
  c->absent = absent;
  return rc;
}

int ckpt_config_read_quantization(const char *path, ckpt_config *c, tool_error *err) {
  memset(c, 0, sizeof *c);
  int absent = 0;
  int rc = read_with(path, c, &absent, err, parse_quantization_of);
  c->absent = absent;
  return rc;
}

/* An integer at `key` within int32 (what gguf-py's add_int32 packs), *has set when given. */
static int get_int32(json_t *obj, const char *key, const char *path, int64_t *out, int *has,
                     tool_error *err) {
  json_t *v = json_object_get(obj, key);
  *out = 0;
  *has = 0;
  if (v == NULL || json_is_null(v)) {
    return 0;
  }
  json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
  if (!json_is_integer(v) || n < INT32_MIN || n > INT32_MAX) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s is not an integer from %ld to %ld", path, key,
                     (long)INT32_MIN, (long)INT32_MAX);
  }
  *out = (int64_t)n;
  *has = 1;
  return 0;
}

static int parse_generation(const char *text, size_t size, const char *path, void *target,
                            tool_error *err) {
  ckpt_generation *g = target;
  json_error_t jerr;
  json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: byte %d: invalid JSON: %s", path, jerr.position,
                     jerr.text);
  }
  int rc = json_is_object(root) ? 0 : tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", path);
  rc = rc != 0 ? rc : get_int32(root, "top_k", path, &g->top_k, &g->has_top_k, err);
  rc = rc != 0 ? rc
               : get_int32(root, "penalty_last_n", path, &g->penalty_last_n, &g->has_penalty_last_n,
                           err);
  rc = rc != 0 ? rc : get_int32(root, "mirostat", path, &g->mirostat, &g->has_mirostat, err);
  struct {
    const char *key;
    double *out;
    int *has;
  } numbers[] = {
      {"top_p", &g->top_p, &g->has_top_p},
      {"min_p", &g->min_p, &g->has_min_p},
      {"xtc_probability", &g->xtc_probability, &g->has_xtc_probability},
      {"xtc_threshold", &g->xtc_threshold, &g->has_xtc_threshold},
      {"temperature", &g->temp, &g->has_temp},
      {"penalty_repeat", &g->penalty_repeat, &g->has_penalty_repeat},
      {"mirostat_tau", &g->mirostat_tau, &g->has_mirostat_tau},
      {"mirostat_eta", &g->mirostat_eta, &g->has_mirostat_eta},
  };
  for (size_t i = 0; i < sizeof numbers / sizeof *numbers && rc == 0; i++) {
    rc = get_number(root, numbers[i].key, path, "", numbers[i].out, numbers[i].has, err);
  }
  /* The converter takes penalty_repeat, else transformers' repetition_penalty. */
  if (rc == 0 && !g->has_penalty_repeat) {
    rc = get_number(root, "repetition_penalty", path, "", &g->penalty_repeat,
                    &g->has_penalty_repeat, err);
  }
  if (rc == 0) {
    rc = get_text(root, "sequence", path, "", g->sequence, sizeof g->sequence, err);
    g->has_sequence = json_is_string(json_object_get(root, "sequence"));
  }
  json_decref(root);
  return rc;
}

int ckpt_generation_read(const char *path, ckpt_generation *g, tool_error *err) {
  memset(g, 0, sizeof *g);
  int absent = 0;
  int rc = read_with(path, g, &absent, err, parse_generation);
  if (rc != 0 && absent) {
    memset(g, 0, sizeof *g);
    g->absent = 1;
    return 0;
  }
  return rc;
}
