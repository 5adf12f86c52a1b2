/* cleave st split: fused tensors replaced by their parts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_glob.h"
#include "ckpt_planner.h"
#include "cli_util.h"
#include "help.h"
#include "st_cli.h"
#include "st_write.h"
#include "words.h"

typedef struct rule_set {
  ckpt_split_rule *rules;
  size_t count, cap;
  size_t command_line; /* rules begun on the command line, numbered "rule 1", "rule 2", ... */
  int last_in_file;    /* the last rule came from a rules file */
  char **owned;        /* strings to free */
  size_t owned_count, owned_cap;
} rule_set;

static char *keep(rule_set *s, char *text) {
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

static void rule_set_free(rule_set *s) {
  for (size_t i = 0; i < s->count; i++) {
    free(s->rules[i].names);
    free(s->rules[i].cut.lengths);
  }
  for (size_t i = 0; i < s->owned_count; i++) {
    free(s->owned[i]);
  }
  free(s->rules);
  free(s->owned);
}

/* Applies one rule option to the current (last) rule. */
static int rule_option(rule_set *s, int id, const char *value, const char *where) {
  if (id == OPT_TENSOR) {
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
      return cli_error(CLI_EXIT_USAGE, "%s: at most %d '*' in a glob", r->origin,
                       CKPT_MAX_CAPTURES);
    }
    return 0;
  }
  if (s->count == 0) {
    return cli_error(CLI_EXIT_USAGE, "st split: %s: a rule starts with --tensor GLOB", where);
  }
  ckpt_split_rule *r = &s->rules[s->count - 1];
  /* Option labels carry the rule, so that a value that does not parse is found in its file. */
  char label[700];
  if (id == OPT_VIEW) {
    if (ckpt_parse_view(value, &r->cut) != 0) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --view '%s' is not a shape like 8,18,-1 (non-negative sizes, at "
                       "most one -1)",
                       r->origin, value);
    }
  } else if (id == OPT_AXIS) {
    snprintf(label, sizeof label, "%s: -a/--axis", r->origin);
    if (cli_parse_int64(value, label, &r->cut.axis) != 0) {
      return CLI_EXIT_USAGE;
    }
  } else if (id == OPT_NUM) {
    /* The value's rules (>= 1, dividing the axis) are OpenVINO Split-1's, checked by the
     * library on each matched tensor. */
    snprintf(label, sizeof label, "%s: -n/--num-splits", r->origin);
    if (cli_parse_int64(value, label, &r->cut.parts) != 0) {
      return CLI_EXIT_USAGE;
    }
    r->cut.has_parts = 1;
  } else if (id == OPT_LENGTHS) {
    /* The values' rules (>= -1, one -1 at most, summing to the axis) are VariadicSplit-1's,
     * checked by the library on each matched tensor, which also resolves the -1. */
    int unknown = 0;
    free(r->cut.lengths);
    r->cut.lengths = NULL;
    snprintf(label, sizeof label, "%s: -l/--lengths", r->origin);
    if (cli_parse_int64_list(value, label, &r->cut.lengths, &r->cut.length_count, &unknown) != 0) {
      return CLI_EXIT_USAGE;
    }
    if (unknown) {
      return cli_error(CLI_EXIT_USAGE, "%s: -l '%s': lengths must be known", r->origin, value);
    }
  } else if (id == OPT_INTO) {
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
                         "%s: --into name '%s' has %d '*' but the glob has %d: each '*' of a "
                         "name takes the text the glob's '*' matched",
                         r->origin, tok, ckpt_glob_stars(tok), ckpt_glob_stars(r->glob));
      }
      r->names[r->name_count++] = tok;
      if (comma == NULL) {
        break;
      }
      tok = comma + 1;
    }
  }
  return 0;
}

static int rule_complete(const ckpt_split_rule *r) {
  if (r->cut.axis == INT64_MIN) {
    return cli_error(CLI_EXIT_USAGE, "%s: -a/--axis is missing", r->origin);
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

/* A rules file: one rule per line ("--tensor 'model.*.qkv' -a 0 -l 3,1,1 --into A,B,C"), its
 * words split as a shell splits a command line (quotes and backslashes work as they do there, '#'
 * starts a comment), so that rules copied from a command line mean the same. */
static int read_rules(rule_set *s, const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    return cli_error(CLI_EXIT_NOINPUT, "cannot open the rules file '%s': %s", path,
                     strerror(errno));
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
      tool_prefix(&err, "st split: %s", where);
      rc = tool_report(&err);
      break;
    }
    /* The rule's strings point into the words' text: it lives as long as the rules. */
    if (w.count > 0 && keep(s, w.text) == NULL) {
      w.text = NULL;
      words_free(&w);
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      break;
    }
    if (w.count == 0) {
      words_free(&w);
      continue;
    }
    w.text = NULL;
    if (strcmp(w.argv[0], "--tensor") != 0) {
      rc = cli_error(CLI_EXIT_USAGE, "st split: %s: a rule starts with --tensor GLOB, not '%s'",
                     where, w.argv[0]);
      words_free(&w);
      break;
    }
    cli_parser p;
    cli_parser_init(&p, (int)w.count, w.argv, 0, "st split --rules");
    size_t before = s->count;
    for (;;) {
      int id;
      const char *value;
      int kind = cli_parser_next(&p, st_write_options, st_write_option_count, &id, &value);
      if (kind == CLI_NEXT_END) {
        break;
      }
      if (kind == CLI_NEXT_ERROR) {
        rc = CLI_EXIT_USAGE;
        break;
      }
      if (kind == CLI_NEXT_POSITIONAL || (id != OPT_TENSOR && id != OPT_VIEW && id != OPT_AXIS &&
                                          id != OPT_NUM && id != OPT_LENGTHS && id != OPT_INTO)) {
        rc = cli_error(CLI_EXIT_USAGE,
                       "st split: %s: only --tensor, --view, -a, -n, -l and --into belong in a "
                       "rules file",
                       where);
        break;
      }
      if (id == OPT_TENSOR && s->count > before) {
        rc = cli_error(CLI_EXIT_USAGE, "st split: %s: one rule per line", where);
        break;
      }
      rc = rule_option(s, id, value, where);
      if (rc != 0) {
        break;
      }
    }
    words_free(&w);
    s->last_in_file = 1;
  }
  fclose(f);
  return rc;
}

int cmd_st_split(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "st split");
  write_opts o = {0};
  o.progress = 1;
  rule_set s = {0};
  int rc = 0;
  for (;;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, st_write_options, st_write_option_count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      rc = CLI_EXIT_USAGE;
      break;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (o.model != NULL) {
        rc = cli_error(CLI_EXIT_USAGE, "st split: unexpected argument '%s'", value);
        break;
      }
      o.model = value;
    } else if (id == OPT_HELP) {
      rule_set_free(&s);
      help_print("st split", stdout);
      return 0;
    } else if (st_parse_write_common(id, value, &o)) {
    } else if (id == OPT_RULES) {
      rc = read_rules(&s, value);
    } else if (id == OPT_REPLICATE || id == OPT_UNMATCHED) {
      rc = cli_error(CLI_EXIT_USAGE, "st split: --replicate and --unmatched belong to 'st shard'");
    } else if (id == OPT_TENSOR) {
      char where[64];
      snprintf(where, sizeof where, "rule %zu", ++s.command_line);
      rc = rule_option(&s, id, value, where);
      s.last_in_file = 0;
    } else if (s.last_in_file || s.command_line == 0) {
      /* An option after --rules FILE belongs to no rule of the command line. */
      rc = cli_error(CLI_EXIT_USAGE,
                     "st split: %s '%s' belongs to no rule: a rule starts with --tensor GLOB",
                     id == OPT_VIEW      ? "--view"
                     : id == OPT_AXIS    ? "-a"
                     : id == OPT_NUM     ? "-n"
                     : id == OPT_LENGTHS ? "-l"
                                         : "--into",
                     value);
    } else {
      rc = rule_option(&s, id, value, "");
    }
    if (rc != 0) {
      break;
    }
  }
  if (rc == 0 && o.model == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "st split: the MODEL is missing");
  }
  if (rc == 0 && o.outdir == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "st split: -o OUTDIR is missing");
  }
  if (rc == 0 && s.count == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "st split: no rule (--tensor GLOB ... or --rules FILE)");
  }
  for (size_t i = 0; i < s.count && rc == 0; i++) {
    rc = rule_complete(&s.rules[i]);
  }
  st_model m = {0};
  ckpt_plan plan = {0};
  if (rc == 0) {
    rc = st_load(o.model, &m);
  }
  if (rc == 0) {
    tool_error err;
    ckpt_format format = st_format(&m);
    rc = ckpt_plan_split(&m.ckpt, &format, s.rules, s.count, &plan, &err);
    if (rc != 0) {
      tool_prefix(&err, "st split");
      st_report(&err);
    }
  }
  if (rc == 0) {
    rc = st_execute(&plan, &m, &o, "st split");
  }
  ckpt_plan_free(&plan);
  st_model_free(&m);
  rule_set_free(&s);
  return rc;
}
