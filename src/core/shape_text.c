/*
 * The text form of partial shapes (docs/operators.md section 6): `[6,12,10,24]`, `[]`, `[...]`, and
 * per dimension `N`, `?` (or `-1` on input), `L..H`, `L..`. Parsing accepts spaces and tabs
 * between tokens; printing is canonical (no spaces).
 */
#include "core/core.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void cleave_dim_text(char *buf, size_t size, cleave_dim dim) {
  if (size == 0) {
    return;
  }
  if (dim.hi == CLEAVE_DIM_UNBOUNDED) {
    if (dim.lo == 0) {
      snprintf(buf, size, "?");
    } else {
      snprintf(buf, size, "%" PRId64 "..", dim.lo);
    }
  } else if (dim.lo == dim.hi) {
    snprintf(buf, size, "%" PRId64, dim.lo);
  } else {
    snprintf(buf, size, "%" PRId64 "..%" PRId64, dim.lo, dim.hi);
  }
}

/* Whether a dimension is a well-formed interval. */
static bool dim_valid(cleave_dim dim) {
  return dim.lo >= 0 && (dim.hi == CLEAVE_DIM_UNBOUNDED || dim.hi >= dim.lo);
}

static cleave_status invalid_dim(cleave_dim dim, const char *what, cleave_error *err) {
  return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                     "%s is [%" PRId64 ", %" PRId64
                     "]: a dimension needs 0 <= lo <= hi, or hi = CLEAVE_DIM_UNBOUNDED",
                     what, dim.lo, dim.hi);
}

/* Appends `text` at `*used` while it fits in `size` (keeping room for the NUL); counts always. */
static void append(char *buf, size_t size, size_t *used, bool *fits, const char *text) {
  size_t len = strlen(text);
  if (*fits && *used + len < size) {
    memcpy(buf + *used, text, len);
  } else {
    *fits = false;
  }
  *used += len;
}

/* Ends a formatted text: NUL-terminated on success, "" when it did not fit. */
static cleave_status finish(char *buf, size_t size, size_t used, bool fits, size_t *length,
                            cleave_error *err) {
  if (length != NULL) {
    *length = used;
  }
  if (!fits) {
    if (size > 0) {
      buf[0] = '\0';
    }
    return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                       "the text needs %zu bytes but the buffer holds %zu", used + 1, size);
  }
  buf[used] = '\0';
  return cleave_succeed(err);
}

cleave_status cleave_dim_format(cleave_dim dim, char *buf, size_t size, size_t *length,
                                cleave_error *err) {
  if (buf == NULL && size > 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "buf is NULL but size is %zu", size);
  }
  if (!dim_valid(dim)) {
    return invalid_dim(dim, "the dimension", err);
  }
  char text[CLEAVE_DIM_TEXT_SIZE];
  cleave_dim_text(text, sizeof text, dim);
  size_t used = 0;
  bool fits = size > 0;
  append(buf, size, &used, &fits, text);
  return finish(buf, size, used, fits, length, err);
}

cleave_status cleave_partial_shape_format(const cleave_partial_shape *shape, char *buf, size_t size,
                                          size_t *length, cleave_error *err) {
  if (shape == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the shape is NULL");
  }
  if (buf == NULL && size > 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "buf is NULL but size is %zu", size);
  }
  bool dynamic = shape->rank == CLEAVE_RANK_DYNAMIC;
  size_t rank = dynamic ? 0 : shape->rank;
  if (rank > 0 && shape->dims == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the shape's dims are NULL but its rank is %zu", rank);
  }
  for (size_t i = 0; i < rank; i++) {
    if (!dim_valid(shape->dims[i])) {
      char what[48];
      snprintf(what, sizeof what, "dimension %zu", i);
      return invalid_dim(shape->dims[i], what, err);
    }
  }
  size_t used = 0;
  bool fits = size > 0;
  if (dynamic) {
    append(buf, size, &used, &fits, "[...]");
    return finish(buf, size, used, fits, length, err);
  }
  append(buf, size, &used, &fits, "[");
  for (size_t i = 0; i < rank; i++) {
    char text[CLEAVE_DIM_TEXT_SIZE];
    cleave_dim_text(text, sizeof text, shape->dims[i]);
    if (i > 0) {
      append(buf, size, &used, &fits, ",");
    }
    append(buf, size, &used, &fits, text);
  }
  append(buf, size, &used, &fits, "]");
  return finish(buf, size, used, fits, length, err);
}

/* ---- parsing ----------------------------------------------------------------------------- */

typedef struct parser {
  const char *text;
  size_t at;
  cleave_error *err;
} parser;

static void skip_blanks(parser *p) {
  while (p->text[p->at] == ' ' || p->text[p->at] == '\t') {
    p->at++;
  }
}

static bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* Reports an unexpected character (or the end of the text) at the parser's position. */
static cleave_status unexpected(parser *p, const char *expected) {
  char c = p->text[p->at];
  char shown[16];
  if (c == '\0') {
    snprintf(shown, sizeof shown, "end of text");
  } else if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f) {
    snprintf(shown, sizeof shown, "'%c'", c);
  } else {
    snprintf(shown, sizeof shown, "byte 0x%02x", (unsigned)(unsigned char)c);
  }
  return cleave_fail(p->err, CLEAVE_ERROR_INVALID_SHAPE,
                     "shape \"%.200s\": unexpected %s at character %zu; expected %s", p->text,
                     shown, p->at + 1, expected);
}

/* Reads a decimal number that must fit in int64. */
static cleave_status parse_number(parser *p, int64_t *value) {
  size_t start = p->at;
  if (!is_digit(p->text[p->at])) {
    return unexpected(p, "a number");
  }
  int64_t v = 0;
  while (is_digit(p->text[p->at])) {
    int64_t digit = p->text[p->at] - '0';
    if (cleave_mul_overflows(v, 10, &v) || cleave_add_overflows(v, digit, &v)) {
      return cleave_fail(p->err, CLEAVE_ERROR_INVALID_SHAPE,
                         "shape \"%.200s\": the number at character %zu is above %" PRId64, p->text,
                         start + 1, INT64_MAX);
    }
    p->at++;
  }
  *value = v;
  return CLEAVE_OK;
}

static const char dim_forms[] = "a dimension (N, ?, -1, L..H or L..)";

/* One dimension: N, ?, -1, L..H or L.. */
static cleave_status parse_dim(parser *p, cleave_dim *dim) {
  char c = p->text[p->at];
  if (c == '?') {
    p->at++;
    *dim = cleave_dim_any();
    return CLEAVE_OK;
  }
  if (c == '-') {
    if (p->text[p->at + 1] == '1' && !is_digit(p->text[p->at + 2])) {
      p->at += 2;
      *dim = cleave_dim_any();
      return CLEAVE_OK;
    }
    return cleave_fail(p->err, CLEAVE_ERROR_INVALID_SHAPE,
                       "shape \"%.200s\": negative dimension at character %zu; only -1 (any size) "
                       "is allowed",
                       p->text, p->at + 1);
  }
  if (!is_digit(c)) {
    return unexpected(p, dim_forms);
  }
  size_t start = p->at;
  int64_t lo = 0;
  cleave_status st = parse_number(p, &lo);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (p->text[p->at] != '.') {
    *dim = cleave_dim_point(lo);
    return CLEAVE_OK;
  }
  p->at++;
  if (p->text[p->at] != '.') {
    return unexpected(p, "'.' (a range is L..H or L..)");
  }
  p->at++;
  if (!is_digit(p->text[p->at])) {
    /* L.. : no upper bound; what follows is checked by the caller. */
    *dim = cleave_dim_range(lo, CLEAVE_DIM_UNBOUNDED);
    return CLEAVE_OK;
  }
  int64_t hi = 0;
  st = parse_number(p, &hi);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (lo > hi) {
    return cleave_fail(p->err, CLEAVE_ERROR_INVALID_SHAPE,
                       "shape \"%.200s\": the dimension %" PRId64 "..%" PRId64
                       " at character %zu has its lower bound above its upper bound",
                       p->text, lo, hi, start + 1);
  }
  *dim = cleave_dim_range(lo, hi);
  return CLEAVE_OK;
}

cleave_status cleave_partial_shape_parse(const char *text, cleave_dim *dims, size_t capacity,
                                         size_t *rank, cleave_error *err) {
  if (text == NULL || rank == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_partial_shape_parse needs a text and a place for the rank");
  }
  parser p = {text, 0, err};
  skip_blanks(&p);
  if (text[p.at] != '[') {
    return unexpected(&p, "'[' (a shape is [d0,d1,...], [] or [...])");
  }
  p.at++;
  skip_blanks(&p);
  size_t count = 0;
  bool dynamic = false;
  if (strncmp(text + p.at, "...", 3) == 0) {
    p.at += 3;
    dynamic = true;
    skip_blanks(&p);
  } else if (text[p.at] != ']') {
    /* First pass: validate and count, so that nothing is written unless the whole text is
     * valid and fits. */
    for (;;) {
      cleave_dim dim;
      cleave_status st = parse_dim(&p, &dim);
      if (st != CLEAVE_OK) {
        return st;
      }
      count++;
      skip_blanks(&p);
      if (text[p.at] == ',') {
        p.at++;
        skip_blanks(&p);
        continue;
      }
      if (text[p.at] != ']') {
        return unexpected(&p, "',' or ']'");
      }
      break;
    }
  }
  if (text[p.at] != ']') {
    return unexpected(&p, "']'");
  }
  p.at++;
  skip_blanks(&p);
  if (text[p.at] != '\0') {
    return unexpected(&p, "the end of the shape");
  }
  *rank = dynamic ? CLEAVE_RANK_DYNAMIC : count;
  if (dims == NULL || dynamic || count == 0) {
    return cleave_succeed(err);
  }
  if (capacity < count) {
    return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                       "shape \"%.200s\" has %zu dimensions but dims holds %zu", text, count,
                       capacity);
  }
  /* Second pass over text already known to be valid. */
  parser again = {text, 0, NULL};
  skip_blanks(&again);
  again.at++;
  for (size_t i = 0; i < count; i++) {
    skip_blanks(&again);
    parse_dim(&again, &dims[i]);
    skip_blanks(&again);
    again.at++; /* ',' or ']' */
  }
  return cleave_succeed(err);
}
