/* cleave st ls|check|split|shard: checkpoint surgery on safetensors files. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli_util.h"
#include "commands.h"
#include "progress.h"
#include "st_copy.h"
#include "st_model.h"
#include "st_outdir.h"
#include "st_planner.h"
#include "st_rules.h"

enum {
  OPT_HELP = 1,
  OPT_JSON,
  OPT_QUIET,
  OPT_GLOB,
  OPT_OUTPUT,
  OPT_FORCE,
  OPT_SYNC,
  OPT_DRY_RUN,
  OPT_NO_PROGRESS,
  OPT_TENSOR,
  OPT_VIEW,
  OPT_AXIS,
  OPT_NUM,
  OPT_LENGTHS,
  OPT_INTO,
  OPT_RULES,
  OPT_RANKS,
  OPT_REPLICATE,
  OPT_UNMATCHED,
};

static const cli_option common_options[] = {
    {"help", 'h', 0, OPT_HELP},
    {"json", 0, 0, OPT_JSON},
    {"quiet", 'q', 0, OPT_QUIET},
    {"glob", 0, 1, OPT_GLOB},
};

static const cli_option write_options[] = {
    {"help", 'h', 0, OPT_HELP},         {"json", 0, 0, OPT_JSON},
    {"quiet", 'q', 0, OPT_QUIET},       {"output", 'o', 1, OPT_OUTPUT},
    {"force", 'f', 0, OPT_FORCE},       {"sync", 0, 0, OPT_SYNC},
    {"dry-run", 0, 0, OPT_DRY_RUN},     {"no-progress", 0, 0, OPT_NO_PROGRESS},
    {"tensor", 0, 1, OPT_TENSOR},       {"view", 0, 1, OPT_VIEW},
    {"axis", 'a', 1, OPT_AXIS},         {"num-splits", 'n', 1, OPT_NUM},
    {"lengths", 'l', 1, OPT_LENGTHS},   {"into", 0, 1, OPT_INTO},
    {"rules", 0, 1, OPT_RULES},         {"replicate", 0, 1, OPT_REPLICATE},
    {"unmatched", 0, 1, OPT_UNMATCHED},
};
#define COUNT(a) (sizeof(a) / sizeof(a)[0])

static int print_json(json_t *root) {
  int rc = 0;
  if (root == NULL || json_dumpf(root, stdout, JSON_COMPACT) != 0) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the JSON report");
  }
  json_decref(root);
  fputc('\n', stdout);
  return rc;
}

static int finish_stdout(int rc) {
  if (fflush(stdout) != 0 && rc == 0) {
    rc = cli_error(CLI_EXIT_IOERR, "cannot write the report: %s", strerror(errno));
  }
  return rc;
}

static json_t *shape_json(const int64_t *shape, int ndim) {
  json_t *a = json_array();
  for (int d = 0; d < ndim && a != NULL; d++) {
    json_array_append_new(a, json_integer((json_int_t)shape[d]));
  }
  return a;
}

static int load(const char *path, st_model *m) {
  st_error err;
  int rc = st_model_load(path, m, &err);
  if (rc != 0) {
    cli_error(rc, "%s", err.message);
  }
  return rc;
}

/* ---- ls and check ---- */

static int cmd_ls_check(int argc, char **argv, int first, int is_check) {
  const char *name = is_check ? "st check" : "st ls";
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, name);
  int json = 0, quiet = 0;
  const char *model_path = NULL, *glob = NULL;
  for (;;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, common_options, COUNT(common_options), &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      return CLI_EXIT_USAGE;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (model_path != NULL) {
        return cli_error(CLI_EXIT_USAGE, "%s: unexpected argument '%s'", name, value);
      }
      model_path = value;
    } else if (id == OPT_HELP) {
      help_print(name, stdout);
      return 0;
    } else if (id == OPT_JSON) {
      json = 1;
    } else if (id == OPT_QUIET) {
      quiet = 1;
    } else if (id == OPT_GLOB && !is_check) {
      glob = value;
    } else {
      return cli_error(CLI_EXIT_USAGE, "%s: --glob belongs to 'st ls'", name);
    }
  }
  if (model_path == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: the MODEL (a .safetensors file, an index or a folder) "
                     "is missing",
                     name);
  }
  st_model m;
  st_error err;
  int rc = st_model_load(model_path, &m, &err);
  if (rc != 0) {
    cli_error(rc, "%s", err.message);
    if (is_check && json) {
      json_t *o = json_pack("{s:b,s:i,s:s}", "ok", 0, "status", rc, "error", err.message);
      print_json(o);
    }
    st_model_free(&m);
    return finish_stdout(rc);
  }
  if (is_check) {
    size_t files = m.file_count;
    if (json) {
      json_t *o = json_pack("{s:b,s:I,s:I,s:I}", "ok", 1, "files", (json_int_t)files, "tensors",
                            (json_int_t)m.tensor_count, "bytes", (json_int_t)st_model_bytes(&m));
      rc = print_json(o);
    } else if (!quiet) {
      printf("%s: ok: %zu file%s, %zu tensors, %llu bytes of data\n", model_path, files,
             files == 1 ? "" : "s", m.tensor_count, st_model_bytes(&m));
    }
    st_model_free(&m);
    return finish_stdout(rc);
  }
  json_t *list = json ? json_array() : NULL;
  size_t shown = 0;
  for (size_t i = 0; i < m.tensor_count && rc == 0; i++) {
    const st_tensor *t = st_model_tensor(&m, m.sorted[i]);
    if (glob != NULL && !st_glob_match(glob, t->name, NULL)) {
      continue;
    }
    shown++;
    const char *file = m.file_names[m.sorted[i].file];
    if (json) {
      json_t *o = json_pack("{s:s,s:s,s:o,s:I,s:s}", "name", t->name, "dtype", t->dtype->name,
                            "shape", shape_json(t->shape, t->ndim), "bytes",
                            (json_int_t)st_tensor_bytes(t), "file", file);
      if (o == NULL || json_array_append_new(list, o) != 0) {
        rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      }
    } else if (!quiet) {
      char shape[1024];
      st_shape_text(t->shape, t->ndim, shape, sizeof shape);
      printf("%s\t%s\t%s\t%llu\t%s\n", t->name, t->dtype->name, shape,
             (unsigned long long)st_tensor_bytes(t), file);
    }
  }
  if (rc == 0 && json) {
    rc = print_json(json_pack("{s:o}", "tensors", list));
  } else {
    json_decref(list);
  }
  if (rc == 0 && glob != NULL && shown == 0) {
    rc = cli_error(CLI_EXIT_DATA, "st ls: no tensor of '%s' matches '%s'", model_path, glob);
  }
  st_model_free(&m);
  return finish_stdout(rc);
}

/* ---- split and shard: shared options ---- */

typedef struct write_opts {
  const char *model, *outdir;
  int json, quiet, force, sync, dry_run, progress;
} write_opts;

/* Prints the plan (dry run) or the outputs written. */
static int report(const st_plan *plan, const st_model *m, const write_opts *o, const char *cmd,
                  int detailed) {
  if (o->quiet && !o->json) {
    return 0;
  }
  json_t *outs = o->json ? json_array() : NULL;
  size_t n = strlen(o->outdir);
  const char *sep = n > 0 && o->outdir[n - 1] == '/' ? "" : "/";
  for (size_t i = 0; i < plan->file_count; i++) {
    const st_out_file *f = &plan->files[i];
    unsigned long long size = 8 + f->header_size + f->data_size;
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", o->outdir, sep, f->name);
    if (!o->json) {
      printf("%s\t%zu tensors\t%llu bytes\n", path, f->count, size);
    }
    json_t *tensors = o->json && detailed ? json_array() : NULL;
    for (size_t k = 0; detailed && k < f->count; k++) {
      const st_piece *p = &f->pieces[k];
      if (o->json) {
        json_array_append_new(tensors,
                              json_pack("{s:s,s:s,s:o,s:I,s:s,s:s}", "name", p->name, "dtype",
                                        p->dtype->name, "shape", shape_json(p->shape, p->ndim),
                                        "bytes", (json_int_t)(p->end - p->begin), "source",
                                        p->source, "source_file", m->file_names[p->src_file]));
      } else {
        char shape[1024];
        st_shape_text(p->shape, p->ndim, shape, sizeof shape);
        printf("  %s\t%s\t%s\t%llu\t<- %s (%s)\n", p->name, p->dtype->name, shape,
               (unsigned long long)(p->end - p->begin), p->source, m->file_names[p->src_file]);
      }
    }
    if (o->json) {
      json_t *e = json_pack("{s:s,s:I,s:I}", "path", path, "tensors", (json_int_t)f->count, "bytes",
                            (json_int_t)size);
      if (tensors != NULL) {
        json_object_set_new(e, "plan", tensors);
      }
      json_array_append_new(outs, e);
    }
  }
  if (plan->index_name != NULL) {
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", o->outdir, sep, plan->index_name);
    if (o->json) {
      json_array_append_new(outs, json_pack("{s:s,s:s}", "path", path, "kind", "index"));
    } else {
      printf("%s\tindex\n", path);
    }
  }
  if (o->json) {
    return print_json(
        json_pack("{s:s,s:b,s:o}", "command", cmd, "dry_run", o->dry_run, "outputs", outs));
  }
  return 0;
}

static int write_text_file(const st_outdir *out, size_t i, const char *text) {
  int fd;
  int rc = st_outdir_open(out, i, &fd);
  if (rc != 0) {
    return rc;
  }
  size_t n = strlen(text), done = 0;
  while (done < n) {
    ssize_t w = write(fd, text + done, n - done);
    if (w < 0 && errno == EINTR) {
      continue;
    }
    if (w <= 0) {
      rc = cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", out->finals[i],
                     strerror(w == 0 ? ENOSPC : errno));
      break;
    }
    done += (size_t)w;
  }
  int close_rc = st_outdir_close(out, i, fd);
  return rc != 0 ? rc : close_rc;
}

/* Writes the plan's files (and index, last) to OUTDIR all-or-nothing. */
static int execute(const st_plan *plan, const st_model *m, const write_opts *o, const char *cmd) {
  if (o->dry_run) {
    return finish_stdout(report(plan, m, o, cmd, 1));
  }
  size_t count = plan->file_count + (plan->index_name != NULL);
  char **names = calloc(count + 1, sizeof *names);
  if (names == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < plan->file_count; i++) {
    names[i] = plan->files[i].name;
  }
  if (plan->index_name != NULL) {
    names[plan->file_count] = plan->index_name;
  }
  st_outdir out;
  int rc = st_outdir_init(&out, o->outdir, names, count, m, o->force, o->sync);
  free(names);
  if (rc == 0) {
    rc = st_outdir_create(&out);
  }
  if (rc == 0) {
    unsigned long long total = 0;
    for (size_t i = 0; i < plan->file_count; i++) {
      total += plan->files[i].data_size + plan->files[i].header_size + 8;
    }
    progress pr;
    progress_init(&pr, o->progress && !o->quiet && isatty(2), total);
    rc = st_copy_plan(plan, m, &out, &pr);
    progress_finish(&pr);
  }
  if (rc == 0 && plan->index_text != NULL) {
    rc = write_text_file(&out, plan->file_count, plan->index_text);
  }
  if (rc == 0) {
    /* The report goes out before the commit: a closed stdout fails the run with nothing
     * written, like the .npy commands. */
    rc = report(plan, m, o, cmd, 0);
    if (rc == 0 && fflush(stdout) != 0) {
      rc = cli_error(CLI_EXIT_IOERR, "cannot write the report: %s", strerror(errno));
    }
  }
  if (rc == 0) {
    rc = st_outdir_commit(&out);
  } else {
    st_outdir_abort(&out);
  }
  st_outdir_free(&out);
  return rc;
}

/* ---- split ---- */

typedef struct rule_set {
  st_split_rule *rules;
  size_t count, cap;
  char **owned; /* strings to free */
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
      st_split_rule *p = realloc(s->rules, cap * sizeof *p);
      if (p == NULL) {
        return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      }
      s->rules = p;
      s->cap = cap;
    }
    st_split_rule *r = &s->rules[s->count++];
    memset(r, 0, sizeof *r);
    r->glob = value;
    r->cut.axis = INT64_MIN;
    char origin[600];
    snprintf(origin, sizeof origin, "%s (--tensor '%.400s')", where, value);
    r->origin = keep(s, strdup(origin));
    if (r->origin == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    if (st_glob_stars(value) > ST_MAX_CAPTURES) {
      return cli_error(CLI_EXIT_USAGE, "%s: at most %d '*' in a glob", r->origin, ST_MAX_CAPTURES);
    }
    return 0;
  }
  if (s->count == 0) {
    return cli_error(CLI_EXIT_USAGE, "st split: %s: a rule starts with --tensor GLOB", where);
  }
  st_split_rule *r = &s->rules[s->count - 1];
  if (id == OPT_VIEW) {
    if (st_parse_view(value, &r->cut) != 0) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --view '%s' is not a shape like 8,18,-1 (non-negative sizes, at "
                       "most one -1)",
                       r->origin, value);
    }
  } else if (id == OPT_AXIS) {
    if (cli_parse_int64(value, "-a/--axis", &r->cut.axis) != 0) {
      return CLI_EXIT_USAGE;
    }
  } else if (id == OPT_NUM) {
    if (cli_parse_int64(value, "-n/--num-splits", &r->cut.parts) != 0) {
      return CLI_EXIT_USAGE;
    }
    if (r->cut.parts < 1) {
      return cli_error(CLI_EXIT_USAGE, "%s: -n must be at least 1, not %s", r->origin, value);
    }
  } else if (id == OPT_LENGTHS) {
    int unknown = 0;
    free(r->cut.lengths);
    r->cut.lengths = NULL;
    if (cli_parse_int64_list(value, "-l/--lengths", &r->cut.lengths, &r->cut.length_count,
                             &unknown) != 0) {
      return CLI_EXIT_USAGE;
    }
    int minus = 0;
    for (int64_t i = 0; !unknown && i < r->cut.length_count; i++) {
      minus += r->cut.lengths[i] == -1;
      if (r->cut.lengths[i] < -1 || minus > 1) {
        return cli_error(CLI_EXIT_USAGE, "%s: -l '%s': lengths are non-negative, and one may be -1",
                         r->origin, value);
      }
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
      if (st_glob_stars(tok) != st_glob_stars(r->glob)) {
        return cli_error(CLI_EXIT_USAGE,
                         "%s: --into name '%s' has %d '*' but the glob has %d: each '*' of a "
                         "name takes the text the glob's '*' matched",
                         r->origin, tok, st_glob_stars(tok), st_glob_stars(r->glob));
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

static int rule_complete(const st_split_rule *r) {
  if (r->cut.axis == INT64_MIN) {
    return cli_error(CLI_EXIT_USAGE, "%s: -a/--axis is missing", r->origin);
  }
  if ((r->cut.parts > 0) == (r->cut.lengths != NULL)) {
    return cli_error(CLI_EXIT_USAGE, "%s: give exactly one of -n N and -l LENGTHS", r->origin);
  }
  if (r->names == NULL) {
    return cli_error(CLI_EXIT_USAGE, "%s: --into NAME,NAME,... is missing", r->origin);
  }
  size_t parts = r->cut.parts > 0 ? (size_t)r->cut.parts : (size_t)r->cut.length_count;
  if (parts != r->name_count) {
    return cli_error(CLI_EXIT_USAGE, "%s: %zu parts but %zu names in --into", r->origin, parts,
                     r->name_count);
  }
  return 0;
}

/* A rules file: one rule per line ("--tensor GLOB -a 0 -l 3,1,1 --into A,B,C"), '#' comments.
 * Tokens are separated by spaces or tabs; no quoting. */
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
    char *copy = keep(s, strdup(line));
    if (copy == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      break;
    }
    char *tokens[64];
    int count = 0;
    for (char *tok = strtok(copy, " \t\r\n"); tok != NULL; tok = strtok(NULL, " \t\r\n")) {
      if (tok[0] == '#') {
        break;
      }
      if (count == 63) {
        rc = cli_error(CLI_EXIT_USAGE, "%s:%d: too many words", path, lineno);
        break;
      }
      tokens[count++] = tok;
    }
    if (rc != 0 || count == 0) {
      continue;
    }
    tokens[count] = NULL;
    char where[512];
    snprintf(where, sizeof where, "%s:%d", path, lineno);
    if (strcmp(tokens[0], "--tensor") != 0) {
      rc = cli_error(CLI_EXIT_USAGE, "%s: a rule starts with --tensor GLOB", where);
      break;
    }
    cli_parser p;
    cli_parser_init(&p, count, tokens, 0, "st split --rules");
    size_t before = s->count;
    for (;;) {
      int id;
      const char *value;
      int kind = cli_parser_next(&p, write_options, COUNT(write_options), &id, &value);
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
                       "%s: only --tensor, --view, -a, -n, -l and --into "
                       "belong in a rules file",
                       where);
        break;
      }
      if (id == OPT_TENSOR && s->count > before) {
        rc = cli_error(CLI_EXIT_USAGE, "%s: one rule per line", where);
        break;
      }
      rc = rule_option(s, id, value, where);
      if (rc != 0) {
        break;
      }
    }
  }
  fclose(f);
  return rc;
}

static int parse_write_common(int id, const char *value, write_opts *o) {
  switch (id) {
  case OPT_OUTPUT:
    o->outdir = value;
    return 1;
  case OPT_FORCE:
    o->force = 1;
    return 1;
  case OPT_SYNC:
    o->sync = 1;
    return 1;
  case OPT_DRY_RUN:
    o->dry_run = 1;
    return 1;
  case OPT_JSON:
    o->json = 1;
    return 1;
  case OPT_QUIET:
    o->quiet = 1;
    return 1;
  case OPT_NO_PROGRESS:
    o->progress = 0;
    return 1;
  default:
    return 0;
  }
}

static int cmd_split_st(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "st split");
  write_opts o = {0};
  o.progress = 1;
  rule_set s = {0};
  int rc = 0;
  for (;;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, write_options, COUNT(write_options), &id, &value);
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
    } else if (parse_write_common(id, value, &o)) {
    } else if (id == OPT_RULES) {
      rc = read_rules(&s, value);
    } else if (id == OPT_REPLICATE || id == OPT_UNMATCHED) {
      rc = cli_error(CLI_EXIT_USAGE, "st split: --replicate and --unmatched belong to 'st shard'");
    } else {
      char where[64];
      snprintf(where, sizeof where, "rule %zu", s.count + (id == OPT_TENSOR));
      rc = rule_option(&s, id, value, where);
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
  st_plan plan = {0};
  if (rc == 0) {
    rc = load(o.model, &m);
  }
  if (rc == 0) {
    st_error err;
    rc = st_plan_split(&m, s.rules, s.count, &plan, &err);
    if (rc != 0) {
      cli_error(rc, "st split: %s", err.message);
    }
  }
  if (rc == 0) {
    rc = execute(&plan, &m, &o, "st split");
  }
  st_plan_free(&plan);
  st_model_free(&m);
  rule_set_free(&s);
  return rc;
}

/* ---- shard ---- */

static int parse_glob_value(const char *text, const char *option, char **glob, const char **value) {
  const char *eq = strrchr(text, '=');
  if (eq == NULL || eq == text || eq[1] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "st shard: %s '%s' is not GLOB=VALUE", option, text);
  }
  *glob = strndup(text, (size_t)(eq - text));
  *value = eq + 1;
  return *glob == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
}

static int cmd_shard_st(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "st shard");
  write_opts o = {0};
  o.progress = 1;
  size_t max = (size_t)argc + 1;
  st_shard_rule *axes = calloc(max, sizeof *axes);
  st_shard_rule *views = calloc(max, sizeof *views);
  const char **replicate = calloc(max, sizeof *replicate);
  st_shard_spec spec = {0};
  spec.axes = axes;
  spec.views = views;
  spec.replicate = replicate;
  int rc = axes == NULL || views == NULL || replicate == NULL
               ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
               : 0;
  for (; rc == 0;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, write_options, COUNT(write_options), &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      rc = CLI_EXIT_USAGE;
      break;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (o.model != NULL) {
        rc = cli_error(CLI_EXIT_USAGE, "st shard: unexpected argument '%s'", value);
      }
      o.model = value;
    } else if (id == OPT_HELP) {
      o.model = NULL;
      rc = -1;
    } else if (parse_write_common(id, value, &o)) {
    } else if (id == OPT_NUM) {
      if (cli_parse_int64(value, "-n/--num-splits", &spec.ranks) != 0) {
        rc = CLI_EXIT_USAGE;
      } else if (spec.ranks < 1 || spec.ranks > 4096) {
        rc = cli_error(CLI_EXIT_USAGE, "st shard: -n RANKS must be from 1 to 4096, not %s", value);
      }
    } else if (id == OPT_AXIS) {
      char *glob;
      const char *v;
      rc = parse_glob_value(value, "--axis", &glob, &v);
      if (rc == 0) {
        st_shard_rule *r = &axes[spec.axis_count++];
        r->glob = glob;
        if (cli_parse_int64(v, "--axis GLOB=AXIS", &r->axis) != 0) {
          rc = CLI_EXIT_USAGE;
        }
      }
    } else if (id == OPT_VIEW) {
      char *glob;
      const char *v;
      rc = parse_glob_value(value, "--view", &glob, &v);
      if (rc == 0) {
        st_shard_rule *r = &views[spec.view_count++];
        r->glob = glob;
        if (st_parse_view(v, &r->view) != 0) {
          rc = cli_error(CLI_EXIT_USAGE,
                         "st shard: --view '%s': '%s' is not a shape like "
                         "8,18,-1",
                         value, v);
        }
      }
    } else if (id == OPT_REPLICATE) {
      replicate[spec.replicate_count++] = value;
    } else if (id == OPT_UNMATCHED) {
      if (strcmp(value, "replicate") == 0) {
        spec.unmatched_error = 0;
      } else if (strcmp(value, "error") == 0) {
        spec.unmatched_error = 1;
      } else {
        rc = cli_error(CLI_EXIT_USAGE, "st shard: --unmatched is 'replicate' or 'error', not '%s'",
                       value);
      }
    } else {
      rc = cli_error(CLI_EXIT_USAGE,
                     "st shard: --tensor, -l, --into and --rules belong to 'st split'; shard "
                     "takes -n RANKS and --axis GLOB=AXIS");
    }
  }
  if (rc == -1) {
    rc = 0;
    help_print("st shard", stdout);
    o.dry_run = -1;
  } else if (rc == 0 && o.model == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "st shard: the MODEL is missing");
  } else if (rc == 0 && o.outdir == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "st shard: -o OUTDIR is missing");
  } else if (rc == 0 && spec.ranks == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "st shard: -n RANKS is missing");
  } else if (rc == 0 && spec.axis_count == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "st shard: no --axis GLOB=AXIS rule");
  }
  st_model m = {0};
  st_plan plan = {0};
  if (rc == 0 && o.dry_run >= 0) {
    rc = load(o.model, &m);
    if (rc == 0) {
      st_error err;
      rc = st_plan_shard(&m, &spec, &plan, &err);
      if (rc != 0) {
        cli_error(rc, "st shard: %s", err.message);
      }
    }
    if (rc == 0) {
      rc = execute(&plan, &m, &o, "st shard");
    }
  }
  st_plan_free(&plan);
  st_model_free(&m);
  for (size_t i = 0; i < spec.axis_count; i++) {
    free((char *)axes[i].glob);
  }
  for (size_t i = 0; i < spec.view_count; i++) {
    free((char *)views[i].glob);
  }
  free(axes);
  free(views);
  free(replicate);
  return rc;
}

int cmd_st(int argc, char **argv, int first) {
  if (first >= argc) {
    help_print("st", stderr);
    return cli_error(CLI_EXIT_USAGE, "st: a subcommand is missing (ls, check, split, shard)");
  }
  const char *sub = argv[first];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
    help_print("st", stdout);
    return 0;
  }
  if (strcmp(sub, "ls") == 0) {
    return cmd_ls_check(argc, argv, first + 1, 0);
  }
  if (strcmp(sub, "check") == 0) {
    return cmd_ls_check(argc, argv, first + 1, 1);
  }
  if (strcmp(sub, "split") == 0) {
    return cmd_split_st(argc, argv, first + 1);
  }
  if (strcmp(sub, "shard") == 0) {
    return cmd_shard_st(argc, argv, first + 1);
  }
  return cli_error(CLI_EXIT_USAGE, "st: unknown subcommand '%s' (ls, check, split, shard)", sub);
}
