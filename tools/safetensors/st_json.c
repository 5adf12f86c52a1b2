/* The safetensors header parser (st_json.h says why a parser of its own, and what it accepts):
 * its lexical layer (the JSON tokens of the header text), then the schema (tensor entries,
 * __metadata__, the header as a whole). */
#include "st_json.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "st_dtype.h"

/* ---- the lexical layer ------------------------------------------------------------------ */

/*
 * The lexical layer of the safetensors header parser (the schema follows it): a cursor over
 * the header text, and the tokens of JSON read from it, each failure recorded in the parser's
 * tool_error as "PATH: byte N: [tensor 'NAME': ]WHAT" with N the offset in the file.
 */
/** The cursor: the header text s[0..n), the position i, and where failures and notes go. */
typedef struct stj_parser {
  const unsigned char *s;
  size_t n, i;
  const char *path;
  tool_error *err;
  const char *tensor;     /* the entry being read, for messages, or NULL */
  st_header_notes *notes; /* the departures accepted */
} stj_parser;

/** Values nested deeper than this in an unknown field are refused (the parser recurses). */
#define SKIP_MAX_DEPTH 64

/** Records "PATH: byte (8 + at): [tensor 'T': ]MESSAGE" with CLI_EXIT_DATA; returns it. */
static int stj_fail_at(stj_parser *p, size_t at, const char *format, ...) TOOL_PRINTF(3, 4);

/** Records running out of memory (CLI_EXIT_SOFTWARE); returns it. */
static int stj_oom(stj_parser *p);

/** Skips JSON whitespace (space, tab, newline, carriage return). */
static void stj_ws(stj_parser *p);

/** The byte at the cursor, or -1 at the end. */
static int stj_peek(stj_parser *p);

/** Skips whitespace, then requires the byte `c` (`what` names it in the message). Returns 0 or
 * the failure's status. */
static int stj_expect(stj_parser *p, char c, const char *what);

/** What a value starting with byte `c` is, for messages ("a string", "a number", ...). */
static const char *stj_kind_of(int c);

/** Reads a string (valid UTF-8, no NUL, no raw control character, escaped surrogates paired)
 * into a malloc'd, NUL-terminated `*out` (the caller frees it). `what` names it in messages.
 * Returns 0 or the failure's status. */
static int stj_string(stj_parser *p, char **out, const char *what);

/** Reads a number that must be a plain integer from 0 to 2^63-1. */
static int stj_uint(stj_parser *p, int64_t *out, const char *what);

/** Reads ',' (returns 1: more items) or `close` (returns 0), or fails (returns a status > 1). */
static int stj_next_item(stj_parser *p, char close, const char *in);

/** Reads an array of at most `max` plain integers into `values`, their number into `*count`. */
static int stj_int_array(stj_parser *p, int64_t *values, int max, int *count, const char *what);

/** Skips one JSON value of any kind, checked as a JSON parser checks it (strings as
 * stj_string; numbers by RFC 8259's grammar; nesting at most SKIP_MAX_DEPTH). */
static int stj_skip_value(stj_parser *p, int depth);

static int stj_fail_at(stj_parser *p, size_t at, const char *format, ...) {
  char what[600];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  if (p->tensor != NULL) {
    return tool_fail(p->err, CLI_EXIT_DATA, "%s: byte %llu: tensor '%.200s': %s", p->path,
                     (unsigned long long)(8 + at), p->tensor, what);
  }
  return tool_fail(p->err, CLI_EXIT_DATA, "%s: byte %llu: %s", p->path,
                   (unsigned long long)(8 + at), what);
}

static int stj_oom(stj_parser *p) {
  return tool_fail(p->err, CLI_EXIT_SOFTWARE, "out of memory reading the header of '%s'", p->path);
}

static void stj_ws(stj_parser *p) {
  while (p->i < p->n &&
         (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) {
    p->i++;
  }
}

static int stj_peek(stj_parser *p) {
  return p->i < p->n ? p->s[p->i] : -1;
}

static int stj_expect(stj_parser *p, char c, const char *what) {
  stj_ws(p);
  if (stj_peek(p) != (unsigned char)c) {
    if (p->i >= p->n) {
      return stj_fail_at(p, p->i, "invalid header JSON: the header ends where %s was expected",
                         what);
    }
    return stj_fail_at(p, p->i, "invalid header JSON: %s expected", what);
  }
  p->i++;
  return 0;
}

static const char *stj_kind_of(int c) {
  switch (c) {
  case '"':
    return "a string";
  case '{':
    return "an object";
  case '[':
    return "an array";
  case 't':
  case 'f':
    return "a boolean";
  case 'n':
    return "null";
  case -1:
    return "the end of the header";
  default:
    return (c >= '0' && c <= '9') || c == '-' ? "a number" : "not JSON";
  }
}

static void put_utf8(char *out, size_t *len, uint32_t cp) {
  if (cp < 0x80) {
    out[(*len)++] = (char)cp;
  } else if (cp < 0x800) {
    out[(*len)++] = (char)(0xC0 | cp >> 6);
    out[(*len)++] = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out[(*len)++] = (char)(0xE0 | cp >> 12);
    out[(*len)++] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[(*len)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    out[(*len)++] = (char)(0xF0 | cp >> 18);
    out[(*len)++] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[(*len)++] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[(*len)++] = (char)(0x80 | (cp & 0x3F));
  }
}

static int hex4(stj_parser *p, size_t at, uint32_t *out) {
  if (p->n - at < 4) {
    return -1;
  }
  uint32_t v = 0;
  for (size_t k = 0; k < 4; k++) {
    int c = p->s[at + k];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) {
      return -1;
    }
    v = v << 4 | (uint32_t)d;
  }
  *out = v;
  return 0;
}

/* Length of the valid UTF-8 sequence at s[i] (lead byte >= 0x80), or 0. */
static size_t utf8_sequence(const unsigned char *s, size_t n, size_t i) {
  unsigned char c = s[i];
  size_t len;
  uint32_t cp, min;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (n - i < len) {
    return 0;
  }
  for (size_t k = 1; k < len; k++) {
    if ((s[i + k] & 0xC0) != 0x80) {
      return 0;
    }
    cp = cp << 6 | (s[i + k] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
}

/* Reads a string into a malloc'd, NUL-terminated buffer. */
static int stj_string(stj_parser *p, char **out, const char *what) {
  stj_ws(p);
  if (stj_peek(p) != '"') {
    return stj_fail_at(p, p->i, "%s is %s, not a string", what, stj_kind_of(stj_peek(p)));
  }
  size_t start = ++p->i;
  size_t end = start;
  /* Find the end first: the decoded string is never longer than the raw one. */
  while (end < p->n && p->s[end] != '"') {
    end += p->s[end] == '\\' ? 2 : 1;
  }
  if (end >= p->n) {
    return stj_fail_at(p, start - 1, "invalid header JSON: the string never ends");
  }
  char *buf = malloc(end - start + 1);
  if (buf == NULL) {
    return stj_oom(p);
  }
  size_t len = 0;
  size_t i = start;
  while (i < end) {
    unsigned char c = p->s[i];
    if (c < 0x20) {
      free(buf);
      return stj_fail_at(p, i, "invalid header JSON: control character 0x%02x in a string", c);
    }
    if (c >= 0x80) {
      size_t k = utf8_sequence(p->s, end, i);
      if (k == 0) {
        free(buf);
        return stj_fail_at(p, i, "invalid header JSON: invalid UTF-8 (byte 0x%02x)", c);
      }
      memcpy(buf + len, p->s + i, k);
      len += k;
      i += k;
      continue;
    }
    if (c != '\\') {
      buf[len++] = (char)c;
      i++;
      continue;
    }
    unsigned char e = p->s[i + 1];
    const char *simple = strchr("\"\\/bfnrt", e);
    if (e != '\0' && simple != NULL && e != 'u') {
      static const char decoded[] = "\"\\/\b\f\n\r\t";
      buf[len++] = decoded[simple - "\"\\/bfnrt"];
      i += 2;
      continue;
    }
    uint32_t cp, low;
    if (e != 'u' || hex4(p, i + 2, &cp) != 0) {
      free(buf);
      return stj_fail_at(p, i, "invalid header JSON: invalid escape in a string");
    }
    size_t used = 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (i + 12 > end || p->s[i + 6] != '\\' || p->s[i + 7] != 'u' || hex4(p, i + 8, &low) != 0 ||
          low < 0xDC00 || low > 0xDFFF) {
        free(buf);
        return stj_fail_at(p, i, "invalid header JSON: unpaired surrogate \\u%04x", cp);
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      used = 12;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      free(buf);
      return stj_fail_at(p, i, "invalid header JSON: unpaired surrogate \\u%04x", cp);
    } else if (cp == 0) {
      free(buf);
      return stj_fail_at(p, i, "invalid header JSON: \\u0000 (NUL) in a string");
    }
    put_utf8(buf, &len, cp);
    i += used;
  }
  buf[len] = '\0';
  p->i = end + 1;
  *out = buf;
  return 0;
}

/* A number that must be a plain integer from 0 to 2^63-1. */
static int stj_uint(stj_parser *p, int64_t *out, const char *what) {
  stj_ws(p);
  size_t start = p->i;
  int c = stj_peek(p);
  if (c != '-' && (c < '0' || c > '9')) {
    return stj_fail_at(p, start, "%s is %s, not an integer", what, stj_kind_of(c));
  }
  /* The whole number token, for the message. */
  size_t end = start;
  while (end < p->n && strchr("+-.eE0123456789", p->s[end]) != NULL && p->s[end] != '\0') {
    end++;
  }
  int plain = c != '-' && (p->s[start] != '0' || end - start == 1);
  uint64_t v = 0;
  for (size_t k = start; k < end && plain; k++) {
    unsigned char d = p->s[k];
    if (d < '0' || d > '9' || v > (uint64_t)(INT64_MAX - (d - '0')) / 10) {
      plain = 0;
      break;
    }
    v = v * 10 + (uint64_t)(d - '0');
  }
  if (!plain) {
    return stj_fail_at(p, start, "%s is %.*s, not an integer from 0 to 2^63-1", what,
                       (int)(end - start < 40 ? end - start : 40), (const char *)p->s + start);
  }
  p->i = end;
  *out = (int64_t)v;
  return 0;
}

/* ',' or the closing bracket: returns 1 for more, 0 at the end, or an error status (> 1). */
static int stj_next_item(stj_parser *p, char close, const char *in) {
  stj_ws(p);
  int c = stj_peek(p);
  if (c == ',') {
    p->i++;
    return 1;
  }
  if (c == (unsigned char)close) {
    p->i++;
    return 0;
  }
  int rc = stj_fail_at(p, p->i, "invalid header JSON: ',' or '%c' expected in %s", close, in);
  return rc;
}

static int stj_int_array(stj_parser *p, int64_t *values, int max, int *count, const char *what) {
  stj_ws(p);
  if (stj_peek(p) != '[') {
    return stj_fail_at(p, p->i, "%s is %s, not an array", what, stj_kind_of(stj_peek(p)));
  }
  size_t open = p->i++;
  *count = 0;
  stj_ws(p);
  if (stj_peek(p) == ']') {
    p->i++;
    return 0;
  }
  for (;;) {
    char item[64];
    snprintf(item, sizeof item, "%s[%d]", what, *count);
    int64_t v = 0;
    int rc = stj_uint(p, &v, item);
    if (rc != 0) {
      return rc;
    }
    if (*count >= max) {
      return stj_fail_at(p, open, "%s has more than %d entries", what, max);
    }
    values[(*count)++] = v;
    rc = stj_next_item(p, ']', what);
    if (rc == 0) {
      return 0;
    }
    if (rc > 1) {
      return rc;
    }
  }
}

/* The literal `word` at the cursor. */
static int skip_literal(stj_parser *p, const char *word) {
  size_t n = strlen(word);
  if (p->n - p->i < n || memcmp(p->s + p->i, word, n) != 0) {
    return stj_fail_at(p, p->i, "invalid header JSON: not a JSON value");
  }
  p->i += n;
  return 0;
}

/* A JSON number (RFC 8259's grammar) at the cursor. */
static int skip_number(stj_parser *p) {
  size_t start = p->i, i = p->i;
  i += i < p->n && p->s[i] == '-';
  size_t digits = i;
  while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') {
    i++;
  }
  int ok = i > digits && (p->s[digits] != '0' || i - digits == 1);
  if (ok && i < p->n && p->s[i] == '.') {
    size_t frac = ++i;
    while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') {
      i++;
    }
    ok = i > frac;
  }
  if (ok && i < p->n && (p->s[i] == 'e' || p->s[i] == 'E')) {
    i++;
    i += i < p->n && (p->s[i] == '+' || p->s[i] == '-');
    size_t exp = i;
    while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') {
      i++;
    }
    ok = i > exp;
  }
  if (!ok) {
    return stj_fail_at(p, start, "invalid header JSON: malformed number");
  }
  p->i = i;
  return 0;
}

/* Any JSON value (the value of an unknown field): checked as the reference's stj_parser checks it,
 * then dropped. */
static int stj_skip_value(stj_parser *p, int depth) {
  stj_ws(p);
  int c = stj_peek(p);
  if (depth >= SKIP_MAX_DEPTH && (c == '{' || c == '[')) {
    return stj_fail_at(p, p->i, "an unknown field's value is nested deeper than %d levels",
                       SKIP_MAX_DEPTH);
  }
  if (c == '"') {
    char *text = NULL;
    int rc = stj_string(p, &text, "a value");
    free(text);
    return rc;
  }
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    p->i++;
    stj_ws(p);
    if (stj_peek(p) == (unsigned char)close) {
      p->i++;
      return 0;
    }
    for (;;) {
      int rc = 0;
      if (c == '{') {
        char *key = NULL;
        rc = stj_string(p, &key, "a key");
        free(key);
        rc = rc != 0 ? rc : stj_expect(p, ':', "':'");
      }
      rc = rc != 0 ? rc : stj_skip_value(p, depth + 1);
      rc = rc != 0 ? rc : stj_next_item(p, close, c == '{' ? "an object" : "an array");
      if (rc != 1) {
        return rc;
      }
    }
  }
  if (c == 't' || c == 'f' || c == 'n') {
    return skip_literal(p, c == 't' ? "true" : c == 'f' ? "false" : "null");
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    return skip_number(p);
  }
  return stj_fail_at(p, p->i, "invalid header JSON: a value expected, found %s", stj_kind_of(c));
}

/* ---- the schema ------------------------------------------------------------------------- */

/* An unknown field of a tensor entry: the reference reader ignores it; so does this one, after
 * checking that its value is JSON, and the first one is named in the report. */
static int skip_unknown_field(stj_parser *p, const char *key, size_t key_at) {
  st_header_notes *n = p->notes;
  if (n->unknown++ == 0) {
    n->unknown_at = key_at;
    snprintf(n->unknown_field, sizeof n->unknown_field, "%s", key);
    snprintf(n->unknown_tensor, sizeof n->unknown_tensor, "%s", p->tensor);
  }
  return stj_skip_value(p, 0);
}

static int parse_tensor(stj_parser *p, ckpt_tensor *t) {
  stj_ws(p);
  if (stj_peek(p) != '{') {
    return stj_fail_at(p, p->i, "the entry is %s, not an object", stj_kind_of(stj_peek(p)));
  }
  p->i++;
  int seen_dtype = 0, seen_shape = 0, seen_offsets = 0;
  stj_ws(p);
  if (stj_peek(p) == '}') {
    p->i++;
    return stj_fail_at(p, t->entry_pos - 8, "the field 'dtype' is missing");
  }
  for (;;) {
    stj_ws(p);
    size_t key_at = p->i;
    char *key = NULL;
    int rc = stj_string(p, &key, "a key");
    if (rc == 0) {
      rc = stj_expect(p, ':', "':'");
    }
    if (rc != 0) {
      free(key);
      return rc;
    }
    int *seen = strcmp(key, "dtype") == 0          ? &seen_dtype
                : strcmp(key, "shape") == 0        ? &seen_shape
                : strcmp(key, "data_offsets") == 0 ? &seen_offsets
                                                   : NULL;
    if (seen == NULL) {
      rc = skip_unknown_field(p, key, key_at);
    } else if (*seen) {
      rc = stj_fail_at(p, key_at, "duplicate field '%s'", key);
    }
    if (rc != 0) {
      free(key);
      return rc;
    }
    if (seen != NULL) {
      *seen = 1;
    }
    if (seen == NULL) {
      /* skipped above */
    } else if (seen == &seen_dtype) {
      char *name = NULL;
      size_t at = (stj_ws(p), p->i);
      rc = stj_string(p, &name, "dtype");
      if (rc == 0) {
        t->dtype = st_dtype_find(name);
        if (t->dtype == NULL) {
          rc = stj_fail_at(p, at, "unknown dtype '%.40s'", name);
        }
      }
      free(name);
    } else if (seen == &seen_shape) {
      int64_t dims[CKPT_MAX_RANK];
      int count = 0;
      rc = stj_int_array(p, dims, CKPT_MAX_RANK, &count, "shape");
      if (rc == 0 && count > 0) {
        t->shape = malloc((size_t)count * sizeof *t->shape);
        if (t->shape == NULL) {
          rc = stj_oom(p);
        } else {
          memcpy(t->shape, dims, (size_t)count * sizeof *dims);
          t->ndim = count;
        }
      }
    } else {
      int64_t offsets[2];
      int count = 0;
      size_t at = (stj_ws(p), p->i);
      rc = stj_int_array(p, offsets, 2, &count, "data_offsets");
      if (rc == 0 && count != 2) {
        rc = stj_fail_at(p, at, "data_offsets holds %d %s, not 2", count,
                         tool_plural((uint64_t)count, "integer", "integers"));
      } else if (rc == 0 && offsets[1] < offsets[0]) {
        rc = stj_fail_at(p, at, "data_offsets [%lld,%lld] ends before it begins",
                         (long long)offsets[0], (long long)offsets[1]);
      } else if (rc == 0) {
        t->offset = (uint64_t)offsets[0];
        t->bytes = (uint64_t)(offsets[1] - offsets[0]);
      }
    }
    free(key);
    if (rc != 0) {
      return rc;
    }
    rc = stj_next_item(p, '}', "a tensor entry");
    if (rc == 0) {
      break;
    }
    if (rc > 1) {
      return rc;
    }
  }
  if (!seen_dtype || !seen_shape || !seen_offsets) {
    return stj_fail_at(p, t->entry_pos - 8, "the field '%s' is missing",
                       !seen_dtype   ? "dtype"
                       : !seen_shape ? "shape"
                                     : "data_offsets");
  }
  return 0;
}

static int meta_cmp(const void *a, const void *b) {
  return strcmp(((const ckpt_meta *)a)->key, ((const ckpt_meta *)b)->key);
}

static int parse_metadata(stj_parser *p, ckpt_file *out) {
  stj_ws(p);
  if (stj_peek(p) != '{') {
    return stj_fail_at(p, p->i, "__metadata__ is %s, not an object", stj_kind_of(stj_peek(p)));
  }
  p->i++;
  out->has_meta = 1;
  size_t cap = 0;
  stj_ws(p);
  if (stj_peek(p) == '}') {
    p->i++;
    return 0;
  }
  for (;;) {
    if (out->meta_count == cap) {
      cap = cap ? cap * 2 : 8;
      ckpt_meta *m = realloc(out->meta, cap * sizeof *m);
      if (m == NULL) {
        return stj_oom(p);
      }
      out->meta = m;
    }
    ckpt_meta *m = &out->meta[out->meta_count];
    m->key = m->value = NULL;
    stj_ws(p);
    size_t key_at = p->i;
    int rc = stj_string(p, &m->key, "a __metadata__ key");
    if (rc == 0) {
      out->meta_count++;
      rc = stj_expect(p, ':', "':'");
    }
    if (rc == 0) {
      char what[300];
      snprintf(what, sizeof what, "__metadata__ '%.200s' (metadata maps strings to strings)",
               m->key);
      rc = stj_string(p, &m->value, what);
    }
    if (rc == 0) {
      m->value_size = strlen(m->value); /* the stj_parser refuses \u0000 */
      m->kind = CKPT_META_TEXT;
    }
    if (rc == 0) {
      for (size_t k = 0; k + 1 < out->meta_count; k++) {
        if (strcmp(out->meta[k].key, m->key) == 0) {
          rc = stj_fail_at(p, key_at, "duplicate __metadata__ key '%.200s'", m->key);
          break;
        }
      }
    }
    if (rc == 0) {
      rc = stj_next_item(p, '}', "__metadata__");
      if (rc == 0) {
        break;
      }
      rc = rc == 1 ? 0 : rc;
    }
    if (rc != 0) {
      return rc;
    }
  }
  qsort(out->meta, out->meta_count, sizeof *out->meta, meta_cmp);
  return 0;
}

static int by_name(const void *a, const void *b) {
  const ckpt_tensor *const *x = a, *const *y = b;
  return strcmp((*x)->name, (*y)->name);
}

/* Duplicate tensor names: sorted pointers, neighbours compared. */
static int check_duplicates(stj_parser *p, ckpt_file *out) {
  if (out->tensor_count < 2) {
    return 0;
  }
  const ckpt_tensor **order = malloc(out->tensor_count * sizeof *order);
  if (order == NULL) {
    return stj_oom(p);
  }
  for (size_t i = 0; i < out->tensor_count; i++) {
    order[i] = &out->tensors[i];
  }
  qsort(order, out->tensor_count, sizeof *order, by_name);
  int rc = 0;
  for (size_t i = 1; i < out->tensor_count; i++) {
    if (strcmp(order[i - 1]->name, order[i]->name) == 0) {
      const ckpt_tensor *later =
          order[i]->entry_pos > order[i - 1]->entry_pos ? order[i] : order[i - 1];
      p->tensor = NULL;
      rc = stj_fail_at(p, later->entry_pos - 8, "duplicate tensor name '%.200s'", later->name);
      break;
    }
  }
  free(order);
  return rc;
}

int st_json_header(const char *path, const char *text, size_t size, ckpt_file *out,
                   st_header_notes *notes, tool_error *err) {
  memset(notes, 0, sizeof *notes);
  stj_parser p = {(const unsigned char *)text, size, 0, path, err, NULL, notes};
  /* The reference reader skips JSON whitespace before the '{'; the canonical form has none. */
  stj_ws(&p);
  if (p.i == size || text[p.i] != '{') {
    return stj_fail_at(&p, p.i, "the header does not start with '{' (is this a safetensors file?)");
  }
  notes->leading = p.i;
  p.i++;
  size_t cap = 0;
  int seen_meta = 0;
  stj_ws(&p);
  int rc = 0;
  if (stj_peek(&p) == '}') {
    p.i++;
  } else {
    for (;;) {
      stj_ws(&p);
      size_t key_at = p.i;
      char *key = NULL;
      p.tensor = NULL;
      rc = stj_string(&p, &key, "a key");
      if (rc == 0) {
        rc = stj_expect(&p, ':', "':'");
      }
      if (rc != 0) {
        free(key);
        break;
      }
      if (strcmp(key, "__metadata__") == 0) {
        free(key);
        rc = seen_meta ? stj_fail_at(&p, key_at, "duplicate key '__metadata__'") : 0;
        seen_meta = 1;
        if (rc == 0) {
          rc = parse_metadata(&p, out);
        }
      } else {
        if (out->tensor_count == cap) {
          cap = cap ? cap * 2 : 64;
          ckpt_tensor *t = realloc(out->tensors, cap * sizeof *t);
          if (t == NULL) {
            free(key);
            rc = stj_oom(&p);
            break;
          }
          out->tensors = t;
        }
        ckpt_tensor *t = &out->tensors[out->tensor_count++];
        memset(t, 0, sizeof *t);
        t->name = key;
        t->entry_pos = 8 + key_at;
        p.tensor = key;
        rc = parse_tensor(&p, t);
        p.tensor = NULL;
      }
      if (rc == 0) {
        rc = stj_next_item(&p, '}', "the header");
        if (rc == 0) {
          break;
        }
        rc = rc == 1 ? 0 : rc;
      }
      if (rc != 0) {
        break;
      }
    }
  }
  if (rc == 0) {
    /* Padding: spaces (the reference writer's); NUL bytes (some writers') and other JSON
     * whitespace are accepted as departures. */
    size_t end = p.i;
    for (; p.i < p.n; p.i++) {
      unsigned char c = p.s[p.i];
      if (c == 0) {
        notes->padding_nul = 1;
      } else if (c == '\t' || c == '\n' || c == '\r') {
        notes->padding_ws = 1;
      } else if (c != ' ') {
        break;
      }
    }
    notes->padding_at = end;
    if (p.i < p.n) {
      rc = stj_fail_at(&p, end,
                       "the header's JSON must end with '}' followed only by padding (spaces; NUL "
                       "bytes and other whitespace are accepted)");
    }
  }
  if (rc == 0) {
    rc = check_duplicates(&p, out);
  }
  return rc;
}

int st_json_report_notes(const char *path, const st_header_notes *notes, st_leniency *lenient,
                         tool_error *err) {
  int rc = 0;
  if (notes->leading > 0) {
    rc = st_depart(lenient, err, "%s: byte 8: %zu %s of whitespace before the header's '{'", path,
                   notes->leading, tool_plural(notes->leading, "byte", "bytes"));
  }
  if (rc == 0 && (notes->padding_nul || notes->padding_ws)) {
    rc = st_depart(lenient, err,
                   "%s: byte %llu: the header is padded with %s after its '}', not with spaces",
                   path, (unsigned long long)(8 + notes->padding_at),
                   notes->padding_nul && notes->padding_ws ? "NUL bytes and whitespace"
                   : notes->padding_nul                    ? "NUL bytes"
                                                           : "tabs or line breaks");
  }
  if (rc == 0 && notes->unknown > 0) {
    char more[96] = "";
    if (notes->unknown > 1) {
      snprintf(more, sizeof more, "; %zu unknown %s in this header in all", notes->unknown,
               tool_plural(notes->unknown, "field", "fields"));
    }
    rc = st_depart(lenient, err,
                   "%s: byte %llu: tensor '%.160s': unknown field '%.64s' ignored (the fields are "
                   "dtype, shape and data_offsets%s)",
                   path, (unsigned long long)(8 + notes->unknown_at), notes->unknown_tensor,
                   notes->unknown_field, more);
  }
  return rc;
}
