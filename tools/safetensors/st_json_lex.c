/* The lexical layer of the safetensors header parser: strings (UTF-8 and escapes checked),
 * integers, separators, and whole JSON values skipped (st_json_lex.h). */
#include "st_json_lex.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stj_fail_at(stj_parser *p, size_t at, const char *format, ...) {
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

int stj_oom(stj_parser *p) {
  return tool_fail(p->err, CLI_EXIT_SOFTWARE, "out of memory reading the header of '%s'", p->path);
}

void stj_ws(stj_parser *p) {
  while (p->i < p->n &&
         (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) {
    p->i++;
  }
}

int stj_peek(stj_parser *p) {
  return p->i < p->n ? p->s[p->i] : -1;
}

int stj_expect(stj_parser *p, char c, const char *what) {
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

const char *stj_kind_of(int c) {
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
int stj_string(stj_parser *p, char **out, const char *what) {
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
int stj_uint(stj_parser *p, int64_t *out, const char *what) {
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
int stj_next_item(stj_parser *p, char close, const char *in) {
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

int stj_int_array(stj_parser *p, int64_t *values, int max, int *count, const char *what) {
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
int stj_skip_value(stj_parser *p, int depth) {
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
