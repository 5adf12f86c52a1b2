/* Parsing and printing the text form of shapes. */
#include "shape_text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

static const char *skip_spaces(const char *s) {
  while (*s == ' ' || *s == '\t') {
    s++;
  }
  return s;
}

/* Reads a non-negative decimal int64 at *s. Returns 0 on success, 1 when there is no digit, 2 on
 * overflow. */
static int read_dim_value(const char **s, int64_t *out) {
  const char *c = *s;
  if (*c < '0' || *c > '9') {
    return 1;
  }
  int64_t value = 0;
  for (; *c >= '0' && *c <= '9'; c++) {
    int digit = *c - '0';
    if (value > (INT64_MAX - digit) / 10) {
      return 2;
    }
    value = value * 10 + digit;
  }
  *s = c;
  *out = value;
  return 0;
}

static int malformed(const char *what, const char *text, const char *why) {
  return cli_error(CLI_EXIT_USAGE, "%s: '%s' is not a valid shape: %s", what, text, why);
}

/* Parses one dim at *s: "?", "-1", "N", "L..H" or "L..". */
static int parse_dim(const char **s, const char *what, const char *text, cli_dim *dim) {
  const char *c = *s;
  if (*c == '?') {
    dim->lo = 0;
    dim->hi = -1;
    *s = c + 1;
    return 0;
  }
  if (c[0] == '-' && c[1] == '1' && (c[2] < '0' || c[2] > '9')) {
    dim->lo = 0;
    dim->hi = -1;
    *s = c + 2;
    return 0;
  }
  int rc = read_dim_value(&c, &dim->lo);
  if (rc != 0) {
    return malformed(what, text,
                     rc == 2 ? "a dimension is out of the int64 range"
                             : "a dimension must be N, ?, -1, L..H or L..");
  }
  dim->hi = dim->lo;
  if (c[0] == '.' && c[1] == '.') {
    c += 2;
    if (*c >= '0' && *c <= '9') {
      rc = read_dim_value(&c, &dim->hi);
      if (rc != 0) {
        return malformed(what, text, "a dimension is out of the int64 range");
      }
      if (dim->hi < dim->lo) {
        char why[96];
        snprintf(why, sizeof why, "the interval %" PRId64 "..%" PRId64 " has L > H", dim->lo,
                 dim->hi);
        return malformed(what, text, why);
      }
    } else {
      dim->hi = -1;
    }
  }
  *s = c;
  return 0;
}

int cli_parse_shape(const char *text, const char *what, cli_partial_shape *shape) {
  shape->dynamic_rank = 0;
  shape->rank = 0;
  shape->dims = NULL;
  const char *c = skip_spaces(text);
  if (*c != '[') {
    return malformed(what, text, "it must start with '['");
  }
  c = skip_spaces(c + 1);
  if (strncmp(c, "...", 3) == 0) {
    c = skip_spaces(c + 3);
    if (*c != ']' || *skip_spaces(c + 1) != '\0') {
      return malformed(what, text, "a dynamic rank is written '[...]'");
    }
    shape->dynamic_rank = 1;
    return 0;
  }
  if (*c == ']') {
    if (*skip_spaces(c + 1) != '\0') {
      return malformed(what, text, "text follows the closing ']'");
    }
    return 0;
  }
  size_t capacity = 1;
  for (const char *k = c; *k != '\0'; k++) {
    capacity += *k == ',';
  }
  shape->dims = cli_calloc(capacity, sizeof *shape->dims);
  if (shape->dims == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  for (;;) {
    c = skip_spaces(c);
    int rc = parse_dim(&c, what, text, &shape->dims[shape->rank]);
    if (rc != 0) {
      cli_partial_shape_free(shape);
      return rc;
    }
    shape->rank++;
    c = skip_spaces(c);
    if (*c == ',') {
      c++;
      continue;
    }
    if (*c == ']' && *skip_spaces(c + 1) == '\0') {
      return 0;
    }
    cli_partial_shape_free(shape);
    return malformed(what, text,
                     *c == ']' ? "text follows the closing ']'"
                               : "dimensions are separated by ',' and the list ends with ']'");
  }
}

void cli_partial_shape_free(cli_partial_shape *shape) {
  free(shape->dims);
  shape->dims = NULL;
  shape->rank = 0;
}

int cli_partial_shape_is_static(const cli_partial_shape *shape) {
  if (shape->dynamic_rank) {
    return 0;
  }
  for (size_t i = 0; i < shape->rank; i++) {
    if (shape->dims[i].lo != shape->dims[i].hi) {
      return 0;
    }
  }
  return 1;
}

void cli_print_shape(FILE *out, const int64_t *dims, size_t rank) {
  fputc('[', out);
  for (size_t i = 0; i < rank; i++) {
    fprintf(out, i == 0 ? "%" PRId64 : ",%" PRId64, dims[i]);
  }
  fputc(']', out);
}
