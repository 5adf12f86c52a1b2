/* Planning merge and reshard: each tensor's parts joined from the ranks, or, when no rule cuts
 * it, compared across the ranks and written once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_by_size.h"
#include "ckpt_companion.h"
#include "ckpt_concat.h"
#include "ckpt_planner.h"
#include "shape_format.h"

/* One run of merge or reshard. */
typedef struct rank_run {
  const ckpt_model *m;
  const ckpt_shard_spec *spec;
  ckpt_plan *plan;
  /* merge: every output tensor, before they are laid out in files; reshard: NULL. */
  ckpt_out_file *all;
  /* The current tensor in each rank, and room for one span per rank. */
  const ckpt_tensor **parts;
  ckpt_span *spans;
  size_t *hits;
  /* A scale's weight in each rank, and the rule hits of weights looked up for their scales. */
  const ckpt_tensor **weights;
  size_t *scratch;
} rank_run;

/* The tensors named like by_name[*k], one per rank, into run->parts; *k moves past them. The
 * model lists them by name, then by file, and no file holds a name twice. */
static int ranks_of(rank_run *run, size_t *k, tool_error *err) {
  const ckpt_model *m = run->m;
  size_t first = *k, end = first;
  const char *name = m->by_name[first]->name;
  while (end < m->tensor_count && strcmp(m->by_name[end]->name, name) == 0) {
    end++;
  }
  *k = end;
  size_t i = first;
  for (size_t r = 0; r < m->file_count; r++) {
    if (i < end && m->by_name[i]->file == r) {
      run->parts[r] = m->by_name[i++];
      continue;
    }
    const ckpt_tensor *holder = m->by_name[first];
    return tool_fail(err, CLI_EXIT_DATA,
                     "tensor '%.200s' is in rank %zu ('%.300s') but missing from rank %zu "
                     "('%.300s')",
                     name, holder->file, m->files[holder->file].path, r, m->files[r].path);
  }
  return 0;
}

/* Adds output tensor `o` with its `count` spans to file `f`. */
static int add(ckpt_out_file *f, const ckpt_out_tensor *o, const ckpt_span *spans, size_t count,
               tool_error *err) {
  return ckpt_out_file_add(f, o, spans, count) != 0 ? tool_oom(err, "planning the outputs") : 0;
}

/* A tensor no --axis rule takes: the same dtype, shape and (compared later) bytes in every rank,
 * written once per output from rank 0. */
static int replicated(rank_run *run, tool_error *err) {
  const ckpt_model *m = run->m;
  const ckpt_tensor *t0 = run->parts[0];
  for (size_t r = 1; r < m->file_count; r++) {
    const ckpt_tensor *t = run->parts[r];
    int same =
        t->dtype == t0->dtype && t->ndim == t0->ndim &&
        (t->ndim == 0 || memcmp(t->shape, t0->shape, (size_t)t->ndim * sizeof *t->shape) == 0);
    if (!same) {
      char shape[SHAPE_TEXT_MAX], shape0[SHAPE_TEXT_MAX];
      return tool_fail(
          err, CLI_EXIT_DATA,
          "rank %zu ('%.300s'): tensor '%.200s' is %s %.300s but %s %.300s in rank 0 "
          "('%.300s'); a tensor no --axis rule takes must be the same in every rank",
          r, m->files[r].path, t->name, t->dtype->name,
          shape_format(t->shape, (size_t)t->ndim, shape, sizeof shape), t0->dtype->name,
          shape_format(t0->shape, (size_t)t0->ndim, shape0, sizeof shape0), m->files[0].path);
    }
    int rc = ckpt_plan_add_check(run->plan, t0, t, err);
    if (rc != 0) {
      return rc;
    }
  }
  ckpt_out_tensor o = ckpt_out_whole(t0);
  ckpt_span span = ckpt_span_whole(t0);
  if (run->all != NULL) {
    return add(run->all, &o, &span, 1, err);
  }
  for (size_t i = 0; i < run->plan->file_count; i++) {
    int rc = add(&run->plan->files[i], &o, &span, 1, err);
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

/* reshard: the merged tensor cut by `cut` into `cuts` parts as shard would cut it (rank j takes
 * part ckpt_rules_part_of(cuts, ranks, j): under --replicate-kv the head its query heads use),
 * each part read from the ranks. */
static int recut(rank_run *run, const ckpt_concat *c, const ckpt_cut *cut, int64_t cuts,
                 tool_error *err) {
  char place[64];
  snprintf(place, sizeof place, "the merge of %zu ranks", run->m->file_count);
  int64_t ranks = run->spec->ranks;
  ckpt_part *parts = NULL;
  size_t count = 0;
  int rc = ckpt_cut_tensor(cut, &c->merged, place, &parts, &count, err);
  for (size_t j = 0; j < run->plan->file_count && count != 0 && rc == 0; j++) {
    const ckpt_part *p = &parts[ckpt_rules_part_of(cuts, ranks, j)];
    if (p->rows != c->rows || p->row_bytes != c->row_bytes) {
      rc = tool_fail(err, CLI_EXIT_SOFTWARE,
                     "internal error: tensor '%.200s' is cut in rows other than it was joined in",
                     c->merged.name);
      break;
    }
    ckpt_out_tensor o = ckpt_out_whole(&c->merged);
    o.source = run->parts[0];
    o.ndim = p->ndim;
    o.shape = (int64_t *)p->shape;
    o.bytes = p->rows * p->take;
    o.slice = p->slice;
    size_t n = ckpt_concat_spans(c, p->col, p->take, run->spans);
    rc = add(&run->plan->files[j], &o, run->spans, n, err);
  }
  free(parts);
  return rc;
}

/* The joined tensor `c` written whole (merge), or cut again by `cut` into `cuts` parts
 * (reshard). */
static int emit(rank_run *run, const ckpt_concat *c, const ckpt_cut *cut, int64_t cuts,
                tool_error *err) {
  if (run->all == NULL) {
    return recut(run, c, cut, cuts, err);
  }
  ckpt_out_tensor o = ckpt_out_whole(&c->merged);
  o.source = run->parts[0];
  size_t n = ckpt_concat_spans(c, 0, c->row_bytes, run->spans);
  return add(run->all, &o, run->spans, n, err);
}

/* With replicated heads (the ranks outnumber them): the first rank of each head's replicas
 * into parts[0..heads), the other replicas compared with it (plan->checks); *count becomes the
 * heads. Otherwise nothing changes. `parts` is run->parts, or the weights of scales. */
static int take_heads_once(rank_run *run, const ckpt_tensor **parts, const ckpt_shard_rule *axis,
                           size_t *count, tool_error *err) {
  int64_t ranks = (int64_t)*count, heads = ckpt_rules_parts(axis, ranks);
  if (heads == ranks) {
    return 0;
  }
  if (ranks % heads != 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "tensor '%.200s': %lld ranks cannot hold replicas of its %lld %s "
                     "(--replicate-kv needs the ranks to be a multiple of them)",
                     parts[0]->name, (long long)ranks, (long long)heads, axis->head_kind);
  }
  int64_t replicas = ranks / heads;
  for (int64_t h = 0; h < heads; h++) {
    const ckpt_tensor *first = parts[h * replicas];
    for (int64_t k = 1; k < replicas; k++) {
      const ckpt_tensor *copy = parts[h * replicas + k];
      int same = copy->dtype == first->dtype && copy->ndim == first->ndim &&
                 memcmp(copy->shape, first->shape, (size_t)copy->ndim * sizeof *copy->shape) == 0;
      if (!same) {
        return tool_fail(err, CLI_EXIT_DATA,
                         "tensor '%.200s': rank %zu holds another shape or dtype than rank %zu, "
                         "whose replica of %s %lld it should be (--replicate-kv)",
                         copy->name, copy->file, first->file, axis->head_kind, (long long)h);
      }
      int rc = ckpt_plan_add_check(run->plan, first, copy, err);
      if (rc != 0) {
        return rc;
      }
      run->plan->checks[run->plan->check_count - 1].why =
          "the ranks that share a KV head must hold the same copy of it (--replicate-kv)";
    }
    parts[h] = first;
  }
  *count = (size_t)heads;
  return 0;
}

/* The view a rule joins and cuts through: a --view rule of the command line, else the preset's
 * rule's own, else none. */
static const ckpt_cut *rule_view(const ckpt_shard_rule *axis, const ckpt_shard_rule *view) {
  return view != NULL ? &view->view : axis->view.has_view ? &axis->view : NULL;
}

/* A tensor an --axis rule takes: its parts joined along the axis (merge), or the joined tensor
 * cut again (reshard). */
static int joined(rank_run *run, const ckpt_shard_rule *axis, const ckpt_shard_rule *view,
                  tool_error *err) {
  if (axis->segment_count > 0) {
    return ckpt_fused_join(run->m, axis, run->parts, run->m->file_count, run->all, run->plan, err);
  }
  ckpt_concat c;
  memset(&c, 0, sizeof c);
  size_t count = run->m->file_count;
  char place[64];
  snprintf(place, sizeof place, "the merge of %zu ranks", run->m->file_count);
  int64_t ranks = run->spec->ranks, cuts = ckpt_rules_parts(axis, ranks);
  int rc = take_heads_once(run, run->parts, axis, &count, err);
  rc = rc != 0 ? rc
               : ckpt_concat_prepare(run->m, run->parts, count, rule_view(axis, view), axis->axis,
                                     &c, err);
  if (rc == 0) {
    rc = ckpt_rules_check_heads(axis, &c.merged, place, run->all != NULL ? 1 : ranks, err);
  }
  if (rc == 0) {
    ckpt_cut cut = ckpt_rules_cut(axis, view, cuts);
    rc = emit(run, &c, &cut, cuts, err);
  }
  ckpt_concat_free(&c);
  return rc;
}

/* The weight named like by_name[at] in every rank, into run->weights. */
static int weights_of(rank_run *run, size_t at, tool_error *err) {
  const ckpt_model *m = run->m;
  const char *name = m->by_name[at]->name;
  for (size_t r = 0; r < m->file_count; r++) {
    const ckpt_tensor *t = at + r < m->tensor_count ? m->by_name[at + r] : NULL;
    if (t == NULL || t->file != r || strcmp(t->name, name) != 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "tensor '%.200s' is in rank 0 ('%.300s') but missing from rank %zu "
                       "('%.300s')",
                       name, m->files[0].path, r, m->files[r].path);
    }
    run->weights[r] = t;
  }
  return 0;
}

/* The scales joined as their weights are, block for block: the `count` distinct parts (heads
 * replicated by --replicate-kv taken once) must meet on block boundaries. */
static int scale_joined(rank_run *run, const ckpt_concat *cw, size_t count,
                        const ckpt_shard_rule *axis, const ckpt_shard_rule *view, tool_error *err) {
  const ckpt_model *m = run->m;
  const ckpt_quant *q = &m->quant;
  char place[64];
  snprintf(place, sizeof place, "the merge of %zu ranks", m->file_count);
  ckpt_cut jcut, scut, sre;
  memset(&sre, 0, sizeof sre);
  int64_t cuts = ckpt_rules_parts(axis, run->spec->ranks);
  int rc = ckpt_companion_join_cut(&cw->merged, run->weights, count, rule_view(axis, view),
                                   axis->axis, &jcut, err);
  if (rc == 0) {
    rc = ckpt_companion_cut(q, &cw->merged, run->parts[0], &jcut, place, &scut, err);
    ckpt_companion_cut_free(&jcut);
  }
  if (rc != 0) {
    return rc;
  }
  ckpt_concat cs;
  rc = ckpt_concat_prepare(m, run->parts, count, scut.has_view ? &scut : NULL, scut.axis, &cs, err);
  if (rc == 0) {
    rc = ckpt_companion_check(q, &cw->merged, &cs.merged, place, err);
  }
  if (rc == 0 && run->all == NULL) {
    ckpt_cut wre = ckpt_rules_cut(axis, view, cuts);
    rc = ckpt_companion_cut(q, &cw->merged, &cs.merged, &wre, place, &sre, err);
  }
  if (rc == 0) {
    rc = emit(run, &cs, &sre, cuts, err);
  }
  ckpt_companion_cut_free(&scut);
  ckpt_companion_cut_free(&sre);
  ckpt_concat_free(&cs);
  return rc;
}

/* A scale (ckpt_companion.h), whose weight is by_name[at]: taken by its weight's rule. */
static int scale_of(rank_run *run, size_t at, tool_error *err) {
  const ckpt_model *m = run->m;
  int rc = weights_of(run, at, err);
  const ckpt_shard_rule *axis = NULL, *view = NULL;
  char where[400];
  for (size_t r = 0; r < m->file_count && rc == 0; r++) {
    snprintf(where, sizeof where, "rank %zu ('%.300s')", r, m->files[r].path);
    rc = ckpt_companion_check(&m->quant, run->weights[r], run->parts[r], where, err);
  }
  if (rc == 0) {
    rc = ckpt_rules_for_scale(run->spec, run->weights[0], run->parts[0], m->files[0].path,
                              run->hits, run->scratch, &axis, &view, err);
  }
  if (rc != 0 || axis == NULL) {
    return rc != 0 ? rc : replicated(run, err);
  }
  if (axis->segment_count > 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "tensor '%.200s' is the quantization scale of '%.200s', which the preset "
                     "joins as a fused tensor: fused block-quantized weights are not supported",
                     run->parts[0]->name, run->weights[0]->name);
  }
  /* Replicated heads: the weights' and the scales' replicas taken once, in step. */
  size_t count = m->file_count, scales = m->file_count;
  rc = take_heads_once(run, run->weights, axis, &count, err);
  rc = rc != 0 ? rc : take_heads_once(run, run->parts, axis, &scales, err);
  ckpt_concat cw;
  memset(&cw, 0, sizeof cw);
  if (rc == 0) {
    rc = ckpt_concat_prepare(m, run->weights, count, rule_view(axis, view), axis->axis, &cw, err);
  }
  if (rc == 0) {
    rc = scale_joined(run, &cw, count, axis, view, err);
  }
  ckpt_concat_free(&cw);
  return rc;
}

/* Every tensor of the ranks, by name, joined or replicated; then the rules that matched
 * nothing. */
static int each_tensor(rank_run *run, tool_error *err) {
  size_t ranks = run->m->file_count;
  run->parts = calloc(ranks + 1, sizeof *run->parts);
  run->spans = calloc(ranks + 1, sizeof *run->spans);
  run->hits = calloc(ckpt_rules_count(run->spec) + 1, sizeof *run->hits);
  run->scratch = calloc(ckpt_rules_count(run->spec) + 1, sizeof *run->scratch);
  run->weights = calloc(ranks + 1, sizeof *run->weights);
  int rc = run->parts == NULL || run->spans == NULL || run->hits == NULL || run->scratch == NULL ||
                   run->weights == NULL
               ? tool_oom(err, "planning the ranks")
               : 0;
  for (size_t k = 0; k < run->m->tensor_count && rc == 0;) {
    rc = ranks_of(run, &k, err);
    size_t at = 0;
    if (rc == 0 && ckpt_companion_weight(run->m, run->parts[0], &at) != NULL) {
      rc = scale_of(run, at, err);
      continue;
    }
    const ckpt_shard_rule *axis = NULL, *view = NULL;
    if (rc == 0) {
      rc = ckpt_rules_for(run->spec, run->parts[0]->name, run->hits, &axis, &view, err);
    }
    if (rc == 0) {
      rc = axis != NULL ? joined(run, axis, view, err) : replicated(run, err);
    }
  }
  if (rc == 0) {
    rc = ckpt_rules_unmatched(run->spec, run->hits, err);
  }
  free(run->parts);
  free(run->spans);
  free(run->hits);
  free(run->scratch);
  free(run->weights);
  return rc;
}

static int layout_all(ckpt_plan *plan, const ckpt_format *format, tool_error *err) {
  int rc = 0;
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    rc = ckpt_cast_file(format->cast, &plan->files[i], err);
    rc = rc == 0 ? format->layout(format->ctx, &plan->files[i], err) : rc;
  }
  if (rc == 0 && plan->index_name != NULL) {
    rc = format->index(format->ctx, plan, err);
  }
  return rc;
}

int ckpt_plan_merge(const ckpt_model *ranks, const ckpt_format *format, const ckpt_shard_spec *spec,
                    uint64_t max_shard_size, ckpt_plan *plan, tool_error *err) {
  memset(plan, 0, sizeof *plan);
  plan->ranked = 1;
  ckpt_out_file all;
  memset(&all, 0, sizeof all);
  rank_run run = {ranks, spec, plan, &all, NULL, NULL, NULL, NULL, NULL};
  int rc = each_tensor(&run, err);
  if (rc == 0) { /* sized by the outputs' bytes: after the conversion */
    rc = ckpt_cast_file(format->cast, &all, err);
  }
  if (rc == 0) {
    rc = ckpt_plan_by_size(plan, &all, max_shard_size, "model", format->suffix,
                           format->index != NULL ? ".index.json" : NULL, err);
  }
  ckpt_out_file_free(&all);
  if (rc == 0) {
    rc = ckpt_plan_union_meta(plan, ranks, format->metadata_name, "ranks", err);
  }
  return rc == 0 ? layout_all(plan, format, err) : rc;
}

int ckpt_plan_reshard(const ckpt_model *ranks, const ckpt_format *format,
                      const ckpt_shard_spec *spec, ckpt_plan *plan, tool_error *err) {
  memset(plan, 0, sizeof *plan);
  plan->ranked = 1;
  plan->lockstep = 1;
  int rc = ckpt_plan_rank_files(plan, (size_t)spec->ranks, format, err);
  if (rc == 0) {
    rc = ckpt_plan_union_meta(plan, ranks, format->metadata_name, "ranks", err);
  }
  rank_run run = {ranks, spec, plan, NULL, NULL, NULL, NULL, NULL, NULL};
  if (rc == 0) {
    rc = each_tensor(&run, err);
  }
  return rc == 0 ? layout_all(plan, format, err) : rc;
}
