/* The one formatter of static shapes. */
#include "shape_format.h"

#include <inttypes.h>
#include <stdint.h>

const char *shape_format(const int64_t *dims, size_t rank, char *buf, size_t size) {
  if (size == 0) {
    return buf;
  }
  size_t pos = 0;
  int n = snprintf(buf, size, "[");
  pos = n > 0 ? (size_t)n : 0;
  for (size_t i = 0; i < rank && pos < size; i++) {
    n = snprintf(buf + pos, size - pos, "%s%" PRId64, i > 0 ? "," : "", dims[i]);
    pos += n > 0 ? (size_t)n : 0;
  }
  if (pos < size) {
    snprintf(buf + pos, size - pos, "]");
  }
  return buf;
}

void shape_print(FILE *out, const int64_t *dims, size_t rank) {
  fputc('[', out);
  for (size_t i = 0; i < rank; i++) {
    fprintf(out, "%s%" PRId64, i > 0 ? "," : "", dims[i]);
  }
  fputc(']', out);
}

/* One canonical decimal at *text (with a '-' in front when `sign` allows one), up to a character
 * that is not a digit. Returns 1 and advances *text, or returns 0. */
static int read_int(const char **text, int sign, int64_t *value) {
  const char *c = *text;
  int negative = sign && *c == '-';
  c += negative;
  if (*c < '0' || *c > '9' || (c[0] == '0' && c[1] >= '0' && c[1] <= '9') ||
      (negative && c[0] == '0')) {
    return 0;
  }
  /* Accumulated as a negative number, whose range holds INT64_MIN. */
  int64_t v = 0;
  for (; *c >= '0' && *c <= '9'; c++) {
    int digit = *c - '0';
    if (v < (INT64_MIN + digit) / 10) {
      return 0;
    }
    v = v * 10 - digit;
  }
  if (!negative && v == INT64_MIN) {
    return 0;
  }
  *value = negative ? v : -v;
  *text = c;
  return 1;
}

static int parse_list(const char *text, int sign, int64_t *values, size_t capacity, size_t *count) {
  if (text == NULL || *text != '[') {
    return 0;
  }
  const char *c = text + 1;
  size_t n = 0;
  if (*c != ']') {
    for (;;) {
      int64_t v = 0;
      if (n == capacity || !read_int(&c, sign, &v)) {
        return 0;
      }
      values[n++] = v;
      if (*c != ',') {
        break;
      }
      c++;
    }
  }
  if (c[0] != ']' || c[1] != '\0') {
    return 0;
  }
  *count = n;
  return 1;
}

int shape_parse_static(const char *text, int64_t *dims, size_t capacity, size_t *rank) {
  return parse_list(text, 0, dims, capacity, rank);
}

int shape_parse_int_list(const char *text, int64_t *values, size_t capacity, size_t *count) {
  return parse_list(text, 1, values, capacity, count);
}

int shape_parse_int(const char *text, int64_t *value) {
  return text != NULL && read_int(&text, 1, value) && *text == '\0';
}
