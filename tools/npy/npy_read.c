/* Parsing .npy headers from memory: the preamble and the header dictionary. */
#include "npy.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static int fail(char *msg, size_t msg_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t msg_size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(msg, msg_size, format, args);
  va_end(args);
  return CLI_EXIT_DATA;
}

int npy_parse_preamble(const unsigned char *bytes, size_t size, int *major, int *minor,
                       uint64_t *header_len, size_t *preamble_len, char *msg, size_t msg_size) {
  if (size < sizeof npy_magic || memcmp(bytes, npy_magic, sizeof npy_magic) != 0) {
    return fail(msg, msg_size, "it does not start with the magic string \\x93NUMPY");
  }
  if (size < 10) {
    return fail(msg, msg_size, "the file ends inside the preamble (%zu bytes)", size);
  }
  *major = bytes[6];
  *minor = bytes[7];
  if (*major < 1 || *major > 3 || *minor != 0) {
    return fail(msg, msg_size, "format version %d.%d is not one of 1.0, 2.0, 3.0", *major, *minor);
  }
  if (*major == 1) {
    *header_len = (uint64_t)bytes[8] | (uint64_t)bytes[9] << 8;
    *preamble_len = 10;
  } else {
    if (size < 12) {
      return fail(msg, msg_size, "the file ends inside the preamble (%zu bytes)", size);
    }
    *header_len = (uint64_t)bytes[8] | (uint64_t)bytes[9] << 8 | (uint64_t)bytes[10] << 16 |
                  (uint64_t)bytes[11] << 24;
    *preamble_len = 12;
  }
  if (*header_len > NPY_MAX_HEADER_BYTES) {
    return fail(msg, msg_size, "the header length %" PRIu64 " is absurd (the limit is %u bytes)",
                *header_len, (unsigned)NPY_MAX_HEADER_BYTES);
  }
  return 0;
}

/* A cursor over the header text. */
typedef struct scan {
  const char *s;
  size_t len;
  size_t pos;
  char *msg;
  size_t msg_size;
} scan;

static int peek(const scan *sc) {
  return sc->pos < sc->len ? (unsigned char)sc->s[sc->pos] : -1;
}

static void skip_ws(scan *sc) {
  while (sc->pos < sc->len) {
    char c = sc->s[sc->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
      break;
    }
    sc->pos++;
  }
}

static int syntax(scan *sc, const char *expected) {
  int c = peek(sc);
  if (c < 0) {
    return fail(sc->msg, sc->msg_size, "the header ends where %s was expected", expected);
  }
  if (c >= 0x20 && c < 0x7f) {
    return fail(sc->msg, sc->msg_size, "header offset %zu: expected %s, found '%c'", sc->pos,
                expected, c);
  }
  return fail(sc->msg, sc->msg_size, "header offset %zu: expected %s, found byte 0x%02x", sc->pos,
              expected, (unsigned)c);
}

static int expect_char(scan *sc, char c, const char *what) {
  skip_ws(sc);
  if (peek(sc) != (unsigned char)c) {
    return syntax(sc, what);
  }
  sc->pos++;
  return 0;
}

/* Reads a quoted Python string literal without escapes into out[0..size). */
static int read_string(scan *sc, char *out, size_t size, const char *what) {
  skip_ws(sc);
  int quote = peek(sc);
  if (quote != '\'' && quote != '"') {
    return syntax(sc, what);
  }
  size_t start = ++sc->pos;
  while (sc->pos < sc->len && sc->s[sc->pos] != quote) {
    if (sc->s[sc->pos] == '\\') {
      return fail(sc->msg, sc->msg_size,
                  "header offset %zu: escape sequences in strings are not supported", sc->pos);
    }
    if (sc->s[sc->pos] == '\n') {
      break;
    }
    sc->pos++;
  }
  if (sc->pos >= sc->len || sc->s[sc->pos] != quote) {
    return fail(sc->msg, sc->msg_size, "header offset %zu: unterminated string", start - 1);
  }
  size_t n = sc->pos - start;
  sc->pos++;
  if (n >= size) {
    /* Quote at most the string's own bytes: the header text is not NUL-terminated. */
    int shown = n < 40 ? (int)n : 40;
    return fail(sc->msg, sc->msg_size, "header offset %zu: the string '%.*s%s' is too long for %s",
                start, shown, sc->s + start, n > 40 ? "..." : "", what);
  }
  memcpy(out, sc->s + start, n);
  out[n] = '\0';
  return 0;
}

static int is_ident_char(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int read_bool(scan *sc, int *value) {
  skip_ws(sc);
  const char *rest = sc->s + sc->pos;
  size_t left = sc->len - sc->pos;
  size_t n = 0;
  if (left >= 4 && memcmp(rest, "True", 4) == 0) {
    *value = 1;
    n = 4;
  } else if (left >= 5 && memcmp(rest, "False", 5) == 0) {
    *value = 0;
    n = 5;
  } else {
    return syntax(sc, "True or False for 'fortran_order'");
  }
  if (n < left && is_ident_char((unsigned char)rest[n])) {
    return syntax(sc, "True or False for 'fortran_order'");
  }
  sc->pos += n;
  return 0;
}

/* Reads a non-negative Python int literal (an "L" suffix from Python 2 files is accepted). */
static int read_dim(scan *sc, int64_t *value) {
  skip_ws(sc);
  int c = peek(sc);
  if (c == '-') {
    return fail(sc->msg, sc->msg_size, "header offset %zu: the shape has a negative dimension",
                sc->pos);
  }
  if (c < '0' || c > '9') {
    return syntax(sc, "a dimension (a non-negative integer)");
  }
  size_t start = sc->pos;
  int64_t v = 0;
  while ((c = peek(sc)) >= '0' && c <= '9') {
    if (v > (INT64_MAX - (c - '0')) / 10) {
      return fail(sc->msg, sc->msg_size, "header offset %zu: a dimension overflows int64", start);
    }
    v = v * 10 + (c - '0');
    sc->pos++;
  }
  if (sc->pos - start > 1 && sc->s[start] == '0') {
    return fail(sc->msg, sc->msg_size, "header offset %zu: a dimension has a leading zero", start);
  }
  if (peek(sc) == 'L' || peek(sc) == 'l') {
    sc->pos++;
  }
  if (is_ident_char(peek(sc))) {
    return syntax(sc, "',' or ')' after a dimension");
  }
  *value = v;
  return 0;
}

static int read_shape(scan *sc, npy_header *h) {
  int rc = expect_char(sc, '(', "'(' starting the shape tuple");
  if (rc != 0) {
    return rc;
  }
  h->rank = 0;
  int trailing_comma = 0;
  for (;;) {
    skip_ws(sc);
    if (peek(sc) == ')') {
      sc->pos++;
      break;
    }
    if (h->rank > 0 && !trailing_comma) {
      return syntax(sc, "',' or ')' in the shape");
    }
    if (h->rank == NPY_MAX_RANK) {
      return fail(sc->msg, sc->msg_size, "the shape has more than %d dimensions", NPY_MAX_RANK);
    }
    rc = read_dim(sc, &h->shape[h->rank]);
    if (rc != 0) {
      return rc;
    }
    h->rank++;
    skip_ws(sc);
    trailing_comma = peek(sc) == ',';
    if (trailing_comma) {
      sc->pos++;
    }
  }
  /* "(3)" is the integer 3 in Python, not a tuple: numpy.load rejects it too. */
  if (h->rank == 1 && !trailing_comma) {
    return fail(sc->msg, sc->msg_size,
                "the shape (%" PRId64 ") is not a tuple (a 1-D shape is "
                "written (%" PRId64 ",))",
                h->shape[0], h->shape[0]);
  }
  return 0;
}

/* Returns the offset of the first invalid UTF-8 sequence in text[0..len), or len. */
static size_t utf8_invalid_at(const char *text, size_t len) {
  size_t i = 0;
  while (i < len) {
    unsigned char c = (unsigned char)text[i];
    size_t extra;
    if (c < 0x80) {
      extra = 0;
    } else if (c >= 0xc2 && c <= 0xdf) {
      extra = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      extra = 2;
    } else if (c >= 0xf0 && c <= 0xf4) {
      extra = 3;
    } else {
      return i;
    }
    if (extra > len - i - 1) {
      return i;
    }
    /* The second byte's range also rules out overlong forms, surrogates and code points above
     * U+10FFFF (RFC 3629), which Python's decoder rejects too. */
    unsigned char lo = 0x80, hi = 0xbf;
    if (c == 0xe0) {
      lo = 0xa0;
    } else if (c == 0xed) {
      hi = 0x9f;
    } else if (c == 0xf0) {
      lo = 0x90;
    } else if (c == 0xf4) {
      hi = 0x8f;
    }
    if (extra > 0 && ((unsigned char)text[i + 1] < lo || (unsigned char)text[i + 1] > hi)) {
      return i;
    }
    for (size_t k = 1; k <= extra; k++) {
      if (((unsigned char)text[i + k] & 0xc0) != 0x80) {
        return i;
      }
    }
    i += extra + 1;
  }
  return len;
}

int npy_parse_dict(const char *text, size_t len, int major, npy_header *h, char *msg,
                   size_t msg_size) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == 0) {
      return fail(msg, msg_size, "header offset %zu: NUL byte in the header", i);
    }
    if (c >= 0x80 && major < 3) {
      return fail(msg, msg_size,
                  "header offset %zu: non-ASCII byte 0x%02x in a version %d.0 header", i, c, major);
    }
  }
  if (major >= 3) {
    /* Version 3.0 headers are UTF-8: check the encoding, so later messages can quote text. */
    size_t bad = utf8_invalid_at(text, len);
    if (bad < len) {
      return fail(msg, msg_size, "header offset %zu: invalid UTF-8 in a version 3.0 header", bad);
    }
  }
  scan sc = {text, len, 0, msg, msg_size};
  int rc = expect_char(&sc, '{', "'{' starting the header dictionary");
  if (rc != 0) {
    return rc;
  }
  int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
  for (;;) {
    skip_ws(&sc);
    if (peek(&sc) == '}') {
      sc.pos++;
      break;
    }
    char key[32];
    size_t key_pos = sc.pos;
    rc = read_string(&sc, key, sizeof key, "a key of the header dictionary");
    if (rc != 0) {
      return rc;
    }
    rc = expect_char(&sc, ':', "':' after a key");
    if (rc != 0) {
      return rc;
    }
    int *seen = NULL;
    if (strcmp(key, "descr") == 0) {
      seen = &seen_descr;
      skip_ws(&sc);
      if (peek(&sc) == '[') {
        return fail(msg, msg_size, "structured dtypes (a descr list) are not supported");
      }
      rc = read_string(&sc, h->descr, sizeof h->descr, "'descr'");
    } else if (strcmp(key, "fortran_order") == 0) {
      seen = &seen_fortran;
      rc = read_bool(&sc, &h->fortran_order);
    } else if (strcmp(key, "shape") == 0) {
      seen = &seen_shape;
      rc = read_shape(&sc, h);
    } else {
      return fail(msg, msg_size,
                  "header offset %zu: unexpected key '%s' (the keys are 'descr', "
                  "'fortran_order' and 'shape')",
                  key_pos, key);
    }
    if (rc != 0) {
      return rc;
    }
    if (*seen) {
      return fail(msg, msg_size, "header offset %zu: the key '%s' appears twice", key_pos, key);
    }
    *seen = 1;
    skip_ws(&sc);
    if (peek(&sc) == ',') {
      sc.pos++;
      continue;
    }
    if (peek(&sc) != '}') {
      return syntax(&sc, "',' or '}' in the header dictionary");
    }
  }
  skip_ws(&sc);
  if (sc.pos != len) {
    return syntax(&sc, "only padding after the header dictionary");
  }
  if (!seen_descr || !seen_fortran || !seen_shape) {
    return fail(msg, msg_size, "the header lacks the key '%s'",
                !seen_descr     ? "descr"
                : !seen_fortran ? "fortran_order"
                                : "shape");
  }
  return 0;
}
