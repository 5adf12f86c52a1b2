/* cleave st shard: one checkpoint per tensor-parallel rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "cli_util.h"
#include "help.h"
#include "st_cli.h"
#include "st_write.h"

int cmd_st_shard(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "st shard");
  write_opts o = {0};
  o.progress = 1;
  o.argc = argc;
  o.argv = argv;
  st_rank_rules rules;
  ckpt_quant quant = {0};
  int rc = st_rank_rules_init(&rules, argc);
  for (; rc == 0;) {
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
        rc = cli_error(CLI_EXIT_USAGE, "st shard: unexpected argument '%s'", value);
      }
      o.model = value;
    } else if (id == OPT_HELP) {
      o.model = NULL;
      rc = -1;
    } else if (st_parse_write_common(id, value, &o)) {
    } else if (st_rank_rule_option(&rules, id, value, "st shard", &rc)) {
    } else if (id == OPT_NUM) {
      rc = ckpt_rank_rules_apply(&rules.base, CKPT_RANK_NUM, value, "st shard");
    } else if (id == OPT_QUANT_BLOCK) {
      rc = st_parse_quant_block(value, "st shard", &quant);
    } else if (id == OPT_MAX_SHARD_SIZE) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "st shard: --max-shard-size belongs to 'st merge' and 'st split'; each "
                     "rank is one file");
    } else {
      rc = cli_error(CLI_EXIT_USAGE,
                     "st shard: --tensor, -l, --into and --rules belong to 'st split'; shard "
                     "takes -n RANKS and --axis GLOB=AXIS or --preset");
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
  } else if (rc == 0 && rules.base.spec.ranks == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "st shard: -n RANKS is missing");
  } else if (rc == 0 && rules.base.spec.axis_count == 0 && rules.preset_name == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "st shard: no --axis GLOB=AXIS rule and no --preset");
  }
  if (rc == 0 && o.dry_run >= 0) {
    rc = st_rank_rules_check(&rules, "st shard");
  }
  st_model m = {0};
  ckpt_plan plan = {0};
  if (rc == 0 && o.dry_run >= 0) {
    rc = st_load(o.model, &m);
    rc = rc != 0 ? rc : st_rank_rules_preset(&rules, o.model, "st shard");
    if (rc == 0) {
      rc = st_model_quant(&m, &quant, o.model, "st shard");
    }
    if (rc == 0) {
      tool_error err;
      ckpt_format format = st_format(&m);
      rc = ckpt_plan_shard(&m.ckpt, &format, &rules.base.spec, &plan, &err);
      if (rc != 0) {
        tool_prefix(&err, "st shard");
        st_report(&err);
      }
    }
    if (rc == 0) {
      rc = st_execute(&plan, &m, &o, "st shard");
    }
  }
  ckpt_plan_free(&plan);
  st_model_free(&m);
  st_rank_rules_free(&rules);
  return rc;
}
