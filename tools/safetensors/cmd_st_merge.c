/* cleave st merge and st reshard: the ranks of a tensor-parallel checkpoint joined into one
 * model, or into another number of ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "cli_util.h"
#include "help.h"
#include "st_cli.h"
#include "st_ranks.h"
#include "st_write.h"

/* The options of merge (max_size) or reshard (rules.base.spec.ranks), and the RANK... paths. */
typedef struct merge_args {
  write_opts o;
  st_rank_rules rules;
  char **ranks;
  size_t rank_count;
  uint64_t max_size;
  ckpt_quant quant;
  int help;
} merge_args;

static int parse(merge_args *a, int argc, char **argv, int first, int reshard, const char *cmd) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, cmd);
  int rc = 0;
  while (rc == 0) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, st_write_options, st_write_option_count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      return CLI_EXIT_USAGE;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      a->ranks[a->rank_count++] = (char *)value;
    } else if (id == OPT_HELP) {
      a->help = 1;
    } else if (st_parse_write_common(id, value, &a->o)) {
    } else if (st_rank_rule_option(&a->rules, id, value, cmd, &rc)) {
    } else if (id == OPT_QUANT_BLOCK) {
      rc = st_parse_quant_block(value, cmd, &a->quant);
    } else if (id == OPT_NUM && reshard) {
      rc = ckpt_rank_rules_apply(&a->rules.base, CKPT_RANK_NUM, value, cmd);
    } else if (id == OPT_NUM) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "st merge writes one model: -n RANKS belongs to 'st reshard' and 'st shard'");
    } else if (id == OPT_MAX_SHARD_SIZE && !reshard) {
      rc = st_parse_max_shard_size(value, cmd, &a->max_size);
    } else if (id == OPT_MAX_SHARD_SIZE) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "st reshard: --max-shard-size belongs to 'st merge' and 'st split'; each "
                     "rank is one file");
    } else {
      rc = cli_error(CLI_EXIT_USAGE,
                     "%s: --tensor, -l, --into and --rules belong to 'st split'; %s takes "
                     "--axis GLOB=AXIS or --preset",
                     cmd, cmd + 3);
    }
  }
  if (rc != 0 || a->help) {
    return rc;
  }
  if (a->rank_count == 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: the RANK checkpoints are missing (the rank files in rank order, or one "
                     "folder of rank<R>.safetensors)",
                     cmd);
  }
  if (a->o.outdir == NULL) {
    return cli_error(CLI_EXIT_USAGE, "%s: -o OUTDIR is missing", cmd);
  }
  if (reshard && a->rules.base.spec.ranks == 0) {
    return cli_error(CLI_EXIT_USAGE, "%s: -n RANKS is missing", cmd);
  }
  if (a->rules.base.spec.axis_count == 0 && a->rules.preset_name == NULL) {
    return cli_error(CLI_EXIT_USAGE, "%s: no --axis GLOB=AXIS rule and no --preset", cmd);
  }
  return st_rank_rules_check(&a->rules, cmd);
}

int cmd_st_merge(int argc, char **argv, int first, int reshard) {
  const char *cmd = reshard ? "st reshard" : "st merge";
  merge_args a;
  memset(&a, 0, sizeof a);
  a.o.progress = 1;
  a.o.argc = argc;
  a.o.argv = argv;
  a.ranks = calloc((size_t)argc + 1, sizeof *a.ranks);
  int rc = a.ranks == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
                           : st_rank_rules_init(&a.rules, argc);
  if (rc == 0) {
    rc = parse(&a, argc, argv, first, reshard, cmd);
  }
  st_model m = {0};
  ckpt_plan plan = {0};
  if (rc == 0 && a.help) {
    help_print(cmd, stdout);
  } else if (rc == 0) {
    tool_error err;
    rc = st_ranks_load(a.ranks, a.rank_count, &m, &err);
    if (rc != 0) {
      st_report(&err);
    } else if ((rc = st_model_quant(&m, &a.quant, a.ranks[0], cmd)) == 0 &&
               (rc = st_rank_rules_preset(&a.rules, a.ranks[0], cmd)) == 0) {
      ckpt_format format = st_format(&m);
      rc = reshard ? ckpt_plan_reshard(&m.ckpt, &format, &a.rules.base.spec, &plan, &err)
                   : ckpt_plan_merge(&m.ckpt, &format, &a.rules.base.spec, a.max_size, &plan, &err);
      if (rc != 0) {
        tool_prefix(&err, "%s", cmd);
        st_report(&err);
      }
    }
    if (rc == 0) {
      a.o.model = a.ranks[0];
      rc = st_execute(&plan, &m, &a.o, cmd);
    }
  }
  ckpt_plan_free(&plan);
  st_model_free(&m);
  st_rank_rules_free(&a.rules);
  free(a.ranks);
  return rc;
}
