/* cleave gguf shard: one GGUF file per tensor-parallel rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "cli_util.h"
#include "gguf_cli.h"
#include "gguf_write.h"
#include "help.h"

int cmd_gguf_shard(int argc, char **argv, int first) {
  static const char cmd[] = "gguf shard";
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, cmd);
  gguf_write_opts o;
  memset(&o, 0, sizeof o);
  o.run.progress = 1;
  o.run.argc = argc;
  o.run.argv = argv;
  ckpt_rank_rules rules;
  const char *model = NULL;
  int rc = ckpt_rank_rules_init(&rules, argc);
  int help = 0;
  for (; rc == 0 && !help;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, gguf_write_options, gguf_write_option_count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      rc = CLI_EXIT_USAGE;
    } else if (kind == CLI_NEXT_POSITIONAL) {
      rc = model != NULL ? cli_error(CLI_EXIT_USAGE, "gguf shard: unexpected argument '%s'", value)
                         : 0;
      model = value;
    } else if (id == GOPT_HELP) {
      help = 1;
    } else if (id == GOPT_MAX_SIZE) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "%s: --max-shard-size belongs to 'gguf split' and 'gguf merge' (a rank is "
                     "one file)",
                     cmd);
    } else if (gguf_parse_write_option(id, value, &o, &rc)) {
    } else if (!gguf_rank_option(&rules, id, value, cmd, &rc)) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "%s: --tensor, -l, --into and --rules belong to 'gguf split'; shard takes -n "
                     "RANKS and --axis GLOB=AXIS",
                     cmd);
    }
  }
  if (help) {
    help_print(cmd, stdout);
  } else if (rc == 0 && model == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf shard: the MODEL is missing");
  } else if (rc == 0 && o.run.outdir == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf shard: -o OUTDIR is missing");
  } else if (rc == 0 && rules.spec.ranks == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf shard: -n RANKS is missing");
  } else if (rc == 0 && rules.spec.axis_count == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf shard: no --axis GLOB=AXIS rule");
  }
  gguf_model m;
  memset(&m, 0, sizeof m);
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  if (rc == 0 && !help) {
    rc = gguf_load(model, &m);
    if (rc == 0) {
      tool_error err;
      ckpt_format format = gguf_format(&m);
      rc = ckpt_plan_shard(&m.ckpt, &format, &rules.spec, &plan, &err);
      if (rc != 0) {
        tool_prefix(&err, "gguf shard");
        gguf_report(&err);
      }
    }
    if (rc == 0) {
      gguf_output_options out = {0, NULL, 0};
      rc = gguf_run(&m, &plan, &o, &out, "gguf shard");
    }
  }
  ckpt_plan_free(&plan);
  gguf_model_free(&m);
  ckpt_rank_rules_free(&rules);
  return rc;
}
