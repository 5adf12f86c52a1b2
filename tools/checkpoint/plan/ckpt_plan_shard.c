/* Planning a shard: one file per rank, part R of every cut tensor in rank R. */
#include <stdlib.h>
#include <string.h>

#include "ckpt_companion.h"
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

/* Part R of `t`, cut by `cut` into `n` parts, into rank R: part ckpt_rules_part_of(n, ranks, R)
 * (with replicated heads, the part of the head rank R uses). */
static int cut_across(const ckpt_model *m, const ckpt_cut *cut, int64_t n, int64_t ranks,
                      const ckpt_tensor *t, uint64_t group, ckpt_plan *plan, tool_error *err) {
  ckpt_part *parts = NULL;
  size_t count = 0;
  int rc = ckpt_cut_tensor(cut, t, m->files[t->file].path, &parts, &count, err);
  for (size_t i = 0; i < plan->file_count && count != 0 && rc == 0; i++) {
    const ckpt_part *p = &parts[ckpt_rules_part_of(n, ranks, i)];
    ckpt_out_tensor o = ckpt_out_whole(t);
    /* Parts taken by several ranks are copied to each, not gathered as one cut. */
    ckpt_span span = ckpt_span_part(t, p, n == ranks ? group : 0);
    o.ndim = p->ndim;
    o.shape = (int64_t *)p->shape;
    o.bytes = span.rows * span.take;
    o.slice = p->slice;
    if (ckpt_out_file_add(&plan->files[i], &o, &span, 1) != 0) {
      rc = tool_oom(err, "planning the shard");
    }
  }
  free(parts);
  return rc;
}

/* The scale `s` of weight `w`: cut in blocks as `w` is cut, or replicated with it. */
static int scale_across(const ckpt_model *m, const ckpt_shard_spec *spec, size_t *hits,
                        size_t *scratch, const ckpt_tensor *w, const ckpt_tensor *s, uint64_t group,
                        ckpt_plan *plan, tool_error *err) {
  const char *path = m->files[s->file].path;
  const ckpt_shard_rule *axis, *view;
  int rc = ckpt_rules_for_scale(spec, w, s, path, hits, scratch, &axis, &view, err);
  if (rc == 0 && axis == NULL) {
    rc = ckpt_companion_check(&m->quant, w, s, path, err);
    return rc == 0 ? replicate(s, plan, err) : rc;
  }
  if (rc != 0) {
    return rc;
  }
  if (axis->segment_count > 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' is the quantization scale of '%.200s', which the preset "
                     "cuts as a fused tensor: fused block-quantized weights are not supported",
                     path, s->name, w->name);
  }
  /* The weight's parts (the heads, under --replicate-kv), in blocks. */
  int64_t n = ckpt_rules_parts(axis, spec->ranks);
  ckpt_cut wcut = ckpt_rules_cut(axis, view, n), scut;
  rc = ckpt_companion_check(&m->quant, w, s, path, err);
  if (rc == 0) {
    rc = ckpt_companion_cut(&m->quant, w, s, &wcut, path, &scut, err);
  }
  if (rc == 0) {
    rc = cut_across(m, &scut, n, spec->ranks, s, group, plan, err);
    ckpt_companion_cut_free(&scut);
  }
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
  size_t *scratch = calloc(ckpt_rules_count(spec) + 1, sizeof *scratch);
  if (rc == 0 && (hits == NULL || scratch == NULL)) {
    rc = tool_oom(err, "planning the shard");
  }
  for (size_t k = 0; k < m->tensor_count && rc == 0; k++) {
    const ckpt_tensor *t = m->by_name[k];
    size_t at;
    const ckpt_tensor *w = ckpt_companion_weight(m, t, &at);
    if (w != NULL) {
      rc = scale_across(m, spec, hits, scratch, w, t, (uint64_t)k + 1, plan, err);
      continue;
    }
    const ckpt_shard_rule *axis, *view;
    rc = ckpt_rules_for(spec, t->name, hits, &axis, &view, err);
    if (rc == 0 && axis == NULL) {
      rc = replicate(t, plan, err);
    } else if (rc == 0 && axis->segment_count > 0) {
      rc = ckpt_fused_shard(m, axis, t, plan, err);
    } else if (rc == 0) {
      int64_t n = ckpt_rules_parts(axis, spec->ranks);
      ckpt_cut cut = ckpt_rules_cut(axis, view, n);
      rc = ckpt_rules_check_heads(axis, t, m->files[t->file].path, spec->ranks, err);
      rc = rc != 0 ? rc : cut_across(m, &cut, n, spec->ranks, t, (uint64_t)k + 1, plan, err);
    }
  }
  if (rc == 0) {
    rc = ckpt_rules_unmatched(spec, hits, err);
  }
  free(hits);
  free(scratch);
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    rc = ckpt_cast_file(format->cast, &plan->files[i], err);
    rc = rc == 0 ? format->layout(format->ctx, &plan->files[i], err) : rc;
  }
  return rc;
}
