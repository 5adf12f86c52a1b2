/* The strict, schema-driven parser of safetensors headers (see st_json.h for why and what). */
#include "st_json.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st_dtype.h"

typedef struct parser {
  const unsigned char *s;
  size_t n, i;
  const char *path;
  tool_error *err;
  const char *tensor; /* the entry being read, for messages, or NULL */
} parser;

static int fail_at(parser *p, size_t at, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(parser *p, size_t at, const char *format, ...) {
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

static int oom(parser *p) {
  return tool_fail(p->err, CLI_EXIT_SOFTWARE, "out of memory reading the header of '%s'", p->path);
}

static void ws(parser *p) {
  while (p->i < p->n &&
         (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) {
    p->i++;
  }
}

static int peek(parser *p) {
  return p->i < p->n ? p->s[p->i] : -1;
}

static int expect(parser *p, char c, const char *what) {
  ws(p);
  if (peek(p) != (unsigned char)c) {
    if (p->i >= p->n) {
      return fail_at(p, p->i, "invalid header JSON: the header ends where %s was expected", what);
    }
    return fail_at(p, p->i, "invalid header JSON: %s expected", what);
  }
  p->i++;
  return 0;
}

static const char *kind_of(int c) {
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

static int hex4(parser *p, size_t at, uint32_t *out) {
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
static int parse_string(parser *p, char **out, const char *what) {
  ws(p);
  if (peek(p) != '"') {
    return fail_at(p, p->i, "%s is %s, not a string", what, kind_of(peek(p)));
  }
  size_t start = ++p->i;
  size_t end = start;
  /* Find the end first: the decoded string is never longer than the raw one. */
  while (end < p->n && p->s[end] != '"') {
    end += p->s[end] == '\\' ? 2 : 1;
  }
  if (end >= p->n) {
    return fail_at(p, start - 1, "invalid header JSON: the string never ends");
  }
  char *buf = malloc(end - start + 1);
  if (buf == NULL) {
    return oom(p);
  }
  size_t len = 0;
  size_t i = start;
  while (i < end) {
    unsigned char c = p->s[i];
    if (c < 0x20) {
      free(buf);
      return fail_at(p, i, "invalid header JSON: control character 0x%02x in a string", c);
    }
    if (c >= 0x80) {
      size_t k = utf8_sequence(p->s, end, i);
      if (k == 0) {
        free(buf);
        return fail_at(p, i, "invalid header JSON: invalid UTF-8 (byte 0x%02x)", c);
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
      return fail_at(p, i, "invalid header JSON: invalid escape in a string");
    }
    size_t used = 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (i + 12 > end || p->s[i + 6] != '\\' || p->s[i + 7] != 'u' || hex4(p, i + 8, &low) != 0 ||
          low < 0xDC00 || low > 0xDFFF) {
        free(buf);
        return fail_at(p, i, "invalid header JSON: unpaired surrogate \\u%04x", cp);
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      used = 12;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      free(buf);
      return fail_at(p, i, "invalid header JSON: unpaired surrogate \\u%04x", cp);
    } else if (cp == 0) {
      free(buf);
      return fail_at(p, i, "invalid header JSON: \\u0000 (NUL) in a string");
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
static int parse_uint(parser *p, int64_t *out, const char *what) {
  ws(p);
  size_t start = p->i;
  int c = peek(p);
  if (c != '-' && (c < '0' || c > '9')) {
    return fail_at(p, start, "%s is %s, not an integer", what, kind_of(c));
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
    return fail_at(p, start, "%s is %.*s, not an integer from 0 to 2^63-1", what,
                   (int)(end - start < 40 ? end - start : 40), (const char *)p->s + start);
  }
  p->i = end;
  *out = (int64_t)v;
  return 0;
}

/* ',' or the closing bracket: returns 1 for more, 0 at the end, or an error status (> 1). */
static int next_item(parser *p, char close, const char *in) {
  ws(p);
  int c = peek(p);
  if (c == ',') {
    p->i++;
    return 1;
  }
  if (c == (unsigned char)close) {
    p->i++;
    return 0;
  }
  int rc = fail_at(p, p->i, "invalid header JSON: ',' or '%c' expected in %s", close, in);
  return rc;
}

static int parse_int_array(parser *p, int64_t *values, int max, int *count, const char *what) {
  ws(p);
  if (peek(p) != '[') {
    return fail_at(p, p->i, "%s is %s, not an array", what, kind_of(peek(p)));
  }
  size_t open = p->i++;
  *count = 0;
  ws(p);
  if (peek(p) == ']') {
    p->i++;
    return 0;
  }
  for (;;) {
    char item[64];
    snprintf(item, sizeof item, "%s[%d]", what, *count);
    int64_t v = 0;
    int rc = parse_uint(p, &v, item);
    if (rc != 0) {
      return rc;
    }
    if (*count >= max) {
      return fail_at(p, open, "%s has more than %d entries", what, max);
    }
    values[(*count)++] = v;
    rc = next_item(p, ']', what);
    if (rc == 0) {
      return 0;
    }
    if (rc > 1) {
      return rc;
    }
  }
}

static int parse_tensor(parser *p, ckpt_tensor *t) {
  ws(p);
  if (peek(p) != '{') {
    return fail_at(p, p->i, "the entry is %s, not an object", kind_of(peek(p)));
  }
  p->i++;
  int seen_dtype = 0, seen_shape = 0, seen_offsets = 0;
  ws(p);
  if (peek(p) == '}') {
    p->i++;
    return fail_at(p, t->entry_pos - 8, "the field 'dtype' is missing");
  }
  for (;;) {
    ws(p);
    size_t key_at = p->i;
    char *key = NULL;
    int rc = parse_string(p, &key, "a key");
    if (rc == 0) {
      rc = expect(p, ':', "':'");
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
      rc = fail_at(p, key_at, "unknown field '%.100s' (allowed: dtype, shape, data_offsets)", key);
    } else if (*seen) {
      rc = fail_at(p, key_at, "duplicate field '%s'", key);
    }
    if (rc != 0) {
      free(key);
      return rc;
    }
    *seen = 1;
    if (seen == &seen_dtype) {
      char *name = NULL;
      size_t at = (ws(p), p->i);
      rc = parse_string(p, &name, "dtype");
      if (rc == 0) {
        t->dtype = st_dtype_find(name);
        if (t->dtype == NULL) {
          rc = fail_at(p, at, "unknown dtype '%.40s'", name);
        }
      }
      free(name);
    } else if (seen == &seen_shape) {
      int64_t dims[CKPT_MAX_RANK];
      int count = 0;
      rc = parse_int_array(p, dims, CKPT_MAX_RANK, &count, "shape");
      if (rc == 0 && count > 0) {
        t->shape = malloc((size_t)count * sizeof *t->shape);
        if (t->shape == NULL) {
          rc = oom(p);
        } else {
          memcpy(t->shape, dims, (size_t)count * sizeof *dims);
          t->ndim = count;
        }
      }
    } else {
      int64_t offsets[2];
      int count = 0;
      size_t at = (ws(p), p->i);
      rc = parse_int_array(p, offsets, 2, &count, "data_offsets");
      if (rc == 0 && count != 2) {
        rc = fail_at(p, at, "data_offsets holds %d %s, not 2", count,
                     tool_plural((uint64_t)count, "integer", "integers"));
      } else if (rc == 0 && offsets[1] < offsets[0]) {
        rc = fail_at(p, at, "data_offsets [%lld,%lld] ends before it begins", (long long)offsets[0],
                     (long long)offsets[1]);
      } else if (rc == 0) {
        t->offset = (uint64_t)offsets[0];
        t->bytes = (uint64_t)(offsets[1] - offsets[0]);
      }
    }
    free(key);
    if (rc != 0) {
      return rc;
    }
    rc = next_item(p, '}', "a tensor entry");
    if (rc == 0) {
      break;
    }
    if (rc > 1) {
      return rc;
    }
  }
  if (!seen_dtype || !seen_shape || !seen_offsets) {
    return fail_at(p, t->entry_pos - 8, "the field '%s' is missing",
                   !seen_dtype   ? "dtype"
                   : !seen_shape ? "shape"
                                 : "data_offsets");
  }
  return 0;
}

static int meta_cmp(const void *a, const void *b) {
  return strcmp(((const ckpt_meta *)a)->key, ((const ckpt_meta *)b)->key);
}

static int parse_metadata(parser *p, ckpt_file *out) {
  ws(p);
  if (peek(p) != '{') {
    return fail_at(p, p->i, "__metadata__ is %s, not an object", kind_of(peek(p)));
  }
  p->i++;
  out->has_meta = 1;
  size_t cap = 0;
  ws(p);
  if (peek(p) == '}') {
    p->i++;
    return 0;
  }
  for (;;) {
    if (out->meta_count == cap) {
      cap = cap ? cap * 2 : 8;
      ckpt_meta *m = realloc(out->meta, cap * sizeof *m);
      if (m == NULL) {
        return oom(p);
      }
      out->meta = m;
    }
    ckpt_meta *m = &out->meta[out->meta_count];
    m->key = m->value = NULL;
    ws(p);
    size_t key_at = p->i;
    int rc = parse_string(p, &m->key, "a __metadata__ key");
    if (rc == 0) {
      out->meta_count++;
      rc = expect(p, ':', "':'");
    }
    if (rc == 0) {
      char what[300];
      snprintf(what, sizeof what, "__metadata__ '%.200s' (metadata maps strings to strings)",
               m->key);
      rc = parse_string(p, &m->value, what);
    }
    if (rc == 0) {
      m->value_size = strlen(m->value); /* the parser refuses \u0000 */
      m->kind = CKPT_META_TEXT;
    }
    if (rc == 0) {
      for (size_t k = 0; k + 1 < out->meta_count; k++) {
        if (strcmp(out->meta[k].key, m->key) == 0) {
          rc = fail_at(p, key_at, "duplicate __metadata__ key '%.200s'", m->key);
          break;
        }
      }
    }
    if (rc == 0) {
      rc = next_item(p, '}', "__metadata__");
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
static int check_duplicates(parser *p, ckpt_file *out) {
  if (out->tensor_count < 2) {
    return 0;
  }
  const ckpt_tensor **order = malloc(out->tensor_count * sizeof *order);
  if (order == NULL) {
    return oom(p);
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
      rc = fail_at(p, later->entry_pos - 8, "duplicate tensor name '%.200s'", later->name);
      break;
    }
  }
  free(order);
  return rc;
}

int st_json_header(const char *path, const char *text, size_t size, ckpt_file *out,
                   tool_error *err) {
  parser p = {(const unsigned char *)text, size, 0, path, err, NULL};
  if (size == 0 || text[0] != '{') {
    return fail_at(&p, 0, "the header does not start with '{' (is this a safetensors file?)");
  }
  p.i = 1;
  size_t cap = 0;
  int seen_meta = 0;
  ws(&p);
  int rc = 0;
  if (peek(&p) == '}') {
    p.i++;
  } else {
    for (;;) {
      ws(&p);
      size_t key_at = p.i;
      char *key = NULL;
      p.tensor = NULL;
      rc = parse_string(&p, &key, "a key");
      if (rc == 0) {
        rc = expect(&p, ':', "':'");
      }
      if (rc != 0) {
        free(key);
        break;
      }
      if (strcmp(key, "__metadata__") == 0) {
        free(key);
        rc = seen_meta ? fail_at(&p, key_at, "duplicate key '__metadata__'") : 0;
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
            rc = oom(&p);
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
        rc = next_item(&p, '}', "the header");
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
    size_t end = p.i;
    while (p.i < p.n && p.s[p.i] == ' ') {
      p.i++;
    }
    if (p.i < p.n) {
      rc = fail_at(&p, end,
                   "the header's JSON must end with '}' followed only by space "
                   "padding");
    }
  }
  if (rc == 0) {
    rc = check_duplicates(&p, out);
  }
  return rc;
}
