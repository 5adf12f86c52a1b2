/* cleave gguf shard: one GGUF file per tensor-parallel rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "cli_util.h"
#include "gguf_cli.h"
#include "gguf_write.h"
#include "help.h"

/* The options of shard: -n RANKS, --axis and --view as GLOB=VALUE, --replicate, --unmatched. */
static int shard_option(int id, const char *value, ckpt_shard_spec *spec, ckpt_shard_rule *axes,
                        ckpt_shard_rule *views, const char **replicate) {
  static const char cmd[] = "gguf shard";
  char *glob;
  const char *v;
  int rc;
  switch (id) {
  case CKPT_RULE_NUM:
    if (cli_parse_int64(value, "-n/--num-splits", &spec->ranks) != 0) {
      return CLI_EXIT_USAGE;
    }
    return spec->ranks < 1 || spec->ranks > 4096
               ? cli_error(CLI_EXIT_USAGE, "%s: -n RANKS must be from 1 to 4096, not %s", cmd,
                           value)
               : 0;
  case CKPT_RULE_AXIS:
    rc = ckpt_parse_glob_value(cmd, value, "--axis", &glob, &v);
    if (rc == 0) {
      ckpt_shard_rule *r = &axes[spec->axis_count++];
      r->glob = glob;
      rc = cli_parse_int64(v, "--axis GLOB=AXIS", &r->axis) != 0 ? CLI_EXIT_USAGE : 0;
    }
    return rc;
  case CKPT_RULE_VIEW:
    rc = ckpt_parse_glob_value(cmd, value, "--view", &glob, &v);
    if (rc == 0) {
      ckpt_shard_rule *r = &views[spec->view_count++];
      r->glob = glob;
      if (ckpt_parse_view(v, &r->view) != 0) {
        rc = cli_error(CLI_EXIT_USAGE, "%s: --view '%s': '%s' is not a shape like 8,18,-1", cmd,
                       value, v);
      }
    }
    return rc;
  case GOPT_REPLICATE:
    replicate[spec->replicate_count++] = value;
    return 0;
  case GOPT_UNMATCHED:
    if (strcmp(value, "replicate") == 0 || strcmp(value, "error") == 0) {
      spec->unmatched_error = value[0] == 'e';
      return 0;
    }
    return cli_error(CLI_EXIT_USAGE, "%s: --unmatched is 'replicate' or 'error', not '%s'", cmd,
                     value);
  case GOPT_MAX_SIZE:
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --max-shard-size belongs to 'gguf split' and 'gguf "
                     "merge' (a rank is one file)",
                     cmd);
  default:
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --tensor, -l, --into and --rules belong to 'gguf split'; shard takes -n "
                     "RANKS and --axis GLOB=AXIS",
                     cmd);
  }
}

int cmd_gguf_shard(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "gguf shard");
  gguf_write_opts o;
  memset(&o, 0, sizeof o);
  o.run.progress = 1;
  o.run.argc = argc;
  o.run.argv = argv;
  size_t max = (size_t)argc + 1;
  ckpt_shard_rule *axes = calloc(max, sizeof *axes);
  ckpt_shard_rule *views = calloc(max, sizeof *views);
  const char **replicate = calloc(max, sizeof *replicate);
  ckpt_shard_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.axes = axes;
  spec.views = views;
  spec.replicate = replicate;
  const char *model = NULL;
  int rc = axes == NULL || views == NULL || replicate == NULL
               ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
               : 0;
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
    } else if (id != GOPT_MAX_SIZE && gguf_parse_write_option(id, value, &o, &rc)) {
    } else {
      rc = shard_option(id, value, &spec, axes, views, replicate);
    }
  }
  if (help) {
    help_print("gguf shard", stdout);
  } else if (rc == 0 && model == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf shard: the MODEL is missing");
  } else if (rc == 0 && o.run.outdir == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf shard: -o OUTDIR is missing");
  } else if (rc == 0 && spec.ranks == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf shard: -n RANKS is missing");
  } else if (rc == 0 && spec.axis_count == 0) {
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
      rc = ckpt_plan_shard(&m.ckpt, &format, &spec, &plan, &err);
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
