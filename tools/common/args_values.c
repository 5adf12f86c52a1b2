/* The strict parsers of the values options take (args.h): decimal integers, comma-separated
 * integer lists (or "?" entries), and sizes in the one size syntax of every command. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "cli_util.h"

int cli_parse_size(const char *text, uint64_t *bytes) {
  static const struct {
    const char *name;
    double factor;
  } units[] = {{"", 1.0},
               {"B", 1.0},
               {"K", 1e3},
               {"KB", 1e3},
               {"M", 1e6},
               {"MB", 1e6},
               {"G", 1e9},
               {"GB", 1e9},
               {"T", 1e12},
               {"TB", 1e12},
               {"KIB", 1024.0},
               {"MIB", 1048576.0},
               {"GIB", 1073741824.0},
               {"TIB", 1099511627776.0}};
  const char *p = text;
  size_t digits = 0;
  for (; isdigit((unsigned char)*p); p++) {
    digits++;
  }
  if (*p == '.') {
    p++;
    for (; isdigit((unsigned char)*p); p++) {
      digits++;
    }
  }
  if (digits == 0 || digits > 30) {
    return -1;
  }
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcasecmp(p, units[i].name) != 0) {
      continue;
    }
    /* The same double arithmetic as Python's int(float(number) * factor): the digits were
     * checked above, so strtod reads exactly them. */
    double value = strtod(text, NULL) * units[i].factor;
    if (!(value >= 1.0) || value >= 9223372036854775808.0) {
      return -1;
    }
    *bytes = (uint64_t)value;
    return 0;
  }
  return -1;
}

/* Parses text[0..len) as a decimal int64. Returns 0, 1 (malformed) or 2 (out of range). */
static int parse_int64_span(const char *text, size_t len, int64_t *out) {
  size_t i = 0;
  int negative = 0;
  if (i < len && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    i++;
  }
  if (i == len) {
    return 1;
  }
  uint64_t limit = negative ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
  uint64_t value = 0;
  for (; i < len; i++) {
    if (text[i] < '0' || text[i] > '9') {
      return 1;
    }
    unsigned digit = (unsigned)(text[i] - '0');
    if (value > (limit - digit) / 10u) {
      return 2;
    }
    value = value * 10u + digit;
  }
  if (negative) {
    /* Negating through uint64 avoids overflow for INT64_MIN. */
    *out = value == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)value;
  } else {
    *out = (int64_t)value;
  }
  return 0;
}

int cli_parse_int64(const char *text, const char *what, int64_t *out) {
  int rc = parse_int64_span(text, strlen(text), out);
  if (rc == 1) {
    return cli_error(CLI_EXIT_USAGE, "%s: '%s' is not an integer", what, text);
  }
  if (rc == 2) {
    return cli_error(CLI_EXIT_USAGE, "%s: '%s' is out of the int64 range", what, text);
  }
  return 0;
}

int cli_parse_int64_list(const char *text, const char *what, int64_t **values, int64_t *count,
                         int *unknown) {
  *values = NULL;
  *count = 0;
  *unknown = 0;
  if (text[0] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "%s: the list is empty", what);
  }
  size_t entries = 1;
  for (const char *c = text; *c != '\0'; c++) {
    entries += *c == ',';
  }
  int64_t *list = cli_calloc(entries, sizeof *list);
  if (list == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  size_t questions = 0;
  const char *start = text;
  for (size_t i = 0; i < entries; i++) {
    const char *end = strchr(start, ',');
    size_t len = end != NULL ? (size_t)(end - start) : strlen(start);
    if (len == 0) {
      free(list);
      return cli_error(CLI_EXIT_USAGE, "%s: '%s' has an empty entry (entry %zu)", what, text, i);
    }
    if (len == 1 && start[0] == '?') {
      questions++;
    } else {
      int rc = parse_int64_span(start, len, &list[i]);
      if (rc != 0) {
        free(list);
        return cli_error(CLI_EXIT_USAGE, "%s: entry %zu of '%s', '%.*s', is %s", what, i, text,
                         (int)len, start, rc == 1 ? "not an integer" : "out of the int64 range");
      }
    }
    start = end != NULL ? end + 1 : start + len;
  }
  if (questions != 0 && questions != entries) {
    free(list);
    return cli_error(CLI_EXIT_USAGE,
                     "%s: '%s' mixes numbers and '?': the entries are either all known or all '?'",
                     what, text);
  }
  *count = (int64_t)entries;
  if (questions != 0) {
    free(list);
    *unknown = 1;
  } else {
    *values = list;
  }
  return 0;
}
