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

/** The mark of an expert's number in the names of a rule of experts. */
#define CKPT_EXPERT_MARK "{e}"

/** What a split rule does with the experts of a mixture-of-experts layer. */
enum {
  /** Nothing: an ordinary cut. */
  CKPT_EXPERTS_NONE = 0,
  /** Its one name holds CKPT_EXPERT_MARK: a stacked tensor becomes one tensor per index of the
   * axis, the axis removed (SplitToSequence with keepdims 0), the mark replaced by the index. */
  CKPT_UNSTACK,
  /** Its glob holds CKPT_EXPERT_MARK, which matches an expert's number (decimal, no leading
   * zero): the experts 0..E-1 of each name are stacked along a new axis AXIS into the one name
   * (ConcatFromSequence with new_axis 1). */
  CKPT_STACK
};

/** A split rule: the tensors matching `glob` are cut by `cut` into parts named by `names` (each
 * '*' of a name takes the run the glob's '*' matched), or their experts unstacked or stacked
 * (`experts`). The strings are the caller's. */
typedef struct ckpt_split_rule {
  const char *glob;
  ckpt_cut cut;
  char **names;
  size_t name_count;
  /** Where the rule was given, for messages: "rule 2 (--tensor 'x')", "rules.txt:3 (...)". */
  const char *origin;
  /** CKPT_EXPERTS_NONE, CKPT_UNSTACK or CKPT_STACK; for CKPT_STACK, the glob with the mark made a
   * '*' (`stack_glob`) and the number of that '*' among the glob's, from 0 (`expert_capture`). */
  int experts;
  const char *stack_glob;
  int expert_capture;
} ckpt_split_rule;

/**
 * Plans a split: every tensor matching one rule is replaced by its parts (one per expert for a
 * CKPT_UNSTACK rule; the experts of a CKPT_STACK rule by their stack, in expert 0's file: see
 * ckpt_stack.h), every other tensor is kept; a weight's block scale follows its weight
 * (ckpt_companion.h); the outputs mirror the model's files (same names, same metadata) and its
 * index. Returns 0, or with the message in `err`: CLI_EXIT_DATA (a tensor matches two rules, a
 * rule matches no tensor, a cut breaks a rule, experts that cannot be stacked, two outputs get
 * one name), CLI_EXIT_USAGE (a rule names more or fewer parts than it cuts), an error of the
 * format's layout or index, CLI_EXIT_SOFTWARE. Free the plan with ckpt_plan_free in either case.
 */
int ckpt_plan_split(const ckpt_model *m, const ckpt_format *format, const ckpt_split_rule *rules,
                    size_t rule_count, ckpt_plan *plan, tool_error *err);

/**
 * ckpt_plan_split, with the outputs laid out in files of at most `max_shard_size` bytes of
 * tensors as ckpt_plan_by_size lays them out (0: as the input's files are), with the union of
 * the input files' metadata (a key with two values is CLI_EXIT_DATA).
 */
int ckpt_plan_split_sized(const ckpt_model *m, const ckpt_format *format,
                          const ckpt_split_rule *rules, size_t rule_count, uint64_t max_shard_size,
                          ckpt_plan *plan, tool_error *err);

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
 * How the rules of `spec` take the tensor `name`: the first --axis rule it matches (NULL: it is
 * replicated) and the first --view rule (NULL: none), each counted in `hits` (ckpt_rules_count
 * entries: the --axis rules, the --view rules, then the --replicate globs, which count only
 * tensors no --axis rule takes). Returns 0, or CLI_EXIT_DATA when no rule takes the tensor under
 * spec->unmatched_error.
 */
int ckpt_rules_for(const ckpt_shard_spec *spec, const char *name, size_t *hits,
                   const ckpt_shard_rule **axis, const ckpt_shard_rule **view, tool_error *err);

/**
 * How the rules of `spec` take scale `s` of weight `w` (ckpt_companion.h): as they take `w`
 * (`*axis`, `*view` as ckpt_rules_for gives them for w, counted in `scratch`), whatever rules
 * match `s` (counted in `hits`; a scale is never unmatched). A rule that matches `s` must take
 * it as `w` is taken: another --axis rule of another axis, a --view rule other than w's, or a
 * --replicate glob while w is cut is CLI_EXIT_DATA naming the scale, its weight and the rule
 * (`where` first). Returns 0 or that.
 */
int ckpt_rules_for_scale(const ckpt_shard_spec *spec, const ckpt_tensor *w, const ckpt_tensor *s,
                         const char *where, size_t *hits, size_t *scratch,
                         const ckpt_shard_rule **axis, const ckpt_shard_rule **view,
                         tool_error *err);

/** The number of rules of `spec`: the size of the `hits` array of ckpt_rules_for. */
size_t ckpt_rules_count(const ckpt_shard_spec *spec);

/** CLI_EXIT_DATA naming the first rule that matched no tensor ("--axis: no tensor matches
 * 'x'"), or 0. */
int ckpt_rules_unmatched(const ckpt_shard_spec *spec, const size_t *hits, tool_error *err);

/** The cut of an --axis rule (after its --view rule, when not NULL) into `parts` equal parts. */
ckpt_cut ckpt_rules_cut(const ckpt_shard_rule *axis, const ckpt_shard_rule *view, int64_t parts);

/** Gives `plan` `ranks` empty files named "rank<R>" + the format's suffix. Returns 0 or
 * CLI_EXIT_SOFTWARE. */
int ckpt_plan_rank_files(ckpt_plan *plan, size_t ranks, const ckpt_format *format, tool_error *err);

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

/**
 * Plans a merge, the inverse of a shard with the same rules: `ranks` is a model of ranks (file R
 * is rank R, ckpt_model.h). Each tensor must be in every rank. One the --axis rules take is
 * concatenated from its parts in rank order along AXIS (of the --view shape, when one applies;
 * ckpt_concat.h); any other must have the same dtype and shape in every rank, is written once
 * from rank 0, and its copies in the other ranks are compared with it before anything is written
 * (plan->checks). The outputs are laid out by ckpt_plan_by_size (`max_shard_size` 0: one file),
 * with the union of the ranks' metadata. spec->ranks is not used. Returns 0 or, with the message
 * in `err`, CLI_EXIT_DATA (a tensor missing from a rank, parts that cannot be joined, a
 * replicated tensor whose dtype or shape differs, a rule that matches nothing, metadata that
 * differs), an error of the format, CLI_EXIT_SOFTWARE. Free the plan in either case.
 */
int ckpt_plan_merge(const ckpt_model *ranks, const ckpt_format *format, const ckpt_shard_spec *spec,
                    uint64_t max_shard_size, ckpt_plan *plan, tool_error *err);

/**
 * Plans a reshard of a model of ranks into spec->ranks ranks: exactly the plan of a shard of what
 * ckpt_plan_merge would write (same rules, same names, shapes and metadata), with every output
 * range read from the input ranges that hold it, never from a merged tensor. Lockstep. Returns
 * as ckpt_plan_merge, and the errors of the cut (ckpt_plan_shard) on the merged tensors.
 */
int ckpt_plan_reshard(const ckpt_model *ranks, const ckpt_format *format,
                      const ckpt_shard_spec *spec, ckpt_plan *plan, tool_error *err);

#endif /* CLEAVE_CKPT_PLANNER_H */
