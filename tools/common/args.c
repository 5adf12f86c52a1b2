/* The command line: options declared in tables, the one parser that runs them and their --help
 * (args.h); the parsers of the values are args_values.c. */
#include "args.h"

#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "http.h"

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
    return cli_error_at(p->spec->place, CLI_EXIT_USAGE,
                        "unknown option '%s' (see 'cleave %s --help')", typed, p->spec->name);
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
  return cli_error_at(p->spec->place, CLI_EXIT_USAGE,
                      "%s belongs to %s, not to '%s' (see 'cleave %s --help')", typed, list,
                      p->spec->name, p->spec->name);
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
  return cli_error_at(p->spec->place, CLI_EXIT_USAGE, "--%s is %s, not '%s'", o->long_name, list,
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
    return cli_error_at(p->spec->place, CLI_EXIT_USAGE, "option %s is given twice", label);
  }
  p->seen[index] = 1;
  cli_args *a = p->args;
  if (a->given_count == a->given_room) {
    size_t room = a->given_room == 0 ? 16 : 2 * a->given_room;
    const cli_opt **given = realloc(a->given, room * sizeof *given);
    if (given != NULL) {
      a->given = given;
    }
    unsigned char *forms = realloc(a->short_form, room * sizeof *forms);
    if (forms != NULL) {
      a->short_form = forms;
    }
    if (given == NULL || forms == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory parsing the command line");
    }
    a->given_room = room;
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
      return cli_error_at(p->spec->place, CLI_EXIT_USAGE,
                          "--%s '%s' is not a size like 5GB, 500MiB, 1.5G or 1000000 (a number "
                          "of at least 1 byte and K/KB, M/MB, G/GB, T/TB, KiB, MiB, GiB or TiB)",
                          o->long_name, value);
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
    return o->call(where, value, o, p->spec->place);
  default:
    return cli_error_at(p->spec->place, CLI_EXIT_SOFTWARE, "option %s has no kind", label);
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
    return cli_error_at(p->spec->place, CLI_EXIT_USAGE, "option %s needs a value", label);
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
      return cli_error_at(p->spec->place, CLI_EXIT_USAGE, "option --%s takes no value (got '%s')",
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
  free(args->given);
  free(args->short_form);
  memset(args, 0, sizeof *args);
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

/* Expands the markup of a help text into buf[0..size) (cut short when it is full; NUL-terminated
 * when size > 0): "{cmd}" becomes `cmd`; "[[N:TEXT]]" becomes TEXT when the command's tags share
 * a bit with N (decimal), else nothing (args.h, cli_spec). Returns the length of the whole
 * expansion. */
static size_t expand(const char *text, const char *cmd, unsigned tags, char *buf, size_t size) {
  size_t n = 0;
  const char *close = NULL; /* the end of the segment being copied */
  for (const char *t = text; *t != '\0';) {
    const char *piece = NULL;
    size_t len = 1;
    if (strncmp(t, "{cmd}", 5) == 0) {
      piece = cmd;
      len = strlen(cmd);
      t += 5;
    } else if (strncmp(t, "[[", 2) == 0 && close == NULL && strchr(t, ':') != NULL) {
      char *end = NULL;
      unsigned long mask = strtoul(t + 2, &end, 10);
      const char *stop = strstr(t, "]]");
      if (end != NULL && *end == ':' && stop != NULL) {
        if ((mask & tags) != 0) {
          close = stop;
          t = end + 1;
        } else {
          t = stop + 2;
        }
        continue;
      }
      piece = t++;
    } else if (close != NULL && t == close) {
      close = NULL;
      t += 2;
      continue;
    } else {
      piece = t++;
    }
    for (size_t i = 0; i < len; i++, n++) {
      if (n + 1 < size) {
        buf[n] = piece[i];
      }
    }
  }
  if (size > 0) {
    buf[n + 1 < size ? n : size - 1] = '\0';
  }
  return n;
}

/* Prints `text` with its markup expanded (expand). */
static void put_text(const char *text, const char *cmd, unsigned tags, FILE *out) {
  size_t n = expand(text, cmd, tags, NULL, 0);
  char *buf = malloc(n + 1);
  if (buf != NULL) {
    expand(text, cmd, tags, buf, n + 1);
    fputs(buf, out);
    free(buf);
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

/* Prints `help` (its markup expanded) from column `at` on, wrapped at HELP_WIDTH and continued
 * at h->column; a '\n' in it starts a new line. */
static void put_wrapped(help_state *h, const char *help, size_t at) {
  char text[4096];
  expand(help, h->cmd, h->tags, text, sizeof text);
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
  put_text(spec->usage, spec->name, spec->tags, out);
  fputs("\n", out);
  if (spec->about != NULL) {
    fputs("\n", out);
    put_text(spec->about, spec->name, spec->tags, out);
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
    put_text(spec->notes, spec->name, spec->tags, out);
  }
}

/* ---- options shared by every command that reads a model ------------------------------------ */

/* --header: one more header of every HTTP request (http_add_header; its value never printed). */
static int header_option(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)target;
  (void)opt;
  (void)place;
  tool_error err;
  return http_add_header(value, &err) != 0 ? tool_report(&err) : 0;
}

const cli_opt cli_remote_options[] = {
    {.kind = CLI_OPT_CALL,
     .long_name = "header",
     .arg = "'NAME: VALUE'",
     .help = "send this header with every request of a model given as an http:// or https:// URL "
             "(repeatable; an Authorization header replaces HF_TOKEN's); never printed",
     .call = header_option},
    CLI_END,
};
