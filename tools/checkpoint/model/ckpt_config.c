/* config.json read with jansson: every field the presets use, checked before it is used. */
#include "ckpt_config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http.h"
#include "io.h"
#include "io_source.h"

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
static int read_with(const char *path, ckpt_config *c, tool_error *err,
                     int (*parse)(const char *, size_t, const char *, ckpt_config *,
                                  tool_error *)) {
  memset(c, 0, sizeof *c);
  if (http_is_url(path)) {
    int found = 1;
    int rc = http_probe(path, NULL, &found, err);
    if (rc != 0 || !found) {
      c->absent = !found;
      return rc != 0
                 ? rc
                 : tool_fail(err, CLI_EXIT_NOINPUT, "cannot open '%s': HTTP 404 (Not Found)", path);
    }
  }
  io_source in;
  int rc = io_source_open(&in, path, NULL, err);
  if (rc != 0) {
    struct stat st;
    c->absent = !http_is_url(path) && stat(path, &st) != 0 && errno == ENOENT;
    return rc == CLI_EXIT_NOINPUT && strstr(err->message, "': it is ") != NULL
               ? tool_fail(err, CLI_EXIT_NOINPUT, "'%s' is not a regular file", path)
               : rc;
  }
  if (in.size > (uint64_t)CKPT_CONFIG_MAX_BYTES) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: %llu bytes, more than a config.json holds (at most %u)",
                   path, (unsigned long long)in.size, CKPT_CONFIG_MAX_BYTES);
  }
  size_t size = rc == 0 ? (size_t)in.size : 0;
  char *text = rc == 0 ? malloc(size + 1) : NULL;
  if (rc == 0 && text == NULL) {
    rc = tool_oom(err, "reading config.json");
  }
  if (rc == 0) {
    rc = io_source_read(&in, text, size, 0, CLI_EXIT_IOERR, err);
  }
  io_source_close(&in);
  if (rc == 0) {
    rc = parse(text, size, path, c, err);
  }
  free(text);
  return rc;
}

int ckpt_config_read(const char *path, ckpt_config *c, tool_error *err) {
  return read_with(path, c, err, ckpt_config_parse);
}

int ckpt_config_read_quantization(const char *path, ckpt_config *c, tool_error *err) {
  return read_with(path, c, err, parse_quantization);
}
