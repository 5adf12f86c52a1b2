/* cleave st shard: one checkpoint per tensor-parallel rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_glob.h"
#include "ckpt_planner.h"
#include "cli_util.h"
#include "help.h"
#include "st_cli.h"
#include "st_write.h"

static int parse_glob_value(const char *text, const char *option, char **glob, const char **value) {
  const char *eq = strrchr(text, '=');
  if (eq == NULL || eq == text || eq[1] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "st shard: %s '%s' is not GLOB=VALUE", option, text);
  }
  *glob = strndup(text, (size_t)(eq - text));
  *value = eq + 1;
  return *glob == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
}

int cmd_st_shard(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "st shard");
  write_opts o = {0};
  o.progress = 1;
  size_t max = (size_t)argc + 1;
  ckpt_shard_rule *axes = calloc(max, sizeof *axes);
  ckpt_shard_rule *views = calloc(max, sizeof *views);
  const char **replicate = calloc(max, sizeof *replicate);
  ckpt_shard_spec spec = {0};
  spec.axes = axes;
  spec.views = views;
  spec.replicate = replicate;
  int rc = axes == NULL || views == NULL || replicate == NULL
               ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
               : 0;
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
        ckpt_shard_rule *r = &axes[spec.axis_count++];
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
        ckpt_shard_rule *r = &views[spec.view_count++];
        r->glob = glob;
        if (ckpt_parse_view(v, &r->view) != 0) {
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
  ckpt_plan plan = {0};
  if (rc == 0 && o.dry_run >= 0) {
    rc = st_load(o.model, &m);
    if (rc == 0) {
      tool_error err;
      ckpt_format format = st_format(&m);
      rc = ckpt_plan_shard(&m.ckpt, &format, &spec, &plan, &err);
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
