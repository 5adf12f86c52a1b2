/* Planning `cleave st split` and `cleave st shard` from the model's headers. */
#ifndef CLEAVE_ST_PLANNER_H
#define CLEAVE_ST_PLANNER_H

#include "st_plan.h"
#include "st_rules.h"

/** A split rule: tensors matching `glob` are cut and renamed by `names` ('*' = captures). */
typedef struct st_split_rule {
  const char *glob;
  st_cut cut;
  char **names;
  size_t name_count;
  const char *origin; /* "rule 2" or "rules.txt:3", for messages */
} st_split_rule;

/** Plans a split: outputs mirror the input's files (and index). */
int st_plan_split(const st_model *m, const st_split_rule *rules, size_t rule_count, st_plan *plan,
                  st_error *err);

/** A shard rule: GLOB=AXIS, GLOB=SHAPE (view), or GLOB (replicate). */
typedef struct st_shard_rule {
  const char *glob;
  int64_t axis;
  st_cut view; /* has_view set for --view rules */
} st_shard_rule;

typedef struct st_shard_spec {
  int64_t ranks;
  const st_shard_rule *axes;
  size_t axis_count;
  const st_shard_rule *views;
  size_t view_count;
  const char *const *replicate;
  size_t replicate_count;
  int unmatched_error;
} st_shard_spec;

/** Plans a shard: one file per rank, "rank<r>.safetensors". */
int st_plan_shard(const st_model *m, const st_shard_spec *spec, st_plan *plan, st_error *err);

#endif /* CLEAVE_ST_PLANNER_H */
