/*
 * cleave gguf merge: a split set (gguf-split's or cleave's) back into one file, or into a set of
 * another size; with --axis rules, the ranks of a tensor-parallel checkpoint (gguf shard's)
 * joined into one model, the inverse of gguf shard. -o names the output file in both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "cli_util.h"
#include "gguf_cli.h"
#include "gguf_ranks.h"
#include "gguf_write.h"
#include "help.h"

/* One output file holding every tensor of the set, in the set's order, with the first file's
 * metadata. */
static int plan_set(const gguf_model *m, const char *name, ckpt_plan *plan, tool_error *err) {
  memset(plan, 0, sizeof *plan);
  int rc = ckpt_plan_files(plan, 1, err);
  ckpt_out_file *out = rc == 0 ? &plan->files[0] : NULL;
  if (rc == 0) {
    out->name = strdup(name);
    out->meta = m->ckpt.files[0].meta;
    out->meta_count = m->ckpt.files[0].meta_count;
    out->has_meta = 1;
    rc = out->name == NULL ? tool_oom(err, "planning the merge") : 0;
  }
  for (size_t f = 0; f < m->ckpt.file_count && rc == 0; f++) {
    const ckpt_file *file = &m->ckpt.files[f];
    for (size_t k = 0; k < file->tensor_count && rc == 0; k++) {
      ckpt_out_tensor t = ckpt_out_whole(&file->tensors[k]);
      ckpt_span span = ckpt_span_whole(&file->tensors[k]);
      if (ckpt_out_file_add(out, &t, &span, 1) != 0) {
        rc = tool_oom(err, "planning the merge");
      }
    }
  }
  return rc;
}

/* The ranks joined by the rules into one file named `name`. */
static int plan_ranks(const gguf_model *m, const ckpt_shard_spec *spec, const char *name,
                      ckpt_plan *plan, tool_error *err) {
  ckpt_format format = gguf_format(m);
  int rc = ckpt_plan_merge(&m->ckpt, &format, spec, 0, plan, err);
  if (rc == 0 && plan->file_count == 1) {
    char *copy = strdup(name);
    if (copy == NULL) {
      return tool_oom(err, "planning the merge");
    }
    free(plan->files[0].name);
    plan->files[0].name = copy;
  }
  return rc;
}

/* What the command line asked. */
typedef struct merge_args {
  gguf_write_opts o;
  ckpt_rank_rules rules;
  char **parts;
  size_t part_count;
  const char *output;
  int help;
} merge_args;

static int parse(merge_args *a, int argc, char **argv, int first) {
  static const char cmd[] = "gguf merge";
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, cmd);
  int rc = 0;
  while (rc == 0 && !a->help) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, gguf_write_options, gguf_write_option_count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      rc = CLI_EXIT_USAGE;
    } else if (kind == CLI_NEXT_POSITIONAL) {
      a->parts[a->part_count++] = (char *)value;
    } else if (id == GOPT_HELP) {
      a->help = 1;
    } else if (id == GOPT_OUTPUT) {
      a->output = value;
    } else if (id == CKPT_RULE_NUM) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "%s writes one model: -n RANKS belongs to 'gguf shard' and "
                     "'gguf reshard'",
                     cmd);
    } else if (gguf_parse_write_option(id, value, &a->o, &rc)) {
    } else if (!gguf_rank_option(&a->rules, id, value, cmd, &rc)) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "%s: takes PART... (a split set) or RANK... with --axis GLOB=AXIS rules, -o "
                     "OUT.gguf and the output options; --tensor, -l, --into and --rules belong "
                     "to 'gguf split'",
                     cmd);
    }
  }
  const ckpt_shard_spec *spec = &a->rules.spec;
  if (rc != 0 || a->help) {
    return rc;
  }
  if (a->part_count == 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: the PARTs are missing (a split set's files, or with --axis rules the "
                     "RANKs)",
                     cmd);
  }
  if (a->output == NULL || a->output[0] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "%s: -o OUT.gguf is missing", cmd);
  }
  if (spec->axis_count == 0 &&
      (spec->view_count > 0 || spec->replicate_count > 0 || spec->unmatched_error)) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --view, --replicate and --unmatched join ranks with "
                     "--axis GLOB=AXIS rules; a split set takes none",
                     cmd);
  }
  return 0;
}

int cmd_gguf_merge(int argc, char **argv, int first) {
  merge_args a;
  memset(&a, 0, sizeof a);
  gguf_write_opts_init(&a.o, argc, argv);
  a.parts = calloc((size_t)argc + 1, sizeof *a.parts);
  int rc = a.parts == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
                           : ckpt_rank_rules_init(&a.rules, argc);
  if (rc == 0) {
    rc = parse(&a, argc, argv, first);
  }
  if (rc == 0 && a.help) {
    help_print("gguf merge", stdout);
  }
  /* -o names the file: its folder is the output folder, its name the file's. */
  char *dir = NULL, *base = NULL;
  const char *name = NULL;
  if (rc == 0 && !a.help) {
    const char *slash = strrchr(a.output, '/');
    name = slash != NULL ? slash + 1 : a.output;
    dir = slash == a.output ? strdup("/")
          : slash != NULL   ? strndup(a.output, (size_t)(slash - a.output))
                            : strdup(".");
    size_t n = strlen(name);
    base = strndup(name, n > 5 && strcmp(name + n - 5, ".gguf") == 0 ? n - 5 : n);
    if (dir == NULL || base == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    } else if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
      rc = cli_error(CLI_EXIT_USAGE, "gguf merge: -o '%s' does not name a file", a.output);
    }
    a.o.run.outdir = dir;
    /* OUT.gguf goes into a folder of other files (often the ranks): not a folder of outputs. */
    a.o.run.stale_suffixes = NULL;
  }
  gguf_model m;
  memset(&m, 0, sizeof m);
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  tool_error err;
  int ranks = a.rules.spec.axis_count > 0;
  if (rc == 0 && !a.help) {
    rc = ranks ? gguf_ranks_load(a.parts, a.part_count, &m, &err)
               : gguf_model_load_parts(a.parts, a.part_count, &m, &err);
    if (rc == 0) {
      rc = ranks ? plan_ranks(&m, &a.rules.spec, name, &plan, &err)
                 : plan_set(&m, name, &plan, &err);
    }
    if (rc != 0) {
      tool_prefix(&err, "gguf merge");
      gguf_report(&err);
    }
  }
  if (rc == 0 && !a.help) {
    gguf_output_options out = {a.o.max_size, base, 0};
    rc = gguf_run(&m, &plan, &a.o, &out, "gguf merge");
  }
  ckpt_plan_free(&plan);
  gguf_model_free(&m);
  ckpt_rank_rules_free(&a.rules);
  free(dir);
  free(base);
  free(a.parts);
  return rc;
}
