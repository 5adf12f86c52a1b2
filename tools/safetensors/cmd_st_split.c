/* cleave st split: fused tensors replaced by their parts. The rules, on the command line or in
 * rules files, are the checkpoint layer's (ckpt_rules.h), as for gguf split. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "ckpt_rules.h"
#include "cli_util.h"
#include "help.h"
#include "st_cli.h"
#include "st_write.h"

/* The checkpoint layer's name of one of st split's rule options, or 0 for another option. */
static int rule_kind(int id) {
  switch (id) {
  case OPT_TENSOR:
    return CKPT_RULE_TENSOR;
  case OPT_VIEW:
    return CKPT_RULE_VIEW;
  case OPT_AXIS:
    return CKPT_RULE_AXIS;
  case OPT_NUM:
    return CKPT_RULE_NUM;
  case OPT_LENGTHS:
    return CKPT_RULE_LENGTHS;
  case OPT_INTO:
    return CKPT_RULE_INTO;
  default:
    return 0;
  }
}

/* --preset: its split rules for the model of the config.json beside MODEL (the error printed). */
static int preset_rules(const char *preset, const char *model, ckpt_qkv_layout layout,
                        ckpt_preset_split *ps) {
  tool_error err;
  ckpt_config config;
  char *path = NULL;
  int rc = st_preset_config(model, preset, &config, &path, &err);
  if (rc == 0) {
    rc = ckpt_preset_make_split(preset, &config, path, layout, ps, &err);
  }
  free(path);
  if (rc != 0) {
    tool_prefix(&err, "st split");
    st_report(&err);
  }
  return rc;
}

int cmd_st_split(int argc, char **argv, int first) {
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, "st split");
  write_opts o = {0};
  o.progress = 1;
  o.argc = argc;
  o.argv = argv;
  ckpt_rule_set s;
  memset(&s, 0, sizeof s);
  s.command = "st split";
  s.experts = 1;
  uint64_t max_size = 0;
  ckpt_quant quant = {0};
  const char *preset = NULL;
  int has_layout = 0;
  ckpt_qkv_layout layout = CKPT_QKV_CONCAT;
  int rc = 0;
  for (;;) {
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
        rc = cli_error(CLI_EXIT_USAGE, "st split: unexpected argument '%s'", value);
        break;
      }
      o.model = value;
    } else if (id == OPT_HELP) {
      ckpt_rule_set_free(&s);
      help_print("st split", stdout);
      return 0;
    } else if (st_parse_write_common(id, value, &o)) {
    } else if (id == OPT_RULES) {
      rc = ckpt_rules_read(&s, value);
    } else if (id == OPT_MAX_SHARD_SIZE) {
      rc = st_parse_max_shard_size(value, "st split", &max_size);
    } else if (id == OPT_QUANT_BLOCK) {
      rc = st_parse_quant_block(value, "st split", &quant);
    } else if (rule_kind(id) != 0) {
      rc = ckpt_rule_command_line(&s, rule_kind(id), value);
    } else if (id == OPT_PRESET) {
      preset = value;
      if (!ckpt_preset_known(value)) {
        rc = cli_error(CLI_EXIT_USAGE, "st split: --preset '%s' is not one of auto, %s", value,
                       ckpt_preset_names());
      } else if (strcmp(value, "auto") != 0 && !ckpt_preset_splits(value)) {
        rc = cli_error(CLI_EXIT_USAGE,
                       "st split: preset '%s' has no fused tensors to split (st shard --preset "
                       "%s shards the model as it is)",
                       value, value);
      }
    } else if (id == OPT_QKV_LAYOUT) {
      has_layout = 1;
      rc = st_parse_qkv_layout(value, "st split", &layout);
    } else {
      rc = cli_error(CLI_EXIT_USAGE, "st split: --replicate, --unmatched and --replicate-kv "
                                     "belong to the rank commands (st shard, merge, reshard)");
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
  if (rc == 0 && s.count == 0 && preset == NULL) {
    rc = cli_error(CLI_EXIT_USAGE,
                   "st split: no rule (--tensor GLOB ... or --rules FILE) and no --preset");
  }
  if (rc == 0) {
    rc = st_check_qkv_layout(preset, has_layout, "st split");
  }
  for (size_t i = 0; i < s.count && rc == 0; i++) {
    rc = ckpt_rule_complete(&s, &s.rules[i]);
  }
  st_model m = {0};
  ckpt_plan plan = {0};
  if (rc == 0) {
    rc = st_load(o.model, &m);
  }
  /* The preset's rules after the command line's (a tensor both match is refused, as any
   * tensor two rules match). */
  ckpt_preset_split ps;
  memset(&ps, 0, sizeof ps);
  ckpt_split_rule *rules = NULL;
  if (rc == 0 && preset != NULL) {
    rc = preset_rules(preset, o.model, layout, &ps);
  }
  if (rc == 0) {
    rules = calloc(s.count + ps.count + 1, sizeof *rules);
    rc = rules == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
  }
  /* memcpy's arguments may not be NULL, even for no bytes: either list may be empty. */
  if (rc == 0 && s.count > 0) {
    memcpy(rules, s.rules, s.count * sizeof *rules);
  }
  if (rc == 0 && ps.count > 0) {
    memcpy(rules + s.count, ps.rules, ps.count * sizeof *rules);
  }
  if (rc == 0) {
    rc = st_model_quant(&m, &quant, o.model, "st split");
  }
  if (rc == 0) {
    tool_error err;
    ckpt_format format = st_format(&m);
    rc = ckpt_plan_split_sized(&m.ckpt, &format, rules, s.count + ps.count, max_size, &plan, &err);
    if (rc != 0) {
      tool_prefix(&err, "st split");
      st_report(&err);
    }
  }
  if (rc == 0) {
    rc = st_execute(&plan, &m, &o, "st split");
  }
  ckpt_plan_free(&plan);
  st_model_free(&m);
  free(rules);
  ckpt_rule_set_free(&s);
  return rc;
}
