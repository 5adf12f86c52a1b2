/*
 * Stacked experts and one tensor per expert (the rules of experts of split, ckpt_planner.h): the
 * names of experts, and the stacking of each name's experts 0..E-1 along a new axis, as ONNX
 * ConcatFromSequence-11 with new_axis 1 stacks a sequence (numpy.stack). The unstacking is an
 * ordinary cut of one part per index (ckpt_plan_split.c) whose axis is then removed.
 *
 * A weight's block scale (ckpt_companion.h) goes with it: the scales of stacked experts are
 * stacked into the stacked weight's scale.
 */
#ifndef CLEAVE_CKPT_STACK_H
#define CLEAVE_CKPT_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_glob.h"
#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "ckpt_planner.h"
#include "error.h"

/**
 * Whether `name` is an expert of CKPT_STACK rule `rule`: its stack_glob matches and the mark's
 * run is an expert's number (decimal digits, no leading zero, at most 2^31 - 1), into `*index`;
 * `m` (may be NULL) gets the glob's other captures, those of the rule's --into name. Returns 1
 * or 0.
 */
int ckpt_stack_match(const ckpt_split_rule *rule, const char *name, ckpt_match *m, int64_t *index);

/**
 * `pattern` with its '*'s filled from `m` (NULL: kept as they are), CKPT_EXPERT_MARK replaced by
 * `index` (when >= 0) and `suffix` appended: a malloc'd string, or NULL when out of memory.
 */
char *ckpt_expert_name(const char *pattern, const ckpt_match *m, int64_t index, const char *suffix);

/**
 * Adds the outputs of the CKPT_STACK rules of `rules`: for each rule, the tensors it matches
 * grouped by output name, each group's experts 0..E-1 stacked along the rule's axis into one
 * tensor of files[the file of expert 0] (files[0] when `one_file`), and their scales, when they
 * have them, stacked into its scale. Returns 0 or, with the message in `err` naming the rule, the
 * output and the expert: CLI_EXIT_DATA (an expert missing, experts of different dtypes or
 * shapes, some with a scale and some without, the library's rule for the axis, rows that do not
 * start on byte boundaries), CLI_EXIT_SOFTWARE.
 */
int ckpt_plan_stacks(const ckpt_model *m, const ckpt_split_rule *rules, size_t rule_count,
                     ckpt_out_file *files, int one_file, tool_error *err);

#endif /* CLEAVE_CKPT_STACK_H */
