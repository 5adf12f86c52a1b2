/*
 * The rules of the rank commands (shard, merge, reshard) as a command line gives them: --axis
 * GLOB=AXIS, --view GLOB=SHAPE, --replicate GLOB, --unmatched replicate|error and -n RANKS, into
 * the ckpt_shard_spec the planners take (ckpt_planner.h). A format's commands map their option
 * identifiers to these kinds.
 */
#ifndef CLEAVE_CKPT_RANK_OPTIONS_H
#define CLEAVE_CKPT_RANK_OPTIONS_H

#include <stdint.h>

#include "ckpt_planner.h"

/** The options a rank rule set takes. */
typedef enum ckpt_rank_option {
  CKPT_RANK_AXIS,
  CKPT_RANK_VIEW,
  CKPT_RANK_REPLICATE,
  CKPT_RANK_UNMATCHED,
  CKPT_RANK_NUM
} ckpt_rank_option;

/** The rules; `spec` points into the arrays. Free with ckpt_rank_rules_free. */
typedef struct ckpt_rank_rules {
  ckpt_shard_spec spec;
  ckpt_shard_rule *axes, *views;
  const char **replicate;
} ckpt_rank_rules;

/** Makes room for the rules of a command line of `argc` words (no more rules than words).
 * Returns 0 or CLI_EXIT_SOFTWARE (reported). */
int ckpt_rank_rules_init(ckpt_rank_rules *r, int argc);

/**
 * Applies option `kind` with `value` (borrowed for --replicate: it must outlive the rules; the
 * globs of --axis and --view are copied). Returns 0, or CLI_EXIT_USAGE reported naming the value
 * (after `place`, where the words come from when not from the command line, or NULL; see
 * cli_error_at) (not GLOB=VALUE, an axis that is not an integer, a view that is not a shape, an
 * --unmatched other than replicate or error, -n outside 1 to CKPT_MAX_RANKS).
 */
int ckpt_rank_rules_apply(ckpt_rank_rules *r, ckpt_rank_option kind, const char *value,
                          const char *place);

/** Releases the rules (the globs they copied) and zeroes them. */
void ckpt_rank_rules_free(ckpt_rank_rules *r);

#endif /* CLEAVE_CKPT_RANK_OPTIONS_H */
