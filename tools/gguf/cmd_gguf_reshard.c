/* cleave gguf reshard: the ranks of a tensor-parallel GGUF checkpoint (gguf shard's) into
 * another number of ranks in one pass, byte for byte what gguf merge then gguf shard -n M give
 * with the same rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "cli_util.h"
#include "gguf_cli.h"
#include "gguf_ranks.h"
#include "gguf_write.h"
#include "help.h"

int cmd_gguf_reshard(int argc, char **argv, int first) {
  static const char cmd[] = "gguf reshard";
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, cmd);
  gguf_write_opts o;
  memset(&o, 0, sizeof o);
  o.run.progress = 1;
  o.run.argc = argc;
  o.run.argv = argv;
  ckpt_rank_rules rules;
  char **ranks = calloc((size_t)argc + 1, sizeof *ranks);
  size_t rank_count = 0;
  int rc = ranks == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
                         : ckpt_rank_rules_init(&rules, argc);
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
      ranks[rank_count++] = (char *)value;
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
                     "%s: --tensor, -l, --into and --rules belong to 'gguf split'; reshard takes "
                     "-n RANKS and --axis GLOB=AXIS",
                     cmd);
    }
  }
  if (help) {
    help_print(cmd, stdout);
  } else if (rc == 0 && rank_count == 0) {
    rc = cli_error(CLI_EXIT_USAGE,
                   "%s: the RANK files are missing (the rank files in rank order, or one folder "
                   "of rank<R>.gguf)",
                   cmd);
  } else if (rc == 0 && o.run.outdir == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "%s: -o OUTDIR is missing", cmd);
  } else if (rc == 0 && rules.spec.ranks == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "%s: -n RANKS is missing", cmd);
  } else if (rc == 0 && rules.spec.axis_count == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "%s: no --axis GLOB=AXIS rule", cmd);
  }
  gguf_model m;
  memset(&m, 0, sizeof m);
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  if (rc == 0 && !help) {
    tool_error err;
    rc = gguf_ranks_load(ranks, rank_count, &m, &err);
    if (rc == 0) {
      ckpt_format format = gguf_format(&m);
      rc = ckpt_plan_reshard(&m.ckpt, &format, &rules.spec, &plan, &err);
    }
    if (rc != 0) {
      tool_prefix(&err, "%s", cmd);
      gguf_report(&err);
    } else {
      gguf_output_options out = {0, NULL, 0};
      rc = gguf_run(&m, &plan, &o, &out, cmd);
    }
  }
  ckpt_plan_free(&plan);
  gguf_model_free(&m);
  ckpt_rank_rules_free(&rules);
  free(ranks);
  return rc;
}
