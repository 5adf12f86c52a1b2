/* split: fused tensors replaced by their parts, and a model's files re-sized, whatever its
 * format. The rules, on the command line or in rules files, are the checkpoint layer's
 * (ckpt_rules.h). */
#include <stdlib.h>
#include <string.h>

#include "ckpt_commands.h"
#include "ckpt_planner.h"
#include "cli_util.h"

/* The command line's checks, before any file is opened (64). */
static int check_command_line(const ckpt_command *c) {
  const ckpt_args *a = &c->args;
  const cli_args *p = &c->parsed;
  if (p->positional_count > 1) {
    return cli_error(CLI_EXIT_USAGE, "unexpected argument '%s'", p->positional[1]);
  }
  if (p->positional_count == 0) {
    return cli_error(CLI_EXIT_USAGE, "the MODEL is missing");
  }
  if (a->run.outdir == NULL) {
    return cli_error(CLI_EXIT_USAGE, "-o OUTDIR is missing");
  }
  if (a->rules.count == 0 && a->preset.name == NULL && a->max_shard_size == 0 &&
      a->max_tensors == 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "no rule (--tensor GLOB ... or --rules FILE), no --preset and no "
                     "--max-shard-size%s",
                     (ckpt_command_tags(c) & CKPT_FORMAT_GGUF) ? " or --max-tensors" : "");
  }
  int rc = ckpt_preset_args_check(c, 1);
  for (size_t i = 0; i < a->rules.count && rc == 0; i++) {
    rc = ckpt_rule_complete((ckpt_rule_set *)&a->rules, &a->rules.rules[i]);
  }
  return rc;
}

int ckpt_run_split(ckpt_command *c) {
  int rc = check_command_line(c);
  const char *model = c->parsed.positional_count > 0 ? c->parsed.positional[0] : NULL;
  if (rc == 0) {
    rc = ckpt_command_find_format(c, model);
  }
  ckpt_model *m = NULL;
  tool_error err;
  if (rc == 0) {
    rc = c->driver->read.load(model, NULL, &m, &err);
    if (rc != 0) {
      ckpt_command_report(&err);
    }
  }
  /* The preset's rules after the command line's (a tensor both match is refused, as any
   * tensor two rules match). */
  ckpt_preset_split ps;
  memset(&ps, 0, sizeof ps);
  ckpt_split_rule *rules = NULL;
  const ckpt_rule_set *s = &c->args.rules;
  if (rc == 0) {
    rc = ckpt_preset_split_rules(c, model, &ps);
  }
  if (rc == 0) {
    rules = calloc(s->count + ps.count + 1, sizeof *rules);
    rc = rules == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
  }
  /* memcpy's arguments may not be NULL, even for no bytes: either list may be empty. */
  if (rc == 0 && s->count > 0) {
    memcpy(rules, s->rules, s->count * sizeof *rules);
  }
  if (rc == 0 && ps.count > 0) {
    memcpy(rules + s->count, ps.rules, ps.count * sizeof *rules);
  }
  if (rc == 0 && (c->driver->traits & CKPT_HF_CONFIG)) {
    rc = ckpt_model_quant(c, m, model);
  }
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  if (rc == 0) {
    ckpt_format format = c->driver->write.format(m);
    ckpt_cast cast = ckpt_command_cast(c, m);
    format.cast = &cast;
    uint64_t planned = (c->driver->traits & CKPT_SIZED_BY_PLANNER) ? c->args.max_shard_size : 0;
    rc = ckpt_plan_split_sized(m, &format, rules, s->count + ps.count, planned, &plan, &err);
    if (rc != 0) {
      ckpt_command_report(&err);
    }
  }
  if (rc == 0) {
    ckpt_finish_options finish = {
        .max_shard_bytes = (c->driver->traits & CKPT_SIZED_BY_PLANNER) ? 0 : c->args.max_shard_size,
        .set_base = c->driver->write.base_name(m),
        .mirror_set = c->driver->write.is_set(m),
        .max_tensors = c->args.max_tensors};
    rc = ckpt_command_write(c, m, &plan, &finish);
  }
  ckpt_plan_free(&plan);
  if (c->driver != NULL) {
    c->driver->read.free_model(m);
  }
  free(rules);
  return rc;
}

static const cli_opt split_options[] = {
    CLI_INCLUDE(ckpt_args, rules, ckpt_rule_options),
    CLI_INCLUDE_SAME(ckpt_split_preset_options),
    CLI_INCLUDE_SAME(ckpt_quant_option),
    CLI_GROUP("Output options"),
    CLI_INCLUDE_SAME(ckpt_outdir_option),
    CLI_INCLUDE_SAME(ckpt_write_options),
    CLI_INCLUDE_SAME(ckpt_size_option),
    CLI_END,
};

const cli_spec ckpt_split_spec = {
    .usage = "cleave {cmd} MODEL -o OUTDIR --tensor GLOB [--view SHAPE] -a AXIS\n"
             "           (-n N | -l LENGTHS) --into NAME,NAME,... [RULE...] [--rules FILE]\n"
             "       cleave {cmd} MODEL -o OUTDIR --max-shard-size SIZE [RULE...]",
    .about = "Replaces every tensor matching a rule's GLOB by its parts under the new names; "
             "every other\n"
             "tensor is copied unchanged, metadata kept. The outputs have the input's file "
             "names\n"
             "(" CKPT_ST_TEXT("and index") CKPT_GGUF_TEXT(
                 "a split set stays one") "); each part "
                                          "stays in its tensor's file. With --max-shard-size "
                                          "the\n"
                                          "outputs are laid out again in files of at most SIZE "
                                          "bytes, as the format's own "
                                          "tools do; no\n"
                                          "rule is needed then.\n",
    .options = split_options,
    .notes = "Rules given on the command line are numbered from 1 in messages (\"rule 2\"), "
             "those of a\n"
             "file by FILE:LINE. A rule that matches nothing, a tensor two rules match, two "
             "outputs with\n"
             "one name, a part named like an untouched tensor, and a cut off a quantization "
             "block or a\n"
             "byte boundary (sub-byte types) are errors (status 65).\n"
             "\n" CKPT_WRITE_NOTES,
};
