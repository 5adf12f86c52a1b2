/* Planning a shard: one file per rank, part R of every cut tensor in rank R. */
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"

/* A tensor no --axis rule matches: a copy in every rank. */
static int replicate(const ckpt_tensor *t, ckpt_plan *plan, tool_error *err) {
  ckpt_out_tensor o = ckpt_out_whole(t);
  ckpt_span span = ckpt_span_whole(t);
  for (size_t i = 0; i < plan->file_count; i++) {
    if (ckpt_out_file_add(&plan->files[i], &o, &span, 1) != 0) {
      return tool_oom(err, "planning the shard");
    }
  }
  return 0;
}

/* Part R of `t` into rank R (or, with replicated heads, the part of the head rank R uses). */
static int cut_across(const ckpt_model *m, const ckpt_shard_spec *spec, const ckpt_shard_rule *axis,
                      const ckpt_shard_rule *view, const ckpt_tensor *t, uint64_t group,
                      ckpt_plan *plan, tool_error *err) {
  const char *path = m->files[t->file].path;
  int64_t n = ckpt_rules_parts(axis, spec->ranks);
  ckpt_cut cut = ckpt_rules_cut(axis, view, n);
  ckpt_part *parts = NULL;
  size_t count = 0;
  int rc = ckpt_rules_check_heads(axis, t, path, spec->ranks, err);
  rc = rc != 0 ? rc : ckpt_cut_tensor(&cut, t, path, &parts, &count, err);
  for (size_t i = 0; i < plan->file_count && count != 0 && rc == 0; i++) {
    const ckpt_part *p = &parts[ckpt_rules_part_of(n, spec->ranks, i)];
    ckpt_out_tensor o = ckpt_out_whole(t);
    /* Parts taken by several ranks are copied to each, not gathered as one cut. */
    ckpt_span span = ckpt_span_part(t, p, n == spec->ranks ? group : 0);
    o.ndim = p->ndim;
    o.shape = (int64_t *)p->shape;
    o.bytes = span.rows * span.take;
    if (ckpt_out_file_add(&plan->files[i], &o, &span, 1) != 0) {
      rc = tool_oom(err, "planning the shard");
    }
  }
  free(parts);
  return rc;
}

int ckpt_plan_shard(const ckpt_model *m, const ckpt_format *format, const ckpt_shard_spec *spec,
                    ckpt_plan *plan, tool_error *err) {
  memset(plan, 0, sizeof *plan);
  plan->lockstep = 1;
  int rc = ckpt_plan_rank_files(plan, (size_t)spec->ranks, format, err);
  if (rc == 0) {
    rc = ckpt_plan_union_meta(plan, m, format->metadata_name, "shards", err);
  }
  size_t *hits = calloc(ckpt_rules_count(spec) + 1, sizeof *hits);
  if (rc == 0 && hits == NULL) {
    rc = tool_oom(err, "planning the shard");
  }
  for (size_t k = 0; k < m->tensor_count && rc == 0; k++) {
    const ckpt_tensor *t = m->by_name[k];
    const ckpt_shard_rule *axis, *view;
    rc = ckpt_rules_for(spec, t->name, hits, &axis, &view, err);
    if (rc == 0) {
      rc = axis == NULL ? replicate(t, plan, err)
           : axis->segment_count > 0
               ? ckpt_fused_shard(m, axis, t, plan, err)
               : cut_across(m, spec, axis, view, t, (uint64_t)k + 1, plan, err);
    }
  }
  if (rc == 0) {
    rc = ckpt_rules_unmatched(spec, hits, err);
  }
  free(hits);
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    rc = format->layout(format->ctx, &plan->files[i], err);
  }
  return rc;
}
