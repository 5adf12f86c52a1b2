/* One writer of JSON for the commands' --json reports. */
#include "json_out.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cli_util.h"
#include "error.h"
#include "shape_format.h"

void json_out_begin(json_out *j, FILE *out) {
  memset(j, 0, sizeof *j);
  j->out = out;
}

/* The separator and key before a value. */
static void member(json_out *j, const char *key) {
  if (j->has_member[j->depth]) {
    fputs(", ", j->out);
  }
  j->has_member[j->depth] = 1;
  if (key != NULL) {
    json_out_escaped(j->out, key);
    fputs(": ", j->out);
  }
}

static void open(json_out *j, const char *key, char bracket) {
  member(j, key);
  fputc(bracket, j->out);
  if (j->depth < JSON_OUT_MAX_DEPTH) {
    j->depth++;
    j->has_member[j->depth] = 0;
  }
}

void json_out_object(json_out *j, const char *key) {
  open(j, key, '{');
}

void json_out_array(json_out *j, const char *key) {
  open(j, key, '[');
}

void json_out_close(json_out *j, char bracket) {
  fputc(bracket, j->out);
  if (j->depth > 0) {
    j->depth--;
  }
}

void json_out_escaped(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\') {
      fprintf(out, "\\%c", *c);
    } else if (*c < 0x20 || *c == 0x7f) {
      fprintf(out, "\\u%04x", *c);
    } else {
      fputc(*c, out);
    }
  }
  fputc('"', out);
}

void json_out_string(json_out *j, const char *key, const char *value) {
  member(j, key);
  if (value == NULL) {
    fputs("null", j->out);
  } else {
    json_out_escaped(j->out, value);
  }
}

void json_out_int(json_out *j, const char *key, int64_t value) {
  member(j, key);
  fprintf(j->out, "%" PRId64, value);
}

void json_out_uint(json_out *j, const char *key, uint64_t value) {
  member(j, key);
  fprintf(j->out, "%" PRIu64, value);
}

void json_out_bool(json_out *j, const char *key, int value) {
  member(j, key);
  fputs(value ? "true" : "false", j->out);
}

void json_out_dims(json_out *j, const char *key, const int64_t *dims, size_t rank) {
  member(j, key);
  fputc('[', j->out);
  for (size_t i = 0; i < rank; i++) {
    fprintf(j->out, "%s%" PRId64, i > 0 ? ", " : "", dims[i]);
  }
  fputc(']', j->out);
}

void json_out_double(json_out *j, const char *key, double value, int digits) {
  if (isnan(value) || isinf(value)) {
    json_out_string(j, key, isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
    return;
  }
  member(j, key);
  fprintf(j->out, "%.*g", digits, value);
}

void json_out_static_or_text(json_out *j, const char *key, const char *text) {
  int64_t value = 0;
  int64_t values[64];
  size_t count = 0;
  if (shape_parse_int(text, &value)) {
    json_out_int(j, key, value);
  } else if (shape_parse_int_list(text, values, sizeof values / sizeof values[0], &count)) {
    json_out_dims(j, key, values, count);
  } else {
    json_out_string(j, key, text);
  }
}

int json_out_finish(json_out *j) {
  fputc('\n', j->out);
  if (fflush(j->out) != 0 || ferror(j->out)) {
    return cli_error(CLI_EXIT_IOERR, "writing the report%s failed: %s",
                     j->out == stdout ? " to stdout" : "", strerror(errno));
  }
  return 0;
}
