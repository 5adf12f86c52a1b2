/*
 * Planning the checkpoint commands from the model's headers: which output file holds which
 * tensors, and where each of their bytes comes from (ckpt_plan.h). Every rule is checked here,
 * before anything is written; the format lays out each file (ckpt_format.h).
 */
#ifndef CLEAVE_CKPT_PLANNER_H
#define CLEAVE_CKPT_PLANNER_H

#include "ckpt_cut.h"
#include "ckpt_format.h"
#include "ckpt_plan.h"

/** A split rule: the tensors matching `glob` are cut by `cut` into parts named by `names` (each
 * '*' of a name takes the run the glob's '*' matched). The strings are the caller's. */
typedef struct ckpt_split_rule {
  const char *glob;
  ckpt_cut cut;
  char **names;
  size_t name_count;
  /** Where the rule was given, for messages: "rule 2 (--tensor 'x')", "rules.txt:3 (...)". */
  const char *origin;
} ckpt_split_rule;

/**
 * Plans a split: every tensor matching one rule is replaced by its parts, every other tensor is
 * kept; the outputs mirror the model's files (same names, same metadata) and its index. Returns
 * 0, or with the message in `err`: CLI_EXIT_DATA (a tensor matches two rules, a rule matches no
 * tensor, a cut breaks a rule, two outputs get one name), CLI_EXIT_USAGE (a rule names more or
 * fewer parts than it cuts), an error of the format's layout or index, CLI_EXIT_SOFTWARE. Free
 * the plan with ckpt_plan_free in either case.
 */
int ckpt_plan_split(const ckpt_model *m, const ckpt_format *format, const ckpt_split_rule *rules,
                    size_t rule_count, ckpt_plan *plan, tool_error *err);

/** A shard rule: the tensors matching `glob` are cut along `axis` (of `view`'s shape when
 * view.has_view). */
typedef struct ckpt_shard_rule {
  const char *glob;
  int64_t axis;
  ckpt_cut view;
} ckpt_shard_rule;

/** What `shard` does: `ranks` files; the first --axis rule a tensor matches cuts it into one
 * part per rank (after the first --view rule it matches); the others are replicated, or refused
 * when `unmatched_error` is set and no `replicate` glob matches them. */
typedef struct ckpt_shard_spec {
  int64_t ranks;
  const ckpt_shard_rule *axes;
  size_t axis_count;
  const ckpt_shard_rule *views;
  size_t view_count;
  const char *const *replicate;
  size_t replicate_count;
  int unmatched_error;
} ckpt_shard_spec;

/**
 * Plans a shard: files "rank<R>" + the format's suffix, each holding part R of every cut tensor
 * and a copy of every other, with the metadata of all input files merged (a key with two values
 * is an error). The plan is lockstep. Returns 0 or, with the message in `err`, CLI_EXIT_DATA (a
 * rule matches nothing, a cut breaks a rule, a tensor matches no rule under `unmatched_error`,
 * the inputs' metadata disagree), an error of the format's layout, CLI_EXIT_SOFTWARE. Free the
 * plan with ckpt_plan_free in either case.
 */
int ckpt_plan_shard(const ckpt_model *m, const ckpt_format *format, const ckpt_shard_spec *spec,
                    ckpt_plan *plan, tool_error *err);

#endif /* CLEAVE_CKPT_PLANNER_H */
