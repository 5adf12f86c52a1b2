/* Option scanning and value parsing for the cleave command. */
#include "args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

void cli_parser_init(cli_parser *p, int argc, char **argv, int first, const char *command) {
  p->argc = argc;
  p->argv = argv;
  p->index = first;
  p->bundle = NULL;
  p->only_positional = 0;
  p->command = command;
}

void cli_option_label(const cli_option *option, char *buf, size_t size) {
  if (option->short_name != 0) {
    snprintf(buf, size, "-%c/--%s", option->short_name, option->long_name);
  } else {
    snprintf(buf, size, "--%s", option->long_name);
  }
}

void cli_option_label_of(const cli_option *options, size_t count, int id, char *buf, size_t size) {
  if (size > 0) {
    buf[0] = '\0';
  }
  for (size_t i = 0; i < count; i++) {
    if (options[i].id == id) {
      cli_option_label(&options[i], buf, size);
      return;
    }
  }
}

static const cli_option *find_short(const cli_option *options, size_t count, char c) {
  for (size_t i = 0; i < count; i++) {
    if (options[i].short_name == c) {
      return &options[i];
    }
  }
  return NULL;
}

static const cli_option *find_long(const cli_option *options, size_t count, const char *name,
                                   size_t len) {
  for (size_t i = 0; i < count; i++) {
    if (strlen(options[i].long_name) == len && strncmp(options[i].long_name, name, len) == 0) {
      return &options[i];
    }
  }
  return NULL;
}

static int take_value(cli_parser *p, const cli_option *option, const char **value) {
  if (p->index >= p->argc) {
    char label[64];
    cli_option_label(option, label, sizeof label);
    cli_error(CLI_EXIT_USAGE, "%s: option %s needs a value", p->command, label);
    return CLI_NEXT_ERROR;
  }
  *value = p->argv[p->index++];
  return CLI_NEXT_OPTION;
}

static int next_short(cli_parser *p, const cli_option *options, size_t count, int *id,
                      const char **value) {
  char c = *p->bundle++;
  const cli_option *option = find_short(options, count, c);
  if (option == NULL) {
    p->bundle = NULL;
    cli_error(CLI_EXIT_USAGE, "%s: unknown option '-%c' (see 'cleave %s --help')", p->command, c,
              p->command);
    return CLI_NEXT_ERROR;
  }
  *id = option->id;
  *value = NULL;
  if (!option->takes_value) {
    if (*p->bundle == '\0') {
      p->bundle = NULL;
    }
    return CLI_NEXT_OPTION;
  }
  /* "-a1" carries its value in the same argument; "-a 1" in the next one. */
  if (*p->bundle != '\0') {
    *value = p->bundle;
    p->bundle = NULL;
    return CLI_NEXT_OPTION;
  }
  p->bundle = NULL;
  return take_value(p, option, value);
}

int cli_parser_next(cli_parser *p, const cli_option *options, size_t count, int *id,
                    const char **value) {
  if (p->bundle != NULL) {
    return next_short(p, options, count, id, value);
  }
  if (p->index >= p->argc) {
    return CLI_NEXT_END;
  }
  const char *arg = p->argv[p->index++];
  if (p->only_positional || arg[0] != '-' || arg[1] == '\0') {
    *value = arg;
    return CLI_NEXT_POSITIONAL;
  }
  if (arg[1] != '-') {
    p->bundle = arg + 1;
    return next_short(p, options, count, id, value);
  }
  if (arg[2] == '\0') {
    p->only_positional = 1;
    return cli_parser_next(p, options, count, id, value);
  }
  const char *name = arg + 2;
  const char *eq = strchr(name, '=');
  size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
  const cli_option *option = find_long(options, count, name, len);
  if (option == NULL) {
    cli_error(CLI_EXIT_USAGE, "%s: unknown option '--%.*s' (see 'cleave %s --help')", p->command,
              (int)len, name, p->command);
    return CLI_NEXT_ERROR;
  }
  *id = option->id;
  *value = NULL;
  if (!option->takes_value) {
    if (eq != NULL) {
      cli_error(CLI_EXIT_USAGE, "%s: option --%s takes no value (got '%s')", p->command,
                option->long_name, eq + 1);
      return CLI_NEXT_ERROR;
    }
    return CLI_NEXT_OPTION;
  }
  if (eq != NULL) {
    *value = eq + 1;
    return CLI_NEXT_OPTION;
  }
  return take_value(p, option, value);
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
