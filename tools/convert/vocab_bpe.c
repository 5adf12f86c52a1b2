/*
 * A byte-level BPE vocabulary from tokenizer.json (Hugging Face tokenizers' file), as llama.cpp's
 * converter writes it (TextModel.get_vocab_base in conversion/base.py and SpecialVocab's merges
 * in gguf-py/gguf/vocab.py, read 2026-12-07). The converter asks transformers' AutoTokenizer;
 * cleave reads the file that tokenizer is made from:
 *
 * - the vocabulary is model.vocab {text: id} with the added_tokens [{id, content, special}]; its
 *   size is config.json's vocab_size (the caller's), else the number of distinct texts; an id
 *   past it is refused (the converter asserts it);
 * - token i is "[PAD<i>]" of type UNUSED when no text has id i; a text that is an added token's
 *   content is CONTROL when that token is special or looks special (vocab_looks_special),
 *   USER_DEFINED otherwise with each U+2581 turned into a space; any other text is NORMAL.
 *   The converter first encodes and decodes an added token that is not "normalized"; for the
 *   byte-level BPE tokenizers this reader takes that gives the token back unchanged, and cleave
 *   writes it as it is;
 * - the merges are model.merges: a list of "A B" strings written as they are, or (tokenizers
 *   0.20 on) of [A, B] pairs written "A B" with each space inside A or B written U+0120; with no
 *   merges there, merges.txt's lines (a first line starting with '#' skipped, blank lines
 *   skipped, lines of other than two words skipped as the converter skips them with a warning).
 *
 * Two texts with one id, or a text whose model.vocab id and added_tokens id differ, are refused:
 * transformers' answer then depends on the order of a hash map.
 */
#include "vocab_internal.h"

#include <stdlib.h>
#include <string.h>

static json_t *model_of(const json_t *tokenizer) {
  return json_object_get(tokenizer, "model");
}

int vocab_bpe_is_gpt2(const json_t *tokenizer) {
  json_t *model = model_of(tokenizer);
  json_t *type = json_object_get(model, "type");
  int is_bpe = json_is_string(type) && strcmp(json_string_value(type), "BPE") == 0;
  json_t *fallback = json_object_get(model, "byte_fallback");
  json_t *ignore = json_object_get(model, "ignore_merges");
  /* LlamaHfVocab's test: Llama 3's is BPE with ignore_merges and byte_fallback false (missing
   * counts as true there); a SentencePiece-like one is BPE with byte_fallback (missing: false)
   * and a Sequence decoder. */
  int fallback_default_true = fallback == NULL || vocab_truthy(fallback);
  if (is_bpe && ignore != NULL && vocab_truthy(ignore) && !fallback_default_true) {
    return 1;
  }
  json_t *decoder = json_object_get(tokenizer, "decoder");
  json_t *dtype = json_is_object(decoder) ? json_object_get(decoder, "type") : NULL;
  int spm_like = is_bpe && fallback != NULL && vocab_truthy(fallback) && json_is_string(dtype) &&
                 strcmp(json_string_value(dtype), "Sequence") == 0;
  return !spm_like;
}

int vocab_bpe_tokens(const json_t *tokenizer, const char *path, size_t vocab_size, vocab_table *t,
                     tool_error *err) {
  memset(t, 0, sizeof *t);
  json_t *model = model_of(tokenizer);
  json_t *type = json_object_get(model, "type");
  json_t *vocab = json_object_get(model, "vocab");
  json_t *added = json_object_get(tokenizer, "added_tokens");
  if (!json_is_object(model)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: model is not an object", path);
  }
  if (!json_is_string(type) || strcmp(json_string_value(type), "BPE") != 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: model.type is %s: cleave converts BPE vocabularies of tokenizer.json",
                     path, json_is_string(type) ? json_string_value(type) : "not a string");
  }
  if (!json_is_object(vocab)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: model.vocab is not an object", path);
  }
  if (added != NULL && !json_is_array(added) && !json_is_null(added)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: added_tokens is not a list", path);
  }
  size_t n_added = json_is_array(added) ? json_array_size(added) : 0;
  if (json_object_size(vocab) > VOCAB_MAX_TOKENS || n_added > VOCAB_MAX_TOKENS) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: more than %u tokens", path, VOCAB_MAX_TOKENS);
  }
  /* Every added token checked, and how many texts the vocabulary has. */
  size_t distinct = json_object_size(vocab);
  json_int_t max_id = -1;
  for (size_t i = 0; i < n_added; i++) {
    json_t *a = json_array_get(added, i);
    json_t *id = json_object_get(a, "id"), *content = json_object_get(a, "content");
    if (!json_is_object(a) || !json_is_integer(id) || !json_is_string(content)) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: added_tokens[%zu] is not an object with an integer id and a content",
                       path, i);
    }
    if (json_integer_value(id) < 0) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: added_tokens[%zu]: id %lld is negative", path, i,
                       (long long)json_integer_value(id));
    }
    json_t *in_vocab = json_object_get(vocab, json_string_value(content));
    if (in_vocab == NULL) {
      distinct++;
    } else if (!json_is_integer(in_vocab) ||
               json_integer_value(in_vocab) != json_integer_value(id)) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: added_tokens[%zu] \"%.80s\" has id %lld, another than model.vocab's",
                       path, i, json_string_value(content), (long long)json_integer_value(id));
    }
    if (json_integer_value(id) > max_id) {
      max_id = json_integer_value(id);
    }
  }
  const char *key;
  json_t *v;
  json_object_foreach(vocab, key, v) {
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: model.vocab[\"%.80s\"] is not a token id (an integer from 0)", path,
                       key);
    }
    if (json_integer_value(v) > max_id) {
      max_id = json_integer_value(v);
    }
  }
  size_t n = vocab_size > 0 ? vocab_size : distinct;
  if (max_id >= 0 && (unsigned long long)max_id >= n) {
    return tool_fail(
        err, CLI_EXIT_DATA, "%s: token id %lld is not below the vocabulary size %zu (%s)", path,
        (long long)max_id, n, vocab_size > 0 ? "config.json's vocab_size" : "the number of tokens");
  }
  int rc = vocab_table_init(t, n, 0, 0.0f, err);
  if (rc != 0) {
    return rc;
  }
  /* Texts placed by id: a second text for an id is refused. */
  unsigned char *seen = calloc(n > 0 ? n : 1, 1);
  if (seen == NULL) {
    vocab_table_free(t);
    return tool_oom(err, "the vocabulary");
  }
  json_object_foreach(vocab, key, v) {
    size_t id = (size_t)json_integer_value(v);
    if (seen[id]) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: model.vocab gives id %zu to two texts", path, id);
      break;
    }
    seen[id] = 1;
    t->types[id] = VOCAB_NORMAL;
    if ((rc = vocab_table_set(t, id, key, strlen(key), err)) != 0) {
      break;
    }
  }
  for (size_t i = 0; rc == 0 && i < n_added; i++) {
    json_t *a = json_array_get(added, i);
    size_t id = (size_t)json_integer_value(json_object_get(a, "id"));
    const char *content = json_string_value(json_object_get(a, "content"));
    if (seen[id] == 2) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: added_tokens gives id %zu twice", path, id);
      break;
    }
    if (seen[id] == 1 && strcmp(t->text[id], content) != 0) {
      rc = tool_fail(err, CLI_EXIT_DATA,
                     "%s: id %zu is \"%.80s\" in model.vocab and \"%.80s\" in added_tokens", path,
                     id, t->text[id], content);
      break;
    }
    seen[id] = 2;
    json_t *special = json_object_get(a, "special");
    if ((special != NULL && vocab_truthy(special)) || vocab_looks_special(content)) {
      t->types[id] = VOCAB_CONTROL;
      rc = vocab_table_set(t, id, content, strlen(content), err);
    } else {
      char *plain;
      size_t len;
      t->types[id] = VOCAB_USER_DEFINED;
      if ((rc = vocab_unescape_spaces(content, &plain, &len, err)) == 0) {
        rc = vocab_table_set(t, id, plain, len, err);
        free(plain);
      }
    }
  }
  free(seen);
  if (rc != 0) {
    vocab_table_free(t);
  }
  return rc;
}

static void free_list(char **items, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(items[i]);
  }
  free(items);
}

/* "A B" of a pair, each space inside A or B written U+0120 (UTF-8 C4 A0). */
static char *join_pair(const char *a, const char *b) {
  size_t spaces = 0, la = strlen(a), lb = strlen(b);
  for (const char *p = a; *p; p++) {
    spaces += *p == ' ';
  }
  for (const char *p = b; *p; p++) {
    spaces += *p == ' ';
  }
  char *r = malloc(la + lb + spaces + 2);
  if (r == NULL) {
    return NULL;
  }
  char *o = r;
  for (int part = 0; part < 2; part++) {
    for (const char *p = part == 0 ? a : b; *p; p++) {
      if (*p == ' ') {
        *o++ = '\xc4';
        *o++ = '\xa0';
      } else {
        *o++ = *p;
      }
    }
    if (part == 0) {
      *o++ = ' ';
    }
  }
  *o = '\0';
  return r;
}

static int json_merges(const json_t *list, const char *path, char ***out, size_t *count,
                       tool_error *err) {
  size_t n = json_array_size(list);
  if (n > 4 * (size_t)VOCAB_MAX_TOKENS) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %zu merges (at most %zu)", path, n,
                     4 * (size_t)VOCAB_MAX_TOKENS);
  }
  int as_text = json_is_string(json_array_get(list, 0));
  json_t *first = json_array_get(list, 0);
  if (!as_text && !(json_is_array(first) && json_array_size(first) == 2 &&
                    json_is_string(json_array_get(first, 0)))) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: model.merges is neither a list of texts nor of pairs of texts", path);
  }
  char **items = calloc(n, sizeof *items);
  if (items == NULL) {
    return tool_oom(err, "the merges");
  }
  for (size_t i = 0; i < n; i++) {
    json_t *m = json_array_get(list, i);
    if (as_text && json_is_string(m)) {
      items[i] = strdup(json_string_value(m));
    } else if (!as_text && json_is_array(m) && json_array_size(m) == 2 &&
               json_is_string(json_array_get(m, 0)) && json_is_string(json_array_get(m, 1))) {
      items[i] = join_pair(json_string_value(json_array_get(m, 0)),
                           json_string_value(json_array_get(m, 1)));
    } else {
      free_list(items, i);
      return tool_fail(err, CLI_EXIT_DATA, "%s: model.merges[%zu] is not %s", path, i,
                       as_text ? "a text (as merges[0] is)" : "a pair of texts (as merges[0] is)");
    }
    if (items[i] == NULL) {
      free_list(items, i);
      return tool_oom(err, "the merges");
    }
  }
  *out = items;
  *count = n;
  return 0;
}

/* Python's str.isspace for the one byte characters: what str.strip and str.split take away. */
static int py_space(unsigned char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static int txt_merges(const char *dir, char ***out, size_t *count, tool_error *err) {
  char *path = vocab_path(dir, "merges.txt");
  if (path == NULL) {
    return tool_oom(err, "a path");
  }
  if (!vocab_is_file(path)) {
    free(path);
    return 0;
  }
  char *text;
  size_t size;
  int rc = vocab_read_file(path, VOCAB_MAX_JSON_BYTES, &text, &size, err);
  if (rc == 0 && !vocab_utf8_ok(text, size)) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: not UTF-8 text without NUL", path);
  }
  size_t lines = 1;
  for (size_t i = 0; rc == 0 && i < size; i++) {
    lines += text[i] == '\n' || text[i] == '\r';
  }
  char **items = rc == 0 ? calloc(lines, sizeof *items) : NULL;
  if (rc == 0 && items == NULL) {
    rc = tool_oom(err, "the merges");
  }
  size_t n = 0;
  int first = 1;
  for (char *line = text; rc == 0 && line != NULL && line < text + size;) {
    /* Python reads the file with universal newlines: "\n", "\r\n" and "\r" end a line. */
    char *end = line;
    while (end < text + size && *end != '\n' && *end != '\r') {
      end++;
    }
    char *next = end < text + size
                     ? end + 1 + (*end == '\r' && end + 1 < text + size && end[1] == '\n')
                     : NULL;
    while (line < end && py_space((unsigned char)*line)) {
      line++;
    }
    while (end > line && py_space((unsigned char)end[-1])) {
      end--;
    }
    int skip = first && end > line && *line == '#';
    first = 0;
    /* Words: exactly two are a merge. */
    char *w[3] = {0};
    size_t wl[3] = {0};
    size_t words = 0;
    for (char *p = line; !skip && p < end && words < 3;) {
      while (p < end && py_space((unsigned char)*p)) {
        p++;
      }
      if (p == end) {
        break;
      }
      w[words] = p;
      while (p < end && !py_space((unsigned char)*p)) {
        p++;
      }
      wl[words] = (size_t)(p - w[words]);
      words++;
    }
    if (!skip && words == 2) {
      items[n] = malloc(wl[0] + wl[1] + 2);
      if (items[n] == NULL) {
        rc = tool_oom(err, "the merges");
        break;
      }
      memcpy(items[n], w[0], wl[0]);
      items[n][wl[0]] = ' ';
      memcpy(items[n] + wl[0] + 1, w[1], wl[1]);
      items[n][wl[0] + 1 + wl[1]] = '\0';
      n++;
    }
    line = next;
  }
  free(text);
  free(path);
  if (rc != 0) {
    free_list(items, n);
    return rc;
  }
  *out = items;
  *count = n;
  return 0;
}

int vocab_bpe_merges(const json_t *tokenizer, const char *path, const char *dir, char ***merges,
                     size_t *count, tool_error *err) {
  *merges = NULL;
  *count = 0;
  json_t *model = model_of(tokenizer);
  json_t *list = json_is_object(model) ? json_object_get(model, "merges") : NULL;
  if (json_is_array(list) && json_array_size(list) > 0) {
    return json_merges(list, path, merges, count, err);
  }
  return txt_merges(dir, merges, count, err);
}
