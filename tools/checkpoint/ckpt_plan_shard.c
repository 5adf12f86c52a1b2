/* Planning a shard: one file per rank, part R of every cut tensor in rank R. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_glob.h"
#include "ckpt_planner.h"

static int same_value(const ckpt_meta *a, const ckpt_meta *b) {
  return a->kind == b->kind && a->value_size == b->value_size &&
         memcmp(a->value, b->value, a->value_size) == 0;
}

/* The union of the input files' metadata, sorted by key; a key with two values is an error. */
static int merged_metadata(const ckpt_model *m, const ckpt_format *format, ckpt_meta **out,
                           size_t *count, int *has, tool_error *err) {
  size_t n = 0;
  *has = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    n += m->files[i].meta_count;
    *has |= m->files[i].has_meta;
  }
  ckpt_meta *all = calloc(n + 1, sizeof *all);
  if (all == NULL) {
    return tool_oom(err, "merging the metadata");
  }
  size_t k = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    for (size_t j = 0; j < m->files[i].meta_count; j++) {
      const ckpt_meta *e = &m->files[i].meta[j];
      size_t seen = 0;
      for (; seen < k && strcmp(all[seen].key, e->key) != 0; seen++) {
      }
      if (seen < k) {
        if (!same_value(&all[seen], e)) {
          free(all);
          return tool_fail(err, CLI_EXIT_DATA,
                           "%s '%.200s' differs between the shards ('%.100s' in '%s')",
                           format->metadata_name, e->key, e->value, m->files[i].name);
        }
        continue;
      }
      all[k++] = *e;
    }
  }
  for (size_t i = 1; i < k; i++) {
    for (size_t j = i; j > 0 && strcmp(all[j - 1].key, all[j].key) > 0; j--) {
      ckpt_meta t = all[j];
      all[j] = all[j - 1];
      all[j - 1] = t;
    }
  }
  *out = all;
  *count = k;
  return 0;
}

/* The rule of `kind` that `name` matches first, counted in `hits`, or NULL. */
static const ckpt_shard_rule *first_match(const ckpt_shard_rule *rules, size_t count,
                                          const char *name, size_t *hits) {
  for (size_t i = 0; i < count; i++) {
    if (ckpt_glob_match(rules[i].glob, name, NULL)) {
      hits[i]++;
      return &rules[i];
    }
  }
  return NULL;
}

/* A tensor no --axis rule matches: a copy in every rank, unless --unmatched error refuses it. */
static int replicate(const ckpt_shard_spec *spec, const ckpt_tensor *t, size_t *hits,
                     ckpt_plan *plan, tool_error *err) {
  int wanted = !spec->unmatched_error;
  for (size_t i = 0; i < spec->replicate_count; i++) {
    if (ckpt_glob_match(spec->replicate[i], t->name, NULL)) {
      hits[i]++;
      wanted = 1;
      break;
    }
  }
  if (!wanted) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "tensor '%.200s' matches no --axis or --replicate rule (--unmatched error)",
                     t->name);
  }
  ckpt_out_tensor o = ckpt_out_whole(t);
  ckpt_span span = ckpt_span_whole(t);
  for (size_t i = 0; i < plan->file_count; i++) {
    if (ckpt_out_file_add(&plan->files[i], &o, &span, 1) != 0) {
      return tool_oom(err, "planning the shard");
    }
  }
  return 0;
}

/* Part R of `t` into rank R. */
static int cut_across(const ckpt_model *m, const ckpt_shard_spec *spec, const ckpt_shard_rule *axis,
                      const ckpt_shard_rule *view, const ckpt_tensor *t, uint64_t group,
                      ckpt_plan *plan, tool_error *err) {
  ckpt_cut cut;
  if (view != NULL) {
    cut = view->view;
  } else {
    memset(&cut, 0, sizeof cut);
  }
  cut.axis = axis->axis;
  cut.has_parts = 1;
  cut.parts = spec->ranks;
  cut.lengths = NULL;
  ckpt_part *parts = NULL;
  size_t count = 0;
  int rc = ckpt_cut_tensor(&cut, t, m->files[t->file].path, &parts, &count, err);
  for (size_t i = 0; i < count && rc == 0; i++) {
    ckpt_out_tensor o = ckpt_out_whole(t);
    ckpt_span span = ckpt_span_part(t, &parts[i], group);
    o.ndim = parts[i].ndim;
    o.shape = parts[i].shape;
    o.bytes = span.rows * span.take;
    if (ckpt_out_file_add(&plan->files[i], &o, &span, 1) != 0) {
      rc = tool_oom(err, "planning the shard");
    }
  }
  free(parts);
  return rc;
}

/* Rule i of the spec's rules (the --axis rules, then --view, then --replicate) that matched no
 * tensor, named as the command line gives it: "--axis rule 2", counted from 1 in each kind. */
static int unmatched_rule(const ckpt_shard_spec *spec, size_t i, tool_error *err) {
  size_t axes = spec->axis_count, views = spec->view_count;
  const char *glob = i < axes           ? spec->axes[i].glob
                     : i < axes + views ? spec->views[i - axes].glob
                                        : spec->replicate[i - axes - views];
  const char *kind = i < axes ? "--axis" : i < axes + views ? "--view" : "--replicate";
  size_t number = i < axes ? i + 1 : i < axes + views ? i - axes + 1 : i - axes - views + 1;
  return tool_fail(err, CLI_EXIT_DATA, "%s rule %zu: no tensor matches '%.200s'%s", kind, number,
                   glob, ckpt_glob_note(glob));
}

int ckpt_plan_shard(const ckpt_model *m, const ckpt_format *format, const ckpt_shard_spec *spec,
                    ckpt_plan *plan, tool_error *err) {
  memset(plan, 0, sizeof *plan);
  size_t ranks = (size_t)spec->ranks;
  ckpt_meta *meta = NULL;
  size_t meta_count = 0;
  int has_meta = 0;
  int rc = merged_metadata(m, format, &meta, &meta_count, &has_meta, err);
  if (rc == 0) {
    plan->shared_meta = meta;
    rc = ckpt_plan_files(plan, ranks, err);
  }
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    char name[64];
    snprintf(name, sizeof name, "rank%zu%s", i, format->suffix);
    plan->files[i].name = strdup(name);
    plan->files[i].meta = meta;
    plan->files[i].meta_count = meta_count;
    plan->files[i].has_meta = has_meta;
    if (plan->files[i].name == NULL) {
      rc = tool_oom(err, "planning the shard");
    }
  }
  size_t rules = spec->axis_count + spec->view_count + spec->replicate_count;
  size_t *hits = calloc(rules + 1, sizeof *hits);
  if (rc == 0 && hits == NULL) {
    rc = tool_oom(err, "planning the shard");
  }
  for (size_t k = 0; k < m->tensor_count && rc == 0; k++) {
    const ckpt_tensor *t = m->by_name[k];
    const ckpt_shard_rule *axis = first_match(spec->axes, spec->axis_count, t->name, hits);
    const ckpt_shard_rule *view =
        first_match(spec->views, spec->view_count, t->name, hits + spec->axis_count);
    rc = axis == NULL ? replicate(spec, t, hits + spec->axis_count + spec->view_count, plan, err)
                      : cut_across(m, spec, axis, view, t, (uint64_t)k + 1, plan, err);
  }
  for (size_t i = 0; i < rules && rc == 0; i++) {
    if (hits[i] == 0) {
      rc = unmatched_rule(spec, i, err);
    }
  }
  free(hits);
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    rc = format->layout(format->ctx, &plan->files[i], err);
  }
  plan->lockstep = 1;
  return rc;
}
