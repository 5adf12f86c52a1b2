/* The command line: options declared in tables, the one parser that runs them, their --help,
 * and the parsers of the values the commands take (args.h). */
#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_util.h"

/* ---- tables ----------------------------------------------------------------------------- */

/* The most entries a table may have once its included tables are followed. */
#define MAX_FLAT 160

/* An option of a table with its target's offset from the command's target. */
typedef struct flat_opt {
  const cli_opt *opt;
  size_t offset;
} flat_opt;

typedef struct flat_table {
  flat_opt entries[MAX_FLAT];
  size_t count;
} flat_table;

/* The entries of `table` a command of tags `tags` takes (args.h, cli_spec.tags). */
static void flatten(const cli_opt *table, size_t base, unsigned tags, flat_table *out) {
  for (const cli_opt *o = table; o != NULL && o->kind != CLI_OPT_END; o++) {
    if (o->kind == CLI_OPT_INCLUDE) {
      flatten(o->include, base + o->offset, tags, out);
    } else if (o->tag != 0 && (o->tag & tags) == 0) {
      continue;
    } else if (out->count < MAX_FLAT) {
      out->entries[out->count].opt = o;
      out->entries[out->count].offset = base + o->offset;
      out->count++;
    }
  }
}

static void each(const cli_opt *table, void (*fn)(void *ctx, const cli_opt *opt), void *ctx) {
  for (const cli_opt *o = table; o != NULL && o->kind != CLI_OPT_END; o++) {
    if (o->kind == CLI_OPT_INCLUDE) {
      each(o->include, fn, ctx);
    } else {
      fn(ctx, o);
    }
  }
}

void cli_opt_each(const cli_opt *table, void (*fn)(void *ctx, const cli_opt *opt), void *ctx) {
  each(table, fn, ctx);
}

static int is_option(const cli_opt *o) {
  return o->kind != CLI_OPT_GROUP && o->kind != CLI_OPT_END && o->kind != CLI_OPT_INCLUDE;
}

static int takes_value(const cli_opt *o) {
  return o->kind != CLI_OPT_FLAG && !(o->kind == CLI_OPT_CALL && o->arg == NULL);
}

/* The entry of `t` named by the short name `c`, or by the long name name[0..len) (c == 0). */
static const flat_opt *find(const flat_table *t, char c, const char *name, size_t len) {
  for (size_t i = 0; i < t->count; i++) {
    const cli_opt *o = t->entries[i].opt;
    if (!is_option(o)) {
      continue;
    }
    if (c != 0 ? o->short_name == c
               : strlen(o->long_name) == len && strncmp(o->long_name, name, len) == 0) {
      return &t->entries[i];
    }
  }
  return NULL;
}

void cli_opt_label(const cli_opt *opt, char *buf, size_t size) {
  if (opt->short_name != 0) {
    snprintf(buf, size, "-%c/--%s", opt->short_name, opt->long_name);
  } else {
    snprintf(buf, size, "--%s", opt->long_name);
  }
}

/* ---- parsing ---------------------------------------------------------------------------- */

typedef struct parser {
  const cli_spec *spec;
  char *target;
  flat_table table;
  cli_args *args;
  /* Whether entry i of the table was given already (a value given twice is an error). */
  unsigned char seen[MAX_FLAT];
} parser;

/* Compares two strings through pointers, for qsort. */
static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An option the command does not take: named with the sibling commands that take it, or
 * pointed at the command's help. `typed` is the option as given ("-n", "--max-shard-size"). */
static int unknown(const parser *p, char c, const char *name, size_t len, const char *typed) {
  const char *owners[32];
  size_t count = 0;
  for (const cli_spec *const *s = p->spec->siblings; s != NULL && *s != NULL && count < 32; s++) {
    if (*s == p->spec) {
      continue;
    }
    flat_table t;
    t.count = 0;
    flatten((*s)->options, 0, (*s)->tags, &t);
    if (find(&t, c, name, len) != NULL) {
      owners[count++] = (*s)->name;
    }
  }
  if (count == 0) {
    return cli_error(CLI_EXIT_USAGE, "%s: unknown option '%s' (see 'cleave %s --help')",
                     p->spec->name, typed, p->spec->name);
  }
  qsort(owners, count, sizeof owners[0], compare_names);
  char list[1024];
  size_t used = 0;
  list[0] = '\0';
  for (size_t i = 0; i < count && used < sizeof list; i++) {
    const char *sep = i == 0 ? "" : i + 1 == count ? " and " : ", ";
    int n = snprintf(list + used, sizeof list - used, "%s'%s'", sep, owners[i]);
    used += n > 0 ? (size_t)n : 0;
  }
  return cli_error(CLI_EXIT_USAGE, "%s: %s belongs to %s, not to '%s' (see 'cleave %s --help')",
                   p->spec->name, typed, list, p->spec->name, p->spec->name);
}

/* The index of `value` among the '|'-separated words of `choices`, or -1. */
static int choice_index(const char *choices, const char *value) {
  size_t n = strlen(value);
  int index = 0;
  for (const char *w = choices; *w != '\0'; index++) {
    const char *bar = strchr(w, '|');
    size_t len = bar != NULL ? (size_t)(bar - w) : strlen(w);
    if (len == n && strncmp(w, value, n) == 0) {
      return index;
    }
    w += len + (bar != NULL);
  }
  return -1;
}

/* "--unmatched is 'replicate' or 'error', not 'x'". */
static int bad_choice(const parser *p, const cli_opt *o, const char *value) {
  char list[512];
  size_t used = 0, words = 1;
  for (const char *c = o->choices; *c != '\0'; c++) {
    words += *c == '|';
  }
  list[0] = '\0';
  size_t index = 0;
  for (const char *w = o->choices; *w != '\0' && used < sizeof list; index++) {
    const char *bar = strchr(w, '|');
    int len = (int)(bar != NULL ? (size_t)(bar - w) : strlen(w));
    const char *sep = index == 0 ? "" : index + 1 == words ? " or " : ", ";
    int n = snprintf(list + used, sizeof list - used, "%s'%.*s'", sep, len, w);
    used += n > 0 ? (size_t)n : 0;
    w += (size_t)len + (bar != NULL);
  }
  return cli_error(CLI_EXIT_USAGE, "%s: --%s is %s, not '%s'", p->spec->name, o->long_name, list,
                   value);
}

/* Applies entry `e` (given by its short name when `short_form`) with `value` (NULL for a flag). */
static int apply(parser *p, const flat_opt *e, int short_form, const char *value) {
  const cli_opt *o = e->opt;
  void *where = p->target + e->offset;
  char label[96];
  cli_opt_label(o, label, sizeof label);
  size_t index = (size_t)(e - p->table.entries);
  int once = o->kind == CLI_OPT_CALL ? o->once : o->kind != CLI_OPT_FLAG;
  if (once && p->seen[index]) {
    return cli_error(CLI_EXIT_USAGE, "%s: option %s is given twice", p->spec->name, label);
  }
  p->seen[index] = 1;
  cli_args *a = p->args;
  if (a->given_count == CLI_MAX_GIVEN) {
    return cli_error(CLI_EXIT_USAGE, "%s: more than %d options", p->spec->name, CLI_MAX_GIVEN);
  }
  a->given[a->given_count] = o;
  a->short_form[a->given_count] = (unsigned char)short_form;
  a->given_count++;
  switch (o->kind) {
  case CLI_OPT_FLAG:
    *(int *)where = o->number;
    return 0;
  case CLI_OPT_STRING:
    *(const char **)where = value;
    return 0;
  case CLI_OPT_INT64:
    return cli_parse_int64(value, label, (int64_t *)where);
  case CLI_OPT_SIZE:
    if (cli_parse_size(value, (uint64_t *)where) != 0) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --%s '%s' is not a size like 5GB, 500MiB, 1.5G or 1000000 (a number "
                       "of at least 1 byte and K/KB, M/MB, G/GB, T/TB, KiB, MiB, GiB or TiB)",
                       p->spec->name, o->long_name, value);
    }
    return 0;
  case CLI_OPT_CHOICE: {
    int index_of = choice_index(o->choices, value);
    if (index_of < 0) {
      return bad_choice(p, o, value);
    }
    *(int *)where = index_of;
    return 0;
  }
  case CLI_OPT_CALL:
    return o->call(where, value, o, p->spec->name);
  default:
    return cli_error(CLI_EXIT_SOFTWARE, "%s: option %s has no kind", p->spec->name, label);
  }
}

/* The value of an option that takes one: the rest of its argument, or the next one. */
static int value_of(parser *p, const flat_opt *e, int short_form, const char *attached, int argc,
                    char **argv, int *i) {
  if (attached != NULL) {
    return apply(p, e, short_form, attached);
  }
  if (*i + 1 >= argc) {
    char label[96];
    cli_opt_label(e->opt, label, sizeof label);
    return cli_error(CLI_EXIT_USAGE, "%s: option %s needs a value", p->spec->name, label);
  }
  *i += 1;
  return apply(p, e, short_form, argv[*i]);
}

/* One argument of short options: "-f", "-fq", "-a1", "-a 1". */
static int short_options(parser *p, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  for (const char *c = arg + 1; *c != '\0'; c++) {
    char typed[3] = {'-', *c, '\0'};
    if (*c == 'h' && !p->spec->no_help) {
      return CLI_HELP_SHOWN;
    }
    const flat_opt *e = find(&p->table, *c, NULL, 0);
    if (e == NULL) {
      return unknown(p, *c, NULL, 0, typed);
    }
    if (takes_value(e->opt)) {
      return value_of(p, e, 1, c[1] != '\0' ? c + 1 : NULL, argc, argv, i);
    }
    int rc = apply(p, e, 1, NULL);
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

/* One long option: "--force", "--output=DIR", "--output DIR". */
static int long_option(parser *p, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  const char *name = arg + 2;
  const char *eq = strchr(name, '=');
  size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
  if (len == 4 && strncmp(name, "help", 4) == 0 && !p->spec->no_help) {
    return CLI_HELP_SHOWN;
  }
  const flat_opt *e = find(&p->table, 0, name, len);
  if (e == NULL) {
    char typed[128];
    snprintf(typed, sizeof typed, "--%.*s", (int)(len < 100 ? len : 100), name);
    return unknown(p, 0, name, len, typed);
  }
  if (!takes_value(e->opt)) {
    if (eq != NULL) {
      return cli_error(CLI_EXIT_USAGE, "%s: option --%s takes no value (got '%s')", p->spec->name,
                       e->opt->long_name, eq + 1);
    }
    return apply(p, e, 0, NULL);
  }
  return value_of(p, e, 0, eq != NULL ? eq + 1 : NULL, argc, argv, i);
}

int cli_parse(const cli_spec *spec, void *target, int argc, char **argv, int first,
              cli_args *args) {
  memset(args, 0, sizeof *args);
  parser *p = calloc(1, sizeof *p);
  args->positional = calloc((size_t)(argc > 0 ? argc : 1), sizeof *args->positional);
  args->options_before = calloc((size_t)(argc > 0 ? argc : 1), sizeof *args->options_before);
  if (p == NULL || args->positional == NULL || args->options_before == NULL) {
    free(p);
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory parsing the command line");
  }
  p->spec = spec;
  p->target = target;
  p->args = args;
  flatten(spec->options, 0, spec->tags, &p->table);
  int rc = 0, only_positional = 0;
  for (int i = first; i < argc && rc == 0; i++) {
    const char *arg = argv[i];
    if (only_positional || arg[0] != '-' || arg[1] == '\0') {
      args->options_before[args->positional_count] = args->given_count;
      args->positional[args->positional_count++] = argv[i];
    } else if (arg[1] != '-') {
      rc = short_options(p, argc, argv, &i);
    } else if (arg[2] == '\0') {
      only_positional = 1;
    } else {
      rc = long_option(p, argc, argv, &i);
    }
  }
  if (rc == CLI_HELP_SHOWN) {
    cli_help_print(spec, stdout);
  }
  free(p);
  return rc;
}

void cli_args_free(cli_args *args) {
  free(args->positional);
  free(args->options_before);
  args->positional = NULL;
  args->options_before = NULL;
  args->positional_count = 0;
}

const cli_opt *cli_args_foreign(const cli_args *args, unsigned tags, size_t *index) {
  for (size_t i = 0; i < args->given_count; i++) {
    if (args->given[i]->tag != 0 && (args->given[i]->tag & tags) == 0) {
      if (index != NULL) {
        *index = i;
      }
      return args->given[i];
    }
  }
  return NULL;
}

void cli_args_spelling(const cli_args *args, size_t i, char *buf, size_t size) {
  const cli_opt *o = args->given[i];
  if (args->short_form[i]) {
    snprintf(buf, size, "-%c", o->short_name);
  } else {
    snprintf(buf, size, "--%s", o->long_name);
  }
}

/* ---- --help ----------------------------------------------------------------------------- */

/* Lines of help are wrapped at this width. */
#define HELP_WIDTH 92
/* The widest label whose help starts in the column after it. */
#define HELP_LABEL_MAX 26

/* Prints `text` with every "{cmd}" replaced by `cmd`. */
static void put_text(const char *text, const char *cmd, FILE *out) {
  for (const char *t = text; *t != '\0';) {
    const char *mark = strstr(t, "{cmd}");
    if (mark == NULL) {
      fputs(t, out);
      return;
    }
    fwrite(t, 1, (size_t)(mark - t), out);
    fputs(cmd, out);
    t = mark + 5;
  }
}

/* "  -o, --output OUTDIR" / "      --dry-run" into buf; returns its length. */
static size_t help_label(const cli_opt *o, char *buf, size_t size) {
  int n;
  if (o->short_name != 0) {
    n = snprintf(buf, size, "  -%c, --%s%s%s", o->short_name, o->long_name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
  } else {
    n = snprintf(buf, size, "      --%s%s%s", o->long_name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
  }
  return n > 0 ? (size_t)n : 0;
}

typedef struct help_state {
  FILE *out;
  const char *cmd;
  unsigned tags;
  size_t column;
  /* A group's heading, printed before its first option the command takes. */
  const char *heading;
  int lines; /* option lines printed so far */
} help_state;

/* Whether the command of `h` takes option `o` (cli_spec.tags). */
static int listed(const help_state *h, const cli_opt *o) {
  return is_option(o) && (o->tag == 0 || (o->tag & h->tags) != 0);
}

static void measure(void *ctx, const cli_opt *o) {
  help_state *h = ctx;
  if (listed(h, o)) {
    char label[256];
    size_t n = help_label(o, label, sizeof label);
    if (n <= HELP_LABEL_MAX && n + 2 > h->column) {
      h->column = n + 2;
    }
  }
}

/* Prints `help` (with "{cmd}" replaced) from column `at` on, wrapped at HELP_WIDTH and
 * continued at h->column; a '\n' in it starts a new line. */
static void put_wrapped(help_state *h, const char *help, size_t at) {
  char text[4096];
  size_t n = 0;
  for (const char *t = help; *t != '\0' && n + 1 < sizeof text;) {
    if (strncmp(t, "{cmd}", 5) == 0) {
      size_t c = strlen(h->cmd);
      if (n + c + 1 >= sizeof text) {
        break;
      }
      memcpy(text + n, h->cmd, c);
      n += c;
      t += 5;
    } else {
      text[n++] = *t++;
    }
  }
  text[n] = '\0';
  size_t col = at;
  const char *w = text;
  int first_word = 1;
  while (*w != '\0') {
    if (*w == '\n') {
      fputc('\n', h->out);
      fprintf(h->out, "%*s", (int)h->column, "");
      col = h->column;
      first_word = 1;
      w++;
      continue;
    }
    if (*w == ' ') {
      w++;
      continue;
    }
    size_t len = strcspn(w, " \n");
    if (!first_word && col + 1 + len > HELP_WIDTH) {
      fprintf(h->out, "\n%*s", (int)h->column, "");
      col = h->column;
      first_word = 1;
    }
    if (!first_word) {
      fputc(' ', h->out);
      col++;
    }
    fwrite(w, 1, len, h->out);
    col += len;
    first_word = 0;
    w += len;
  }
  fputc('\n', h->out);
}

static void print_option(void *ctx, const cli_opt *o) {
  help_state *h = ctx;
  if (o->kind == CLI_OPT_GROUP) {
    /* A group of options for other commands (tagged) has no heading here. */
    h->heading = o->tag == 0 || (o->tag & h->tags) != 0 ? o->help : NULL;
    return;
  }
  if (!listed(h, o)) {
    return;
  }
  if (h->heading != NULL) {
    /* A heading after options is set off by a blank line; one that comes first follows the
     * blank line after the usage and the description. */
    fprintf(h->out, "%s%s:\n", h->lines > 0 ? "\n" : "", h->heading);
    h->heading = NULL;
  }
  h->lines++;
  char label[256];
  size_t n = help_label(o, label, sizeof label);
  fputs(label, h->out);
  if (n + 2 > h->column) {
    fputs("  ", h->out);
    n += 2;
  } else {
    fprintf(h->out, "%*s", (int)(h->column - n), "");
    n = h->column;
  }
  put_wrapped(h, o->help != NULL ? o->help : "", n);
}

void cli_help_print(const cli_spec *spec, FILE *out) {
  fputs("usage: ", out);
  put_text(spec->usage, spec->name, out);
  fputs("\n", out);
  if (spec->about != NULL) {
    fputs("\n", out);
    put_text(spec->about, spec->name, out);
  }
  help_state h = {out, spec->name, spec->tags, 0, NULL, 0};
  static const cli_opt help_opt = {
      .kind = CLI_OPT_FLAG, .short_name = 'h', .long_name = "help", .help = "print this help"};
  measure(&h, &help_opt);
  each(spec->options, measure, &h);
  fputs("\n", out);
  each(spec->options, print_option, &h);
  print_option(&h, &help_opt);
  if (spec->notes != NULL) {
    fputs("\n", out);
    put_text(spec->notes, spec->name, out);
  }
}

/* ---- values ----------------------------------------------------------------------------- */

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

/* ---- the scanner of the commands not yet declared by a table (being replaced) ------------- */

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
