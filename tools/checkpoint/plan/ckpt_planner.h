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

/** What a head-aware rule does when the ranks outnumber its heads. */
typedef enum ckpt_head_policy {
  /** Refused (attention heads). */
  CKPT_HEADS_CUT = 0,
  /** Refused, with the hint that --replicate-kv would replicate them (KV heads). */
  CKPT_HEADS_REPLICABLE,
  /** --replicate-kv: when the ranks are a multiple of the heads, rank r takes head
   * r * heads / ranks whole (ckpt_rules_part_of). */
  CKPT_HEADS_REPLICATED,
} ckpt_head_policy;

/** A shard rule: the tensors matching `glob` are cut along `axis` (of `view`'s shape when
 * view.has_view). The fields after `view` are a preset's (ckpt_preset.h); zero for a rule of the
 * command line. */
typedef struct ckpt_shard_rule {
  const char *glob;
  int64_t axis;
  ckpt_cut view;
  /** A preset's rule: it may match no tensor (a model without biases, with tied embeddings). */
  int preset;
  /** Head-aware: AXIS holds `heads` heads of `head_size` entries each, named `head_kind` in
   * messages ("attention heads", "KV heads"); a cut must give every rank whole heads
   * (ckpt_rules_check_heads). 0: no such check. */
  int64_t heads, head_size;
  const char *head_kind;
  /** Whether the heads may be replicated when the ranks outnumber them (the KV heads). */
  ckpt_head_policy replicate_heads;
  /** A fused tensor (a preset's, on axis 0): `segment_count` segments one after another, segment
   * i holding segment_heads[i] heads of `head_size` rows ([q; k; v]: the attention heads, then
   * the KV heads twice). Rank r takes its share of each segment, one after another
   * ([q_r; k_r; v_r]; ckpt_fused_shard). 0: not fused. */
  int segment_count;
  int64_t segment_heads[3];
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
  /** The last `replicate_preset_count` globs of `replicate` are a preset's: they may match no
   * tensor. */
  size_t replicate_preset_count;
  int unmatched_error;
  /** The preset that made a tensor no rule takes an error (its name; the command line said
   * nothing of --unmatched), or NULL: such a tensor is named as one the preset does not know. */
  const char *unmatched_preset;
} ckpt_shard_spec;

/**
 * How the rules of `spec` take the tensor `name`: the first --axis rule it matches (NULL: it is
 * replicated) and the first --view rule (NULL: none), each counted in `hits` (ckpt_rules_count
 * entries: the --axis rules, the --view rules, then the --replicate globs, which count only
 * tensors no --axis rule takes). The command line's --axis and --replicate rules come before a
 * preset's: a tensor they match is theirs. Returns 0, or CLI_EXIT_DATA when no rule takes the
 * tensor under spec->unmatched_error or when a --view rule matches a fused QKV that a preset's
 * rule cuts by its heads.
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

/** CLI_EXIT_DATA when `spec` has a preset's --axis rules and none matches a tensor of `m` (the
 * preset's names are not the model's: ckpt_rules_unmatched's message), else 0; before planning,
 * so that such a model is not refused tensor by tensor. */
int ckpt_rules_preset_fits(const ckpt_shard_spec *spec, const ckpt_model *m, tool_error *err);

/** CLI_EXIT_DATA naming the first rule of the command line that matched no tensor ("--axis: no
 * tensor matches 'x'"), or when the spec has a preset's --axis rules and none of them matched
 * (the preset does not fit the model's names), or 0. */
int ckpt_rules_unmatched(const ckpt_shard_spec *spec, const size_t *hits, tool_error *err);

/**
 * The heads of a head-aware rule (`axis->heads` not 0) against tensor `t` (in `where`, a file or
 * "the merge of N ranks") cut into `ranks` parts: the axis must hold exactly heads * head_size
 * entries, and `ranks` must divide the heads, or, under `axis->replicate_heads`, be a multiple of
 * them. Returns 0 or CLI_EXIT_DATA naming the tensor, the ranks and the heads ("4 ranks would cut
 * its 2 KV heads of 16 rows; --replicate-kv gives each rank the KV heads its query heads use").
 */
int ckpt_rules_check_heads(const ckpt_shard_rule *axis, const ckpt_tensor *t, const char *where,
                           int64_t ranks, tool_error *err);

/** The number of parts a rule cuts a tensor into for `ranks` ranks: the ranks, or the heads when
 * --replicate-kv gives each rank a whole head (the ranks outnumber the heads). */
int64_t ckpt_rules_parts(const ckpt_shard_rule *axis, int64_t ranks);

/** The part rank `rank` of `ranks` takes of a tensor cut into ckpt_rules_parts parts: the rank
 * itself, or under --replicate-kv the head its query heads use, rank * parts / ranks (vLLM's
 * rule). */
size_t ckpt_rules_part_of(int64_t parts, int64_t ranks, size_t rank);

/** The cut of an --axis rule into `parts` equal parts, after its --view rule when not NULL, else
 * after the rule's own view (a preset's). */
ckpt_cut ckpt_rules_cut(const ckpt_shard_rule *axis, const ckpt_shard_rule *view, int64_t parts);

/**
 * Shard of a fused tensor `t` (rule->segment_count segments on axis 0): rank R's part is its
 * share of every segment, one after another, assembled from one contiguous range per segment.
 * Returns 0, CLI_EXIT_DATA (the heads: ckpt_rules_check_heads) or CLI_EXIT_SOFTWARE.
 */
int ckpt_fused_shard(const ckpt_model *m, const ckpt_shard_rule *rule, const ckpt_tensor *t,
                     ckpt_plan *plan, tool_error *err);

/**
 * The inverse, for merge and reshard: the fused parts `parts[0..count)` (one per input rank,
 * equal in dtype and shape) joined into one tensor whose segment i is the ranks' shares of it in
 * rank order: added to `all` for a merge; for a reshard (`all` NULL) cut again into
 * plan->file_count ranks as ckpt_fused_shard cuts, each part read from the input ranges that hold
 * it. Returns 0, CLI_EXIT_DATA (parts that differ in dtype or shape, heads that the input or
 * output ranks would cut, a joined tensor that does not hold the heads config.json gives) or
 * CLI_EXIT_SOFTWARE.
 */
int ckpt_fused_join(const ckpt_model *m, const ckpt_shard_rule *rule,
                    const ckpt_tensor *const *parts, size_t count, ckpt_out_file *all,
                    ckpt_plan *plan, tool_error *err);

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
