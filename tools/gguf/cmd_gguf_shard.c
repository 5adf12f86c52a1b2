/* cleave gguf shard: one GGUF file per tensor-parallel rank; cleave gguf reshard: the ranks of a
 * tensor-parallel GGUF checkpoint (gguf shard's) into another number of ranks in one pass, byte
 * for byte what gguf merge then gguf shard -n M give with the same rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "cli_util.h"
#include "gguf_cli.h"
#include "gguf_ranks.h"
#include "gguf_write.h"
#include "help.h"

/* What the command line asked: the inputs (shard: one MODEL; reshard: the RANKs). */
typedef struct rank_args {
  gguf_write_opts o;
  ckpt_rank_rules rules;
  char **inputs;
  size_t input_count;
  int help;
} rank_args;

static int parse(rank_args *a, int argc, char **argv, int first, int reshard, const char *cmd) {
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
    } else if (kind == CLI_NEXT_POSITIONAL && !reshard && a->input_count == 1) {
      rc = cli_error(CLI_EXIT_USAGE, "%s: unexpected argument '%s'", cmd, value);
    } else if (kind == CLI_NEXT_POSITIONAL) {
      a->inputs[a->input_count++] = (char *)value;
    } else if (id == GOPT_HELP) {
      a->help = 1;
    } else if (id == GOPT_MAX_SIZE) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "%s: --max-shard-size belongs to 'gguf split' and 'gguf merge' (a rank is "
                     "one file)",
                     cmd);
    } else if (gguf_parse_write_option(id, value, &a->o, &rc)) {
    } else if (!gguf_rank_option(&a->rules, id, value, cmd, &rc)) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "%s: --tensor, -l, --into and --rules belong to 'gguf split'; %s takes -n "
                     "RANKS and --axis GLOB=AXIS",
                     cmd, cmd + 5);
    }
  }
  if (rc != 0 || a->help) {
    return rc;
  }
  if (a->input_count == 0) {
    return reshard ? cli_error(CLI_EXIT_USAGE,
                               "%s: the RANK files are missing (the rank files in rank order, or "
                               "one folder of rank<R>.gguf)",
                               cmd)
                   : cli_error(CLI_EXIT_USAGE, "%s: the MODEL is missing", cmd);
  }
  if (a->o.run.outdir == NULL) {
    return cli_error(CLI_EXIT_USAGE, "%s: -o OUTDIR is missing", cmd);
  }
  if (a->rules.spec.ranks == 0) {
    return cli_error(CLI_EXIT_USAGE, "%s: -n RANKS is missing", cmd);
  }
  if (a->rules.spec.axis_count == 0) {
    return cli_error(CLI_EXIT_USAGE, "%s: no --axis GLOB=AXIS rule", cmd);
  }
  return 0;
}

static int rank_command(int argc, char **argv, int first, int reshard) {
  const char *cmd = reshard ? "gguf reshard" : "gguf shard";
  rank_args a;
  memset(&a, 0, sizeof a);
  gguf_write_opts_init(&a.o, argc, argv);
  a.inputs = calloc((size_t)argc + 1, sizeof *a.inputs);
  int rc = a.inputs == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
                            : ckpt_rank_rules_init(&a.rules, argc);
  if (rc == 0) {
    rc = parse(&a, argc, argv, first, reshard, cmd);
  }
  gguf_model m;
  memset(&m, 0, sizeof m);
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  if (rc == 0 && a.help) {
    help_print(cmd, stdout);
  } else if (rc == 0) {
    tool_error err;
    rc = reshard ? gguf_ranks_load(a.inputs, a.input_count, &m, &err)
                 : gguf_model_load(a.inputs[0], &m, &err);
    if (rc == 0) {
      ckpt_format format = gguf_format(&m);
      rc = reshard ? ckpt_plan_reshard(&m.ckpt, &format, &a.rules.spec, &plan, &err)
                   : ckpt_plan_shard(&m.ckpt, &format, &a.rules.spec, &plan, &err);
      if (rc != 0) {
        tool_prefix(&err, "%s", cmd);
      }
    }
    if (rc != 0) {
      gguf_report(&err);
    } else {
      gguf_output_options out = {0, NULL, 0};
      rc = gguf_run(&m, &plan, &a.o, &out, cmd);
    }
  }
  ckpt_plan_free(&plan);
  gguf_model_free(&m);
  ckpt_rank_rules_free(&a.rules);
  free(a.inputs);
  return rc;
}

int cmd_gguf_shard(int argc, char **argv, int first) {
  return rank_command(argc, argv, first, 0);
}

int cmd_gguf_reshard(int argc, char **argv, int first) {
  return rank_command(argc, argv, first, 1);
}
