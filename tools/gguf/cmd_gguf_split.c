/* cleave gguf split: fused tensors replaced by their parts, or a file cut into a split set. */
#include <stdio.h>
#include <string.h>

#include "ckpt_planner.h"
#include "cli_util.h"
#include "gguf_cli.h"
#include "gguf_write.h"
#include "help.h"

int cmd_gguf_split(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "gguf split");
  gguf_write_opts o;
  gguf_write_opts_init(&o, argc, argv);
  ckpt_rule_set rules;
  memset(&rules, 0, sizeof rules);
  rules.command = "gguf split";
  const char *model = NULL;
  int rc = 0;
  for (; rc == 0;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, gguf_write_options, gguf_write_option_count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      rc = CLI_EXIT_USAGE;
    } else if (kind == CLI_NEXT_POSITIONAL) {
      rc = model != NULL ? cli_error(CLI_EXIT_USAGE, "gguf split: unexpected argument '%s'", value)
                         : 0;
      model = value;
    } else if (id == GOPT_HELP) {
      ckpt_rule_set_free(&rules);
      help_print("gguf split", stdout);
      return 0;
    } else if (gguf_parse_write_option(id, value, &o, &rc)) {
    } else if (id == GOPT_RULES) {
      rc = ckpt_rules_read(&rules, value);
    } else if (id == GOPT_REPLICATE || id == GOPT_UNMATCHED) {
      rc = cli_error(CLI_EXIT_USAGE, "gguf split: --replicate and --unmatched belong to 'gguf "
                                     "shard'");
    } else {
      rc = ckpt_rule_command_line(&rules, id, value);
    }
  }
  if (rc == 0 && model == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf split: the MODEL is missing");
  }
  if (rc == 0 && o.run.outdir == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf split: -o OUTDIR is missing");
  }
  if (rc == 0 && rules.count == 0 && o.max_size == 0) {
    rc = cli_error(CLI_EXIT_USAGE, "gguf split: no rule (--tensor GLOB ... or --rules FILE) and no "
                                   "--max-shard-size");
  }
  for (size_t i = 0; i < rules.count && rc == 0; i++) {
    rc = ckpt_rule_complete(&rules, &rules.rules[i]);
  }
  gguf_model m;
  memset(&m, 0, sizeof m);
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  if (rc == 0) {
    rc = gguf_load(model, &m);
  }
  if (rc == 0) {
    tool_error err;
    ckpt_format format = gguf_format(&m);
    rc = ckpt_plan_split(&m.ckpt, &format, rules.rules, rules.count, &plan, &err);
    if (rc != 0) {
      tool_prefix(&err, "gguf split");
      gguf_report(&err);
    }
  }
  if (rc == 0) {
    gguf_output_options out = {o.max_size, m.base, m.is_set};
    rc = gguf_run(&m, &plan, &o, &out, "gguf split");
  }
  ckpt_plan_free(&plan);
  gguf_model_free(&m);
  ckpt_rule_set_free(&rules);
  return rc;
}
