/* The split rules of the checkpoint commands: options, rules files, GLOB=VALUE. */
#include "ckpt_rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "ckpt_glob.h"
#include "cli_util.h"
#include "io.h"
#include "words.h"

static char *keep(ckpt_rule_set *s, char *text) {
  if (text == NULL) {
    return NULL;
  }
  if (s->owned_count == s->owned_cap) {
    size_t cap = s->owned_cap ? s->owned_cap * 2 : 16;
    char **p = realloc(s->owned, cap * sizeof *p);
    if (p == NULL) {
      free(text);
      return NULL;
    }
    s->owned = p;
    s->owned_cap = cap;
  }
  s->owned[s->owned_count++] = text;
  return text;
}

void ckpt_rule_set_free(ckpt_rule_set *s) {
  for (size_t i = 0; i < s->count; i++) {
    free(s->rules[i].names);
    free(s->rules[i].cut.lengths);
  }
  for (size_t i = 0; i < s->owned_count; i++) {
    free(s->owned[i]);
  }
  free(s->rules);
  free(s->owned);
  memset(s, 0, sizeof *s);
}

static int start_rule(ckpt_rule_set *s, const char *value, const char *where) {
  if (s->count == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 8;
    ckpt_split_rule *p = realloc(s->rules, cap * sizeof *p);
    if (p == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    s->rules = p;
    s->cap = cap;
  }
  ckpt_split_rule *r = &s->rules[s->count++];
  memset(r, 0, sizeof *r);
  r->glob = value;
  r->cut.axis = INT64_MIN;
  char origin[600];
  snprintf(origin, sizeof origin, "%s (--tensor '%.400s')", where, value);
  r->origin = keep(s, strdup(origin));
  if (r->origin == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (ckpt_glob_stars(value) > CKPT_MAX_CAPTURES) {
    return cli_error(CLI_EXIT_USAGE, "%s: at most %d '*' in a glob", r->origin, CKPT_MAX_CAPTURES);
  }
  return 0;
}

static int set_names(ckpt_rule_set *s, ckpt_split_rule *r, const char *value) {
  free(r->names);
  r->names = NULL;
  r->name_count = 0;
  char *copy = keep(s, strdup(value));
  size_t n = 1;
  for (const char *c = value; *c; c++) {
    n += *c == ',';
  }
  r->names = calloc(n + 1, sizeof *r->names);
  if (copy == NULL || r->names == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (char *tok = copy;;) {
    char *comma = strchr(tok, ',');
    if (comma != NULL) {
      *comma = '\0';
    }
    if (*tok == '\0') {
      return cli_error(CLI_EXIT_USAGE, "%s: --into '%s' holds an empty name", r->origin, value);
    }
    if (ckpt_glob_stars(tok) != ckpt_glob_stars(r->glob)) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --into name '%s' has %d '*' but the glob has %d: each '*' of a name "
                       "takes the text the glob's '*' matched",
                       r->origin, tok, ckpt_glob_stars(tok), ckpt_glob_stars(r->glob));
    }
    r->names[r->name_count++] = tok;
    if (comma == NULL) {
      return 0;
    }
    tok = comma + 1;
  }
}

int ckpt_rule_option(ckpt_rule_set *s, int kind, const char *value, const char *where) {
  if (kind == CKPT_RULE_TENSOR) {
    return start_rule(s, value, where);
  }
  if (s->count == 0) {
    return cli_error(CLI_EXIT_USAGE, "%s: a rule starts with --tensor GLOB", where);
  }
  ckpt_split_rule *r = &s->rules[s->count - 1];
  /* Option labels carry the rule, so that a value that does not parse is found in its file. */
  char label[700];
  switch (kind) {
  case CKPT_RULE_VIEW:
    if (ckpt_parse_view(value, &r->cut) != 0) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --view '%s' is not a shape like 8,18,-1 (non-negative sizes, at most "
                       "one -1)",
                       r->origin, value);
    }
    return 0;
  case CKPT_RULE_AXIS:
    snprintf(label, sizeof label, "%s: -a/--axis", r->origin);
    return cli_parse_int64(value, label, &r->cut.axis) != 0 ? CLI_EXIT_USAGE : 0;
  case CKPT_RULE_NUM:
    /* The value's rules (>= 1, dividing the axis) are OpenVINO Split-1's, checked by the
     * library on each matched tensor. */
    r->cut.has_parts = 1;
    snprintf(label, sizeof label, "%s: -n/--num-splits", r->origin);
    return cli_parse_int64(value, label, &r->cut.parts) != 0 ? CLI_EXIT_USAGE : 0;
  case CKPT_RULE_LENGTHS: {
    /* The values' rules are VariadicSplit-1's, checked by the library, which resolves a -1. */
    int unknown = 0;
    free(r->cut.lengths);
    r->cut.lengths = NULL;
    snprintf(label, sizeof label, "%s: -l/--lengths", r->origin);
    if (cli_parse_int64_list(value, label, &r->cut.lengths, &r->cut.length_count, &unknown) != 0) {
      return CLI_EXIT_USAGE;
    }
    return unknown
               ? cli_error(CLI_EXIT_USAGE, "%s: -l '%s': lengths must be known", r->origin, value)
               : 0;
  }
  case CKPT_RULE_INTO:
    return set_names(s, r, value);
  default:
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: rule option %d", kind);
  }
}

int ckpt_rule_command_line(ckpt_rule_set *s, int kind, const char *value) {
  if (kind == CKPT_RULE_TENSOR) {
    char where[64];
    snprintf(where, sizeof where, "rule %zu", ++s->command_line);
    s->last_in_file = 0;
    return ckpt_rule_option(s, kind, value, where);
  }
  if (s->last_in_file || s->command_line == 0) {
    static const char *const names[] = {"--view", "-a", "-n", "-l", "--into"};
    int named = kind >= CKPT_RULE_VIEW && kind <= CKPT_RULE_INTO;
    return cli_error(CLI_EXIT_USAGE,
                     "%s '%s' belongs to no rule: a rule starts with --tensor "
                     "GLOB",
                     named ? names[kind - CKPT_RULE_VIEW] : "option", value);
  }
  return ckpt_rule_option(s, kind, value, "");
}

/* The number of CKPT_EXPERT_MARK in `text`. */
static int marks(const char *text) {
  int n = 0;
  for (const char *p = strstr(text, CKPT_EXPERT_MARK); p != NULL;
       p = strstr(p + 1, CKPT_EXPERT_MARK)) {
    n++;
  }
  return n;
}

/* A rule of experts: one mark in the glob (stack) or in its one name (unstack); no -n, -l or
 * --view, since the experts are the parts. */
static int complete_experts(ckpt_rule_set *s, ckpt_split_rule *r, int in_glob, int in_names) {
  if (!s->experts) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: '%s' (a rule of experts) belongs to 'st split'; here it would be a "
                     "literal name",
                     r->origin, CKPT_EXPERT_MARK);
  }
  if (r->cut.has_parts || r->cut.lengths != NULL || r->cut.has_view) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: a rule of experts ('%s') takes no -n, -l or --view: its parts are the "
                     "experts",
                     r->origin, CKPT_EXPERT_MARK);
  }
  if (r->name_count != 1 || in_glob + in_names != 1) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: a rule of experts has one --into name and '%s' once, in the glob (the "
                     "experts stacked into the name) or in the name (the tensor unstacked)",
                     r->origin, CKPT_EXPERT_MARK);
  }
  r->experts = in_glob ? CKPT_STACK : CKPT_UNSTACK;
  if (!in_glob) {
    return 0;
  }
  if (ckpt_glob_stars(r->glob) + 1 > CKPT_MAX_CAPTURES) {
    return cli_error(CLI_EXIT_USAGE, "%s: at most %d '*' beside '%s' in a glob", r->origin,
                     CKPT_MAX_CAPTURES - 1, CKPT_EXPERT_MARK);
  }
  const char *mark = strstr(r->glob, CKPT_EXPERT_MARK);
  size_t before = (size_t)(mark - r->glob), len = strlen(r->glob), m = strlen(CKPT_EXPERT_MARK);
  char *glob = malloc(len - m + 2);
  if (keep(s, glob) == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  memcpy(glob, r->glob, before);
  glob[before] = '*';
  memcpy(glob + before + 1, mark + m, len - before - m + 1);
  r->expert_capture = 0;
  for (size_t i = 0; i < before; i++) {
    r->expert_capture += r->glob[i] == '*';
  }
  r->stack_glob = glob;
  return 0;
}

int ckpt_rule_complete(ckpt_rule_set *s, ckpt_split_rule *r) {
  if (r->cut.axis == INT64_MIN) {
    return cli_error(CLI_EXIT_USAGE, "%s: -a/--axis is missing", r->origin);
  }
  int in_glob = marks(r->glob), in_names = 0;
  for (size_t i = 0; i < r->name_count; i++) {
    in_names += marks(r->names[i]);
  }
  if (in_glob + in_names > 0) {
    if (r->names == NULL) {
      return cli_error(CLI_EXIT_USAGE, "%s: --into NAME is missing", r->origin);
    }
    return complete_experts(s, r, in_glob, in_names);
  }
  if (r->cut.has_parts == (r->cut.lengths != NULL)) {
    return cli_error(CLI_EXIT_USAGE, "%s: give exactly one of -n N and -l LENGTHS", r->origin);
  }
  if (r->names == NULL) {
    return cli_error(CLI_EXIT_USAGE, "%s: --into NAME,NAME,... is missing", r->origin);
  }
  /* A count the operator refuses (-n 0) is left to the library, whose message says why. */
  size_t parts = !r->cut.has_parts  ? (size_t)r->cut.length_count
                 : r->cut.parts > 0 ? (size_t)r->cut.parts
                                    : r->name_count;
  if (parts != r->name_count) {
    return cli_error(CLI_EXIT_USAGE, "%s: %zu %s but %zu %s in --into", r->origin, parts,
                     tool_plural(parts, "part", "parts"), r->name_count,
                     tool_plural(r->name_count, "name", "names"));
  }
  return 0;
}

/* A rule's option on the command line (target: the set). */
static int command_line_option(void *target, const char *value, const cli_opt *opt,
                               const char *place) {
  (void)place;
  return ckpt_rule_command_line(target, opt->number, value);
}

static int rules_file_option(void *target, const char *value, const cli_opt *opt,
                             const char *place) {
  (void)opt;
  (void)place;
  return ckpt_rules_read(target, value);
}

/* The options of a rule, on the command line (RULE_OPTIONS(command_line_option)) and in a line
 * of a rules file, whose target is a rules_line. */
#define RULE_OPTIONS(T, F, CALL)                                                                   \
  CLI_CALL(0, "tensor", "GLOB", T, F, CALL, CKPT_RULE_TENSOR,                                      \
           "starts a rule. '*' matches any run of characters and captures it; '?' matches one "    \
           "character; every other character, '[' included, matches itself"),                      \
      CLI_CALL(0, "view", "SHAPE", T, F, CALL, CKPT_RULE_VIEW,                                     \
               "reshape the tensor (e.g. 8,18,-1; one -1 allowed) before the split; each part "    \
               "is then folded back to the tensor's trailing dimensions [elements/(d1*...*dn), "   \
               "d1, ..., dn] when they divide it"),                                                \
      CLI_CALL('a', "axis", "AXIS", T, F, CALL, CKPT_RULE_AXIS,                                    \
               "the axis to split (negative counts from the end)"),                                \
      CLI_CALL('n', "num-splits", "N", T, F, CALL, CKPT_RULE_NUM,                                  \
               "N equal parts (Split-1: an uneven split is an error)"),                            \
      CLI_CALL('l', "lengths", "L,L,...", T, F, CALL, CKPT_RULE_LENGTHS,                           \
               "parts of these lengths (VariadicSplit-1: one may be -1)"),                         \
      CLI_CALL(0, "into", "NAME,NAME,...", T, F, CALL, CKPT_RULE_INTO,                             \
               "the parts' names; each '*' takes what the GLOB's '*' captured")

const cli_opt ckpt_rule_options[] = {
    CLI_GROUP("Rules"),
    RULE_OPTIONS(ckpt_rule_set, rules, command_line_option),
    {.kind = CLI_OPT_CALL,
     .long_name = "rules",
     .arg = "FILE",
     .help = "more rules, one per line, written as on the command line: quotes and backslashes "
             "work as in the shell, '#' starts a comment",
     .call = rules_file_option},
    CLI_END,
};

/* A line of a rules file being read. */
typedef struct rules_line {
  ckpt_rule_set *s;
  const char *where;
  /* The set's rule count before the line: a line holds one rule. */
  size_t before;
} rules_line;

static int line_option(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)place;
  rules_line *l = target;
  if (opt->number == CKPT_RULE_TENSOR && l->s->count > l->before) {
    return cli_error(CLI_EXIT_USAGE, "%s: one rule per line", l->where);
  }
  return ckpt_rule_option(l->s, opt->number, value, l->where);
}

static const cli_opt line_options[] = {
    RULE_OPTIONS(rules_line, s, line_option),
    CLI_END,
};

/* One line of a rules file, in words (which the set keeps). */
static int read_line(ckpt_rule_set *s, char **argv, int count, const char *where) {
  if (strcmp(argv[0], "--tensor") != 0) {
    return cli_error(CLI_EXIT_USAGE, "%s: a rule starts with --tensor GLOB, not '%s'", where,
                     argv[0]);
  }
  cli_spec spec = {.name = s->command,
                   .place = where,
                   .usage = "--tensor GLOB [--view SHAPE] -a AXIS (-n N | -l L,L,...) --into "
                            "NAME,NAME,...",
                   .options = line_options,
                   .no_help = 1};
  rules_line l = {s, where, s->count};
  cli_args args;
  int rc = cli_parse(&spec, &l, count, argv, 0, &args);
  if (rc == 0 && args.positional_count > 0) {
    rc = cli_error(CLI_EXIT_USAGE,
                   "%s: only --tensor, --view, -a, -n, -l and --into belong in a rules file, "
                   "not '%s'",
                   where, args.positional[0]);
  }
  cli_args_free(&args);
  return rc;
}

int ckpt_rules_read(ckpt_rule_set *s, const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    tool_error err;
    io_open_fail(&err, errno, "the rules file", path);
    return tool_report(&err);
  }
  char line[8192];
  int rc = 0;
  for (int lineno = 1; rc == 0 && fgets(line, sizeof line, f) != NULL; lineno++) {
    size_t n = strlen(line);
    if (n == sizeof line - 1 && line[n - 1] != '\n') {
      rc = cli_error(CLI_EXIT_USAGE, "%s:%d: the line is longer than %zu bytes", path, lineno,
                     sizeof line - 2);
      break;
    }
    char where[512];
    snprintf(where, sizeof where, "%s:%d", path, lineno);
    words w;
    tool_error err;
    if (words_split(line, n, &w, &err) != 0) {
      tool_prefix(&err, "%s", where);
      rc = tool_report(&err);
      break;
    }
    if (w.count == 0) {
      words_free(&w);
      continue;
    }
    /* The rule's strings point into the words' text: it lives as long as the set. */
    if (keep(s, w.text) == NULL) {
      w.text = NULL;
      words_free(&w);
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      break;
    }
    w.text = NULL;
    rc = read_line(s, w.argv, (int)w.count, where);
    words_free(&w);
    s->last_in_file = 1;
  }
  fclose(f);
  return rc;
}

int ckpt_parse_glob_value(const char *place, const char *text, const char *option, char **glob,
                          const char **value) {
  const char *eq = strrchr(text, '=');
  if (eq == NULL || eq == text || eq[1] == '\0') {
    return cli_error_at(place, CLI_EXIT_USAGE, "%s '%s' is not GLOB=VALUE", option, text);
  }
  *glob = strndup(text, (size_t)(eq - text));
  *value = eq + 1;
  return *glob == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
}
