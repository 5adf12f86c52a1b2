/*
 * A SentencePiece vocabulary (tokenizer.model, a ModelProto) and the tokens a Hugging Face folder
 * adds to it, as llama.cpp's converter makes them (TextModel._create_vocab_sentencepiece in
 * conversion/base.py, read 2026-12-07):
 *
 * - the table starts as `vocab_size` tokens "[PAD<id>]", score -10000, type UNUSED; `vocab_size`
 *   is config.json's (the caller's), else the model's piece count;
 * - piece i (i below vocab_size; the others are dropped) gives its text and score, and its type:
 *   UNKNOWN, CONTROL, UNUSED and BYTE as the piece says, NORMAL otherwise: the converter asks the
 *   processor IsUnknown, IsControl, IsUnused, IsByte in that order and nothing else, so a
 *   USER_DEFINED piece is written NORMAL;
 * - added_tokens.json {text: id}: token id becomes that text, score -1000, USER_DEFINED (an id at
 *   or past vocab_size is skipped);
 * - tokenizer_config.json's added_tokens_decoder {"id": {"content", "special"}}: score -1000; a
 *   token whose "special" is true (Python's truth) or that looks special (vocab_looks_special)
 *   is CONTROL, any other USER_DEFINED with each U+2581 turned into a space.
 *
 * The file is hostile input: it is read whole (at most VOCAB_MAX_MODEL_BYTES), and a piece that
 * SentencePiece's loader refuses (ModelInterface: empty, twice, a byte piece not written <0xXX>,
 * no unknown piece or two, other than 256 byte pieces in a model that falls back to bytes) or that
 * a GGUF string cannot hold (not UTF-8, a NUL) is refused with its id and the file's name.
 */
#include "vocab_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sentencepiece_model.pb-c.h"

typedef struct piece_ref {
  const uint8_t *data;
  size_t len;
  size_t id;
} piece_ref;

static int piece_cmp(const void *a, const void *b) {
  const piece_ref *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = n > 0 ? memcmp(x->data, y->data, n) : 0;
  if (c != 0) {
    return c;
  }
  if (x->len != y->len) {
    return x->len < y->len ? -1 : 1;
  }
  return x->id < y->id ? -1 : x->id > y->id;
}

static int is_hex(uint8_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

/* SentencePiece's checks of its pieces (ModelInterface::InitializePieces): what the converter's
 * processor would refuse to load. */
static int check_pieces(const CleaveSpm__ModelProto *m, const char *path, tool_error *err) {
  size_t unknown = 0, bytes = 0;
  for (size_t i = 0; i < m->n_pieces; i++) {
    const CleaveSpm__ModelProto__SentencePiece *p = m->pieces[i];
    int type = p->has_type ? p->type : VOCAB_NORMAL;
    if (type < VOCAB_NORMAL || type > VOCAB_BYTE) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: piece %zu has type %d (a SentencePiece type is 1 to 6)", path, i, type);
    }
    if (!p->has_piece || p->piece.len == 0) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: piece %zu is empty", path, i);
    }
    if (!vocab_utf8_ok((const char *)p->piece.data, p->piece.len)) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: piece %zu is not UTF-8 text without NUL", path, i);
    }
    unknown += type == VOCAB_UNKNOWN;
    bytes += type == VOCAB_BYTE;
    if (type == VOCAB_BYTE &&
        !(p->piece.len == 6 && memcmp(p->piece.data, "<0x", 3) == 0 && is_hex(p->piece.data[3]) &&
          is_hex(p->piece.data[4]) && p->piece.data[5] == '>')) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: piece %zu is a byte piece not written <0xXX> (\"%.*s\")", path, i,
                       (int)(p->piece.len < 40 ? p->piece.len : 40), (const char *)p->piece.data);
    }
  }
  if (unknown != 1) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %zu unknown pieces (SentencePiece needs one)", path,
                     unknown);
  }
  int fallback = m->trainer_spec != NULL && m->trainer_spec->has_byte_fallback &&
                 m->trainer_spec->byte_fallback;
  if (fallback && bytes != 256) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: %zu byte pieces in a model that falls back to bytes (SentencePiece "
                     "needs 256)",
                     path, bytes);
  }
  piece_ref *refs = malloc((m->n_pieces > 0 ? m->n_pieces : 1) * sizeof *refs);
  if (refs == NULL) {
    return tool_oom(err, "sorting the pieces");
  }
  for (size_t i = 0; i < m->n_pieces; i++) {
    refs[i] = (piece_ref){m->pieces[i]->piece.data, m->pieces[i]->piece.len, i};
  }
  qsort(refs, m->n_pieces, sizeof *refs, piece_cmp);
  int rc = 0;
  for (size_t i = 1; i < m->n_pieces; i++) {
    if (refs[i].len == refs[i - 1].len &&
        memcmp(refs[i].data, refs[i - 1].data, refs[i].len) == 0) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: pieces %zu and %zu are the same text (\"%.*s\")",
                     path, refs[i - 1].id, refs[i].id, (int)(refs[i].len < 40 ? refs[i].len : 40),
                     (const char *)refs[i].data);
      break;
    }
  }
  free(refs);
  return rc;
}

int vocab_spm_read(const char *path, size_t vocab_size, vocab_table *t, tool_error *err) {
  char *data;
  size_t size;
  memset(t, 0, sizeof *t);
  int rc = vocab_read_file(path, VOCAB_MAX_MODEL_BYTES, &data, &size, err);
  if (rc != 0) {
    return rc;
  }
  CleaveSpm__ModelProto *m = cleave_spm__model_proto__unpack(NULL, size, (const uint8_t *)data);
  free(data);
  if (m == NULL) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: not a SentencePiece model (the protobuf does not parse as a ModelProto)",
                     path);
  }
  if (m->n_pieces == 0) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: a SentencePiece model without pieces", path);
  } else if (m->n_pieces > VOCAB_MAX_TOKENS) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: %zu pieces (at most %u)", path, m->n_pieces,
                   VOCAB_MAX_TOKENS);
  } else {
    rc = check_pieces(m, path, err);
  }
  size_t n = vocab_size > 0 ? vocab_size : m->n_pieces;
  if (rc == 0) {
    rc = vocab_table_init(t, n, 1, -10000.0f, err);
  }
  for (size_t i = 0; rc == 0 && i < m->n_pieces && i < n; i++) {
    const CleaveSpm__ModelProto__SentencePiece *p = m->pieces[i];
    int type = p->has_type ? p->type : VOCAB_NORMAL;
    rc = vocab_table_set(t, i, (const char *)p->piece.data, p->piece.len, err);
    t->scores[i] = p->has_score ? p->score : 0.0f;
    t->types[i] = type == VOCAB_USER_DEFINED ? VOCAB_NORMAL : type;
  }
  cleave_spm__model_proto__free_unpacked(m, NULL);
  if (rc != 0) {
    vocab_table_free(t);
  }
  return rc;
}

/* A token id of `file` (`what` names the entry): an integer from 0; `*skip` set when it is at or
 * past the table's end (the converter skips it with a warning). */
static int token_id(json_int_t id, size_t count, const char *file, const char *what, size_t *out,
                    int *skip, tool_error *err) {
  if (id < 0) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s: token id %lld is negative", file, what,
                     (long long)id);
  }
  *skip = (unsigned long long)id >= count;
  *out = (size_t)id;
  return 0;
}

static int added_tokens_json(const char *dir, vocab_table *t, tool_error *err) {
  char *path = vocab_path(dir, "added_tokens.json");
  if (path == NULL) {
    return tool_oom(err, "a path");
  }
  json_t *root;
  int rc = vocab_read_json(path, 1, &root, err);
  if (rc != 0 || root == NULL) {
    free(path);
    return rc;
  }
  if (!json_is_object(root)) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object of token ids", path);
  }
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    if (rc != 0) {
      break;
    }
    size_t id = 0;
    int skip = 1;
    size_t klen = strlen(key);
    if (!json_is_integer(v)) {
      rc =
          tool_fail(err, CLI_EXIT_DATA, "%s: \"%.80s\": the token id is not an integer", path, key);
    } else if (!vocab_utf8_ok(key, klen)) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: a token that is not UTF-8 text", path);
    } else if ((rc = token_id(json_integer_value(v), t->count, path, key, &id, &skip, err)) == 0 &&
               !skip) {
      rc = vocab_table_set(t, id, key, klen, err);
      t->scores[id] = -1000.0f;
      t->types[id] = VOCAB_USER_DEFINED;
    }
  }
  json_decref(root);
  free(path);
  return rc;
}

/* Python's int() of an object key of added_tokens_decoder: optional sign, digits (underscores
 * between digits allowed), surrounding whitespace. */
static int parse_key_id(const char *key, long long *out) {
  const char *p = key;
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
    p++;
  }
  int neg = 0;
  if (*p == '+' || *p == '-') {
    neg = *p == '-';
    p++;
  }
  if (*p < '0' || *p > '9') {
    return -1;
  }
  long long v = 0;
  while ((*p >= '0' && *p <= '9') || (*p == '_' && p[1] >= '0' && p[1] <= '9')) {
    if (*p != '_') {
      if (v > (LLONG_MAX - 9) / 10) {
        return -1;
      }
      v = v * 10 + (*p - '0');
    }
    p++;
  }
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
    p++;
  }
  if (*p != '\0') {
    return -1;
  }
  *out = neg ? -v : v;
  return 0;
}

static int added_tokens_decoder(const char *dir, vocab_table *t, tool_error *err) {
  char *path = vocab_path(dir, "tokenizer_config.json");
  if (path == NULL) {
    return tool_oom(err, "a path");
  }
  json_t *root;
  int rc = vocab_read_json(path, 1, &root, err);
  if (rc != 0 || root == NULL) {
    free(path);
    return rc;
  }
  json_t *dec = json_is_object(root) ? json_object_get(root, "added_tokens_decoder") : NULL;
  if (!json_is_object(root)) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: not a JSON object", path);
  } else if (dec != NULL && !json_is_object(dec)) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%s: added_tokens_decoder is not an object", path);
  }
  const char *key;
  json_t *v;
  if (rc == 0 && dec != NULL) {
    json_object_foreach(dec, key, v) {
      long long raw;
      size_t id = 0;
      int skip = 1;
      json_t *content = json_is_object(v) ? json_object_get(v, "content") : NULL;
      if (parse_key_id(key, &raw) != 0) {
        rc = tool_fail(err, CLI_EXIT_DATA, "%s: added_tokens_decoder: \"%.40s\" is not a token id",
                       path, key);
      } else if (!json_is_object(v)) {
        rc = tool_fail(err, CLI_EXIT_DATA, "%s: added_tokens_decoder[%s] is not an object", path,
                       key);
      } else if (!json_is_string(content) ||
                 !vocab_utf8_ok(json_string_value(content), json_string_length(content))) {
        rc = tool_fail(err, CLI_EXIT_DATA,
                       "%s: added_tokens_decoder[%s].content is not UTF-8 text without NUL", path,
                       key);
      } else if ((rc = token_id(raw, t->count, path, "added_tokens_decoder", &id, &skip, err)) ==
                     0 &&
                 !skip) {
        const char *text = json_string_value(content);
        json_t *special = json_object_get(v, "special");
        if ((special != NULL && vocab_truthy(special)) || vocab_looks_special(text)) {
          t->types[id] = VOCAB_CONTROL;
          rc = vocab_table_set(t, id, text, json_string_length(content), err);
        } else {
          char *plain;
          size_t n;
          t->types[id] = VOCAB_USER_DEFINED;
          rc = vocab_unescape_spaces(text, &plain, &n, err);
          if (rc == 0) {
            rc = vocab_table_set(t, id, plain, n, err);
            free(plain);
          }
        }
        t->scores[id] = -1000.0f;
      }
      if (rc != 0) {
        break;
      }
    }
  }
  json_decref(root);
  free(path);
  return rc;
}

int vocab_spm_added(const char *dir, vocab_table *t, tool_error *err) {
  int rc = added_tokens_json(dir, t, err);
  return rc != 0 ? rc : added_tokens_decoder(dir, t, err);
}
