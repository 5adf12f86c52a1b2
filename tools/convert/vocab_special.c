/*
 * The special tokens, the add_*_token flags, the chat template and the normalizer's flags of a
 * Hugging Face folder, as gguf-py's SpecialVocab reads and writes them (gguf-py/gguf/vocab.py,
 * read 2026-12-07). In its order:
 *
 * 1. tokenizer.json (when it is a file): its merges (when asked), its normalizer (Lowercase,
 *    StripAccents, BertNormalizer's lowercase and strip_accents, inside a Sequence too), its
 *    added_tokens; then, with tokenizer_config.json, its post-processor: a RobertaProcessing sets
 *    add_bos, add_eos and add_sep; a TemplateProcessing sets add_bos when its single template
 *    starts with the BOS (or CLS) token, add_eos when it ends with the EOS token (another last
 *    token becomes the EOS, the old EOS the EOT or EOM), add_sep from its pair template;
 * 2. tokenizer_config.json (when it is a file and not empty): the chat template (its
 *    chat_template, else chat_template.jinja with additional_chat_templates/ *.jinja, else
 *    chat_template.json's), then for each special type add_<type>_token (a bool) and <type>_token
 *    (a text, or an object's content) looked up among tokenizer.json's added tokens;
 * 3. config.json: <type>_token_id (or text_config's) for the types still without an id.
 *
 * An id is taken once per type (the first source wins), must be an integer (a bool counts, as in
 * Python), below n_vocab when one is given, and is refused when negative. The keys written:
 * merges; the ids of bos, eos, unk, sep, pad, mask, eot and eom (gguf-py's writer has no key for
 * cls and the others, and skips them); add_bos, add_eos, add_sep; the chat template; the
 * normalizer's flags. Where the converter's order is not defined (the names of several chat
 * templates, a Python set; the additional templates, in the order the folder lists them), cleave
 * writes them in order of appearance and of file name.
 */
#include "vocab_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_meta_build.h"

#define MAX_TYPES 16

typedef struct special_state {
  const char *types[MAX_TYPES];
  size_t type_count;
  size_t n_vocab;
  /* Ids by insertion order. */
  const char *id_type[MAX_TYPES];
  uint32_t id_value[MAX_TYPES];
  size_t id_count;
  /* add_<type>_token flags by insertion order (a later value replaces in place). */
  const char *add_type[MAX_TYPES];
  int add_value[MAX_TYPES];
  size_t add_count;
  /* -1: not set. */
  int lowercase, strip_accents;
  char **merges;
  size_t merge_count;
  /* The chat template: a string, a list (json), or none. */
  json_t *chat_template;
} special_state;

static int has_type(const special_state *s, const char *t) {
  for (size_t i = 0; i < s->type_count; i++) {
    if (strcmp(s->types[i], t) == 0) {
      return 1;
    }
  }
  return 0;
}

static void set_add(special_state *s, const char *type, int value) {
  for (size_t i = 0; i < s->add_count; i++) {
    if (strcmp(s->add_type[i], type) == 0) {
      s->add_value[i] = value;
      return;
    }
  }
  if (s->add_count < MAX_TYPES) {
    s->add_type[s->add_count] = type;
    s->add_value[s->add_count++] = value;
  }
}

/* SpecialVocab._set_special_token; `where` names the source in messages. */
static int set_id(special_state *s, const char *type, const json_t *tid, const char *where,
                  tool_error *err) {
  if (tid == NULL || !(json_is_integer(tid) || json_is_boolean(tid))) {
    return 0;
  }
  json_int_t v = json_is_integer(tid) ? json_integer_value(tid) : json_is_true(tid);
  if (v < 0) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: the %s token id %lld is negative", where, type,
                     (long long)v);
  }
  if (s->n_vocab != 0 && (unsigned long long)v >= s->n_vocab) {
    return 0; /* the converter skips it with a warning */
  }
  if (v > (json_int_t)UINT32_MAX) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: the %s token id %lld is past 2^32-1", where, type,
                     (long long)v);
  }
  for (size_t i = 0; i < s->id_count; i++) {
    if (strcmp(s->id_type[i], type) == 0) {
      return 0;
    }
  }
  if (s->id_count < MAX_TYPES) {
    s->id_type[s->id_count] = type;
    s->id_value[s->id_count++] = (uint32_t)v;
  }
  return 0;
}

static int parse_normalizer(special_state *s, const json_t *n, const char *path, int depth,
                            tool_error *err) {
  if (!json_is_object(n) || depth > 16) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: a normalizer is not an object", path);
  }
  const char *type = json_string_value(json_object_get(n, "type"));
  if (type == NULL) {
    return 0;
  }
  if (strcmp(type, "Lowercase") == 0) {
    s->lowercase = 1;
  } else if (strcmp(type, "StripAccents") == 0) {
    s->strip_accents = 1;
  } else if (strcmp(type, "BertNormalizer") == 0) {
    json_t *lc = json_object_get(n, "lowercase"), *sa = json_object_get(n, "strip_accents");
    if (lc != NULL) {
      s->lowercase = json_is_null(lc) ? -1 : vocab_truthy(lc);
    }
    if (sa != NULL) {
      s->strip_accents = json_is_null(sa) ? -1 : vocab_truthy(sa);
    }
  } else if (strcmp(type, "Sequence") == 0) {
    json_t *list = json_object_get(n, "normalizers");
    if (list != NULL && !json_is_array(list)) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: a Sequence normalizer's normalizers is not a list",
                       path);
    }
    for (size_t i = 0; i < json_array_size(list); i++) {
      int rc = parse_normalizer(s, json_array_get(list, i), path, depth + 1, err);
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

/* The id of a template piece's special token ({"SpecialToken": {"id": ...}}), or NULL. A value
 * Python finds false counts as none. */
static json_t *special_of(const json_t *piece) {
  json_t *st = json_object_get(piece, "SpecialToken");
  json_t *id = json_is_object(st) ? json_object_get(st, "id") : NULL;
  return id != NULL && vocab_truthy(id) ? id : NULL;
}

static const char *sequence_of(const json_t *piece) {
  json_t *sq = json_object_get(piece, "Sequence");
  return json_is_object(sq) ? json_string_value(json_object_get(sq, "id")) : NULL;
}

/* Python's `a == b` on json values, a NULL being None. */
static int same(const json_t *a, const json_t *b) {
  if (a == NULL || b == NULL) {
    return a == b;
  }
  return json_equal((json_t *)a, (json_t *)b);
}

/* The value of `key` of tokenizer_config (NULL for None or a missing config). */
static json_t *tc_get(json_t *tc, const char *key) {
  json_t *v = tc != NULL ? json_object_get(tc, key) : NULL;
  return v != NULL && !json_is_null(v) ? v : NULL;
}

/* tokenizer_config[key] = value (tokenizer_config truthy). */
static void tc_set(json_t *tc, const char *key, json_t *value) {
  json_object_set(tc, key, value != NULL ? value : json_null());
}

static int truthy_p(const json_t *v) {
  return v != NULL && vocab_truthy(v);
}

static void template_processing(special_state *s, const json_t *proc, json_t *tc, json_t **bos,
                                json_t **eos, json_t **cls, json_t **sep) {
  json_t *single = json_object_get(proc, "single"), *pair = json_object_get(proc, "pair");
  size_t ns = json_is_array(single) ? json_array_size(single) : 0;
  size_t np = json_is_array(pair) ? json_array_size(pair) : 0;
  int tc_ok = tc != NULL && vocab_truthy(tc);
  json_t *first = NULL, *last = NULL;
  if (ns > 1) {
    if ((first = special_of(json_array_get(single, 0))) != NULL) {
      if (!tc_ok) {
        *bos = first;
      } else if (!same(first, *bos) && !same(first, *cls)) {
        if (!truthy_p(*bos)) {
          tc_set(tc, "bos_token", first);
          *bos = first;
        }
        if (!truthy_p(*cls)) {
          tc_set(tc, "cls_token", first);
          *cls = first;
        }
      }
      set_add(s, "bos", same(first, *bos) || same(first, *cls));
    }
    if ((last = special_of(json_array_get(single, ns - 1))) != NULL) {
      if (!tc_ok) {
        *eos = last;
      } else if (!same(last, *eos)) {
        if (!has_type(s, "eot") && s->type_count < MAX_TYPES) {
          s->types[s->type_count++] = "eot";
          tc_set(tc, "eot_token", *eos);
        } else if (!has_type(s, "eom") && s->type_count < MAX_TYPES) {
          s->types[s->type_count++] = "eom";
          tc_set(tc, "eom_token", *eos);
        }
        tc_set(tc, "eos_token", last);
        *eos = last;
      }
      set_add(s, "eos", same(last, *eos));
    }
  }
  if (np == 0) {
    return;
  }
  size_t start = first != NULL && same(special_of(json_array_get(pair, 0)), first) ? 1 : 0;
  size_t stop = last != NULL && same(special_of(json_array_get(pair, np - 1)), last) ? np - 1 : np;
  if (stop <= start) {
    return;
  }
  const char *a = sequence_of(json_array_get(pair, start));
  const char *b = sequence_of(json_array_get(pair, stop - 1));
  if (a == NULL || b == NULL || strcmp(a, "A") != 0 || strcmp(b, "B") != 0 || stop - start <= 2) {
    return;
  }
  /* The pieces between A and B. */
  size_t mid = stop - start - 2;
  int add_sep = 0;
  json_t *entry = special_of(json_array_get(pair, start + 1));
  if (entry != NULL && (same(entry, *sep) || same(entry, *eos)) && last == NULL) {
    add_sep = 1;
  }
  if (mid == 2) {
    json_t *second = special_of(json_array_get(pair, start + 2));
    if (second != NULL && (same(second, *sep) || same(second, *eos))) {
      add_sep = 1;
    }
  }
  set_add(s, "sep", add_sep);
  if (add_sep && !truthy_p(*sep) && tc_ok) {
    tc_set(tc, "sep_token", *eos);
  }
}

static int post_processor(special_state *s, const json_t *tokenizer, json_t *tc, const char *path,
                          tool_error *err) {
  json_t *bos = tc_get(tc, "bos_token"), *cls = tc_get(tc, "cls_token");
  json_t *eos = tc_get(tc, "eos_token"), *sep = tc_get(tc, "sep_token");
  int tc_ok = tc != NULL && vocab_truthy(tc);
  if (!truthy_p(bos) && truthy_p(cls) && tc_ok) {
    tc_set(tc, "bos_token", cls);
    bos = cls;
  }
  if (!truthy_p(eos) && truthy_p(sep) && tc_ok) {
    tc_set(tc, "eos_token", sep);
    eos = sep;
  }
  json_t *post = json_object_get(tokenizer, "post_processor");
  if (post == NULL || !vocab_truthy(post)) {
    return 0;
  }
  if (!json_is_object(post)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: post_processor is not an object", path);
  }
  json_t *list = json_object_get(post, "processors");
  if (list != NULL && !json_is_array(list)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: post_processor.processors is not a list", path);
  }
  size_t n = list != NULL ? json_array_size(list) : 1;
  for (size_t i = 0; i < n; i++) {
    json_t *p = list != NULL ? json_array_get(list, i) : post;
    if (!json_is_object(p)) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: post_processor.processors[%zu] is not an object",
                       path, i);
    }
    const char *type = json_string_value(json_object_get(p, "type"));
    if (type != NULL && strcmp(type, "RobertaProcessing") == 0) {
      set_add(s, "bos", 1);
      set_add(s, "eos", 1);
      set_add(s, "sep", 1);
      if (!truthy_p(cls) && tc_ok) {
        json_t *c = json_object_get(p, "cls");
        cls = json_is_array(c) ? json_array_get(c, 0) : bos;
        tc_set(tc, "cls_token", cls);
      }
      if (!truthy_p(sep) && tc_ok) {
        json_t *c = json_object_get(p, "sep");
        sep = json_is_array(c) ? json_array_get(c, 0) : eos;
        tc_set(tc, "sep_token", sep);
      }
    } else if (type != NULL && strcmp(type, "TemplateProcessing") == 0) {
      /* The values a template refers to are kept alive by tokenizer_config or the tokenizer. */
      template_processing(s, p, tc, &bos, &eos, &cls, &sep);
    }
  }
  return 0;
}

/* Reads a text file as Python's open(encoding="utf-8").read() does: UTF-8, universal newlines
 * ("\r\n" and "\r" become "\n"). */
static int read_text(const char *path, json_t **out, tool_error *err) {
  char *data;
  size_t size;
  int rc = vocab_read_file(path, VOCAB_MAX_JSON_BYTES, &data, &size, err);
  if (rc != 0) {
    return rc;
  }
  if (!vocab_utf8_ok(data, size)) {
    free(data);
    return tool_fail(err, CLI_EXIT_DATA, "%s: not UTF-8 text without NUL", path);
  }
  size_t o = 0;
  for (size_t i = 0; i < size; i++) {
    if (data[i] == '\r') {
      data[o++] = '\n';
      if (i + 1 < size && data[i + 1] == '\n') {
        i++;
      }
    } else {
      data[o++] = data[i];
    }
  }
  *out = json_stringn(data, o);
  free(data);
  return *out != NULL ? 0 : tool_oom(err, path);
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* chat_template.jinja with the templates of additional_chat_templates/, as a list of
 * {name, template}, or the one template as a string. */
static int jinja_templates(const char *dir, const char *jinja, json_t **out, tool_error *err) {
  json_t *main_t;
  int rc = read_text(jinja, &main_t, err);
  if (rc != 0) {
    return rc;
  }
  char *extra = vocab_path(dir, "additional_chat_templates");
  DIR *d = extra != NULL ? opendir(extra) : NULL;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while (rc == 0 && d != NULL && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    /* pathlib's glob("*.jinja") takes names starting with '.' too. */
    if (len <= 6 || strcmp(e->d_name + len - 6, ".jinja") != 0) {
      continue;
    }
    if (n == cap) {
      size_t nc = cap ? 2 * cap : 8;
      char **nn = realloc(names, nc * sizeof *names);
      if (nn == NULL) {
        rc = tool_oom(err, "the chat templates");
        break;
      }
      names = nn;
      cap = nc;
    }
    if ((names[n] = strdup(e->d_name)) == NULL) {
      rc = tool_oom(err, "the chat templates");
      break;
    }
    n++;
  }
  if (d != NULL) {
    closedir(d);
  }
  if (rc == 0 && n == 0) {
    *out = main_t;
    main_t = NULL;
  } else if (rc == 0) {
    qsort(names, n, sizeof *names, name_cmp);
    json_t *list = json_array();
    json_array_append_new(list, json_pack("{s:s,s:O}", "name", "default", "template", main_t));
    for (size_t i = 0; rc == 0 && i < n; i++) {
      char *sub = vocab_path(extra, names[i]);
      json_t *t = NULL;
      rc = sub != NULL ? read_text(sub, &t, err) : tool_oom(err, "a path");
      if (rc == 0) {
        json_t *stem = json_stringn(names[i], strlen(names[i]) - 6);
        json_array_append_new(list, json_pack("{s:o,s:o}", "name", stem, "template", t));
      }
      free(sub);
    }
    *out = list;
  }
  json_decref(main_t);
  for (size_t i = 0; i < n; i++) {
    free(names[i]);
  }
  free(names);
  free(extra);
  return rc;
}

static int chat_template(special_state *s, const char *dir, json_t *tc, const char *tc_path,
                         tool_error *err) {
  json_t *alt = NULL;
  char *jinja = vocab_path(dir, "chat_template.jinja");
  char *jpath = vocab_path(dir, "chat_template.json");
  int rc = jinja == NULL || jpath == NULL ? tool_oom(err, "a path") : 0;
  if (rc == 0 && vocab_is_file(jinja)) {
    rc = jinja_templates(dir, jinja, &alt, err);
  } else if (rc == 0 && vocab_is_file(jpath)) {
    json_t *root;
    rc = vocab_read_json(jpath, 0, &root, err);
    if (rc == 0 && !json_is_object(root)) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", jpath);
    } else if (rc == 0) {
      alt = json_incref(json_object_get(root, "chat_template"));
    }
    json_decref(root);
  }
  free(jinja);
  free(jpath);
  if (rc != 0) {
    json_decref(alt);
    return rc;
  }
  json_t *t = json_object_get(tc, "chat_template");
  if (t == NULL) {
    t = alt;
  }
  /* A list must be what GGUFWriter.add_chat_template can write: objects whose name is a text
   * and, when the name is not empty, whose template is a text or null. */
  for (size_t i = 0; json_is_array(t) && i < json_array_size(t); i++) {
    json_t *c = json_array_get(t, i);
    json_t *jn = json_is_object(c) ? json_object_get(c, "name") : NULL;
    json_t *jt = json_is_object(c) ? json_object_get(c, "template") : NULL;
    if (!json_is_object(c) || (jn != NULL && !json_is_string(jn)) ||
        (jn != NULL && json_string_length(jn) > 0 && jt != NULL && !json_is_null(jt) &&
         !json_is_string(jt))) {
      rc = tool_fail(err, CLI_EXIT_DATA,
                     "%s: chat template %zu is not an object with a text name and template",
                     t == alt ? dir : tc_path, i);
      break;
    }
  }
  /* Another type is ignored, as the converter ignores it (with a warning). */
  if (rc == 0 && t != NULL && (json_is_string(t) || json_is_array(t))) {
    s->chat_template = json_incref(t);
  }
  json_decref(alt);
  return rc;
}

/* The special tokens of tokenizer_config, looked up in tokenizer.json's added tokens. */
static int config_tokens(special_state *s, json_t *tc, const json_t *added, const char *tc_path,
                         tool_error *err) {
  for (size_t i = 0; i < s->type_count; i++) {
    const char *type = s->types[i];
    char key[64];
    snprintf(key, sizeof key, "add_%s_token", type);
    json_t *flag = json_object_get(tc, key);
    if (json_is_boolean(flag)) {
      set_add(s, type, json_is_true(flag));
    }
    snprintf(key, sizeof key, "%s_token", type);
    json_t *entry = json_object_get(tc, key);
    const char *content = NULL;
    if (json_is_string(entry)) {
      content = json_string_value(entry);
    } else if (json_is_object(entry)) {
      content = json_string_value(json_object_get(entry, "content"));
    }
    if (content == NULL) {
      continue;
    }
    json_t *found = NULL;
    for (size_t k = 0; k < json_array_size(added); k++) {
      json_t *a = json_array_get(added, k);
      if (!json_is_object(a)) {
        return tool_fail(err, CLI_EXIT_DATA, "tokenizer.json: added_tokens[%zu] is not an object",
                         k);
      }
      json_t *c = json_object_get(a, "content");
      if (json_is_string(c) && strcmp(json_string_value(c), content) == 0) {
        found = json_object_get(a, "id");
        break;
      }
    }
    int rc = set_id(s, type, found, tc_path, err);
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

static int from_config_json(special_state *s, const char *dir, tool_error *err) {
  char *path = vocab_path(dir, "config.json");
  if (path == NULL) {
    return tool_oom(err, "a path");
  }
  json_t *config;
  int rc = vocab_is_file(path) ? vocab_read_json(path, 0, &config, err) : 0;
  if (rc != 0 || !vocab_is_file(path)) {
    free(path);
    return rc;
  }
  if (!json_is_object(config)) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", path);
  }
  json_t *text = json_object_get(config, "text_config");
  for (size_t i = 0; rc == 0 && i < s->type_count; i++) {
    char key[64];
    snprintf(key, sizeof key, "%s_token_id", s->types[i]);
    json_t *id = json_object_get(config, key);
    if ((id == NULL || json_is_null(id)) && text != NULL) {
      if (!json_is_object(text)) {
        rc = tool_fail(err, CLI_EXIT_DATA, "%s: text_config is not an object", path);
        break;
      }
      id = json_object_get(text, key);
    }
    rc = set_id(s, s->types[i], id, path, err);
  }
  json_decref(config);
  free(path);
  return rc;
}

static int load(special_state *s, const char *dir, int load_merges, const json_t *parsed,
                tool_error *err) {
  char *tj_path = vocab_path(dir, "tokenizer.json");
  char *tc_path = vocab_path(dir, "tokenizer_config.json");
  json_t *tokenizer = parsed != NULL ? json_incref((json_t *)parsed) : NULL, *tc = NULL;
  int rc = tj_path == NULL || tc_path == NULL ? tool_oom(err, "a path") : 0;
  if (rc == 0 && tokenizer == NULL && vocab_is_file(tj_path)) {
    rc = vocab_read_json(tj_path, 0, &tokenizer, err);
    if (rc == 0 && !json_is_object(tokenizer)) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", tj_path);
    }
  }
  json_t *added = NULL;
  if (rc == 0 && tokenizer != NULL) {
    if (load_merges) {
      json_t *model = json_object_get(tokenizer, "model");
      if (model != NULL && !json_is_object(model)) {
        rc = tool_fail(err, CLI_EXIT_DATA, "%s: model is not an object", tj_path);
      } else {
        json_t *m = json_object_get(model, "merges");
        if (json_is_array(m) && json_array_size(m) > 0) {
          rc = vocab_bpe_merges(tokenizer, tj_path, dir, &s->merges, &s->merge_count, err);
        }
      }
    }
    json_t *norm = json_object_get(tokenizer, "normalizer");
    if (rc == 0 && norm != NULL && vocab_truthy(norm)) {
      rc = parse_normalizer(s, norm, tj_path, 0, err);
    }
    added = json_object_get(tokenizer, "added_tokens");
    if (rc == 0 && added != NULL && !json_is_array(added)) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: added_tokens is not a list", tj_path);
    }
  }
  if (rc == 0 && vocab_is_file(tc_path)) {
    rc = vocab_read_json(tc_path, 0, &tc, err);
    if (rc == 0 && !json_is_object(tc)) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", tc_path);
    }
  }
  if (rc == 0 && tokenizer != NULL && vocab_truthy(tokenizer)) {
    rc = post_processor(s, tokenizer, tc, tj_path, err);
  }
  if (rc == 0 && tc != NULL && vocab_truthy(tc)) {
    rc = chat_template(s, dir, tc, tc_path, err);
    if (rc == 0) {
      rc = config_tokens(s, tc, added, tc_path, err);
    }
  }
  json_decref(tokenizer);
  json_decref(tc);
  free(tj_path);
  free(tc_path);
  if (rc == 0) {
    rc = from_config_json(s, dir, err);
  }
  if (rc == 0 && load_merges && s->merge_count == 0) {
    /* SpecialVocab._try_load_merges_txt. */
    json_t *none = json_object();
    rc = vocab_bpe_merges(none, "merges.txt", dir, &s->merges, &s->merge_count, err);
    json_decref(none);
  }
  return rc;
}

static const char *id_key(const char *type) {
  static const char *const map[][2] = {
      {"bos", "tokenizer.ggml.bos_token_id"},     {"eos", "tokenizer.ggml.eos_token_id"},
      {"unk", "tokenizer.ggml.unknown_token_id"}, {"sep", "tokenizer.ggml.seperator_token_id"},
      {"pad", "tokenizer.ggml.padding_token_id"}, {"mask", "tokenizer.ggml.mask_token_id"},
      {"eot", "tokenizer.ggml.eot_token_id"},     {"eom", "tokenizer.ggml.eom_token_id"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    if (strcmp(map[i][0], type) == 0) {
      return map[i][1];
    }
  }
  return NULL;
}

static const char *add_key(const char *type) {
  if (strcmp(type, "bos") == 0) {
    return "tokenizer.ggml.add_bos_token";
  }
  if (strcmp(type, "eos") == 0) {
    return "tokenizer.ggml.add_eos_token";
  }
  if (strcmp(type, "sep") == 0) {
    return "tokenizer.ggml.add_sep_token";
  }
  return NULL;
}

/* GGUFWriter.add_chat_template of a list of {name, template}. */
static int put_template_list(const json_t *list, ckpt_meta **meta, size_t *count, tool_error *err) {
  const char *deflt = NULL;
  size_t n = json_array_size(list);
  char **names = calloc(n > 0 ? n : 1, sizeof *names);
  size_t named = 0;
  int rc = names == NULL ? tool_oom(err, "the chat templates") : 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    json_t *c = json_array_get(list, i);
    json_t *jn = json_is_object(c) ? json_object_get(c, "name") : NULL;
    json_t *jt = json_is_object(c) ? json_object_get(c, "template") : NULL;
    /* Each character that is not an ASCII letter or digit becomes '_' (one per code point). */
    const char *raw = jn != NULL ? json_string_value(jn) : "";
    char name[256];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)raw; *p && o + 1 < sizeof name; p++) {
      if ((*p & 0xc0) == 0x80) {
        continue;
      }
      int alnum = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
      name[o++] = alnum ? (char)*p : '_';
    }
    name[o] = '\0';
    if (o == 0 || jt == NULL || json_is_null(jt)) {
      continue;
    }
    if (strcmp(name, "default") == 0) {
      deflt = json_string_value(jt);
      continue;
    }
    char key[300];
    snprintf(key, sizeof key, "tokenizer.chat_template.%s", name);
    rc = gguf_meta_put_string_n(meta, count, key, json_string_value(jt), json_string_length(jt),
                                err);
    int dup = 0;
    for (size_t k = 0; k < named; k++) {
      dup |= strcmp(names[k], name) == 0;
    }
    if (rc == 0 && !dup && (names[named] = strdup(name)) == NULL) {
      rc = tool_oom(err, "the chat templates");
    } else if (rc == 0 && !dup) {
      named++;
    }
  }
  if (rc == 0 && named > 0) {
    rc = gguf_meta_put_string_array(meta, count, "tokenizer.chat_templates",
                                    (const char *const *)names, NULL, named, err);
  }
  if (rc == 0 && deflt != NULL) {
    rc = gguf_meta_put_string(meta, count, "tokenizer.chat_template", deflt, err);
  }
  for (size_t k = 0; k < named; k++) {
    free(names[k]);
  }
  free(names);
  return rc;
}

static int put_all(const special_state *s, ckpt_meta **meta, size_t *count, tool_error *err) {
  int rc = 0;
  if (s->merge_count > 0) {
    rc = gguf_meta_put_string_array(meta, count, "tokenizer.ggml.merges",
                                    (const char *const *)s->merges, NULL, s->merge_count, err);
  }
  for (size_t i = 0; rc == 0 && i < s->id_count; i++) {
    const char *key = id_key(s->id_type[i]);
    if (key != NULL) {
      rc = gguf_meta_put_u32(meta, count, key, s->id_value[i], err);
    }
  }
  for (size_t i = 0; rc == 0 && i < s->add_count; i++) {
    const char *key = add_key(s->add_type[i]);
    if (key != NULL) {
      rc = gguf_meta_put_bool(meta, count, key, s->add_value[i], err);
    }
  }
  if (rc == 0 && s->chat_template != NULL) {
    if (json_is_string(s->chat_template)) {
      rc = gguf_meta_put_string_n(meta, count, "tokenizer.chat_template",
                                  json_string_value(s->chat_template),
                                  json_string_length(s->chat_template), err);
    } else {
      rc = put_template_list(s->chat_template, meta, count, err);
    }
  }
  if (rc == 0 && s->lowercase >= 0) {
    rc = gguf_meta_put_bool(meta, count, "tokenizer.ggml.normalizer.lowercase", s->lowercase, err);
  }
  if (rc == 0 && s->strip_accents >= 0) {
    rc = gguf_meta_put_bool(meta, count, "tokenizer.ggml.normalizer.strip_accents",
                            s->strip_accents, err);
  }
  return rc;
}

int vocab_special_add(const char *dir, const vocab_special_opts *o, ckpt_meta **meta, size_t *count,
                      tool_error *err) {
  static const char *const defaults[] = {"bos", "eos", "unk", "sep", "pad", "cls", "mask"};
  special_state s;
  memset(&s, 0, sizeof s);
  s.lowercase = -1;
  s.strip_accents = -1;
  s.n_vocab = o->n_vocab;
  const char *const *types = o->types != NULL ? o->types : defaults;
  size_t nt = o->types != NULL ? o->type_count : sizeof defaults / sizeof defaults[0];
  for (size_t i = 0; i < nt && i < MAX_TYPES - 2; i++) {
    s.types[s.type_count++] = types[i];
  }
  int rc = load(&s, dir, o->load_merges, o->tokenizer, err);
  for (size_t i = 0; rc == 0 && i < o->set_count; i++) {
    json_t *v = json_integer((json_int_t)o->set_ids[i]);
    rc = set_id(&s, o->set_types[i], v, dir, err);
    json_decref(v);
  }
  if (rc == 0) {
    rc = put_all(&s, meta, count, err);
  }
  for (size_t i = 0; i < s.merge_count; i++) {
    free(s.merges[i]);
  }
  free(s.merges);
  json_decref(s.chat_template);
  return rc;
}
