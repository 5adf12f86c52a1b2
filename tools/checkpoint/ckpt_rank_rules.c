/* The rules of the rank commands (shard, merge, reshard): which tensors they cut or join, and
 * the files of the ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_glob.h"
#include "ckpt_planner.h"

/* The rule that `name` matches first, counted in `hits`, or NULL. */
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

int ckpt_rules_for(const ckpt_shard_spec *spec, const char *name, size_t *hits,
                   const ckpt_shard_rule **axis, const ckpt_shard_rule **view, tool_error *err) {
  *axis = first_match(spec->axes, spec->axis_count, name, hits);
  *view = first_match(spec->views, spec->view_count, name, hits + spec->axis_count);
  if (*axis != NULL) {
    return 0;
  }
  /* A --replicate rule counts only for the tensors no --axis rule takes. */
  size_t *replicate_hits = hits + spec->axis_count + spec->view_count;
  for (size_t i = 0; i < spec->replicate_count; i++) {
    if (ckpt_glob_match(spec->replicate[i], name, NULL)) {
      replicate_hits[i]++;
      return 0;
    }
  }
  if (spec->unmatched_error) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "tensor '%.200s' matches no --axis or --replicate rule (--unmatched error)",
                     name);
  }
  return 0;
}

/* The --replicate globs' hits so far. */
static size_t replicate_hits(const ckpt_shard_spec *spec, const size_t *hits) {
  size_t total = 0;
  for (size_t i = 0; i < spec->replicate_count; i++) {
    total += hits[spec->axis_count + spec->view_count + i];
  }
  return total;
}

int ckpt_rules_for_scale(const ckpt_shard_spec *spec, const ckpt_tensor *w, const ckpt_tensor *s,
                         const char *where, size_t *hits, size_t *scratch,
                         const ckpt_shard_rule **axis, const ckpt_shard_rule **view,
                         tool_error *err) {
  ckpt_shard_spec loose = *spec;
  loose.unmatched_error = 0;
  const ckpt_shard_rule *own_axis, *own_view;
  size_t before = replicate_hits(spec, hits);
  ckpt_rules_for(&loose, s->name, hits, &own_axis, &own_view, err);
  int own_replicate = replicate_hits(spec, hits) != before;
  ckpt_rules_for(&loose, w->name, scratch, axis, view, err);
  int64_t n = s->ndim;
  const char *kind = NULL, *glob = NULL;
  if (own_axis != NULL && own_axis != *axis) {
    /* The same axis, with no view on either, says what the weight's rule says. */
    int same = *axis != NULL && own_view == NULL && *view == NULL &&
               (own_axis->axis < 0 ? own_axis->axis + n : own_axis->axis) ==
                   ((*axis)->axis < 0 ? (*axis)->axis + n : (*axis)->axis);
    kind = same ? NULL : "--axis";
    glob = own_axis->glob;
  }
  if (kind == NULL && own_view != NULL && own_view != *view) {
    kind = "--view";
    glob = own_view->glob;
  }
  if (kind == NULL && own_replicate && *axis != NULL) {
    kind = "--replicate";
    glob = "";
    for (size_t i = 0; i < spec->replicate_count; i++) {
      if (ckpt_glob_match(spec->replicate[i], s->name, NULL)) {
        glob = spec->replicate[i];
        break;
      }
    }
  }
  if (kind != NULL) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' is the quantization scale of '%.200s' and is cut as its "
                     "weight is, but the %s rule '%.200s' takes it otherwise",
                     where, s->name, w->name, kind, glob);
  }
  return 0;
}

size_t ckpt_rules_count(const ckpt_shard_spec *spec) {
  return spec->axis_count + spec->view_count + spec->replicate_count;
}

int ckpt_rules_unmatched(const ckpt_shard_spec *spec, const size_t *hits, tool_error *err) {
  size_t axes = spec->axis_count, views = spec->view_count;
  for (size_t i = 0; i < ckpt_rules_count(spec); i++) {
    if (hits[i] != 0) {
      continue;
    }
    const char *glob = i < axes           ? spec->axes[i].glob
                       : i < axes + views ? spec->views[i - axes].glob
                                          : spec->replicate[i - axes - views];
    const char *kind = i < axes ? "--axis" : i < axes + views ? "--view" : "--replicate";
    /* Numbered from 1 in each kind, as the command line gives them ("--axis rule 2"). */
    size_t number = i < axes ? i + 1 : i < axes + views ? i - axes + 1 : i - axes - views + 1;
    return tool_fail(err, CLI_EXIT_DATA, "%s rule %zu: no tensor matches '%.200s'%s", kind, number,
                     glob, ckpt_glob_note(glob));
  }
  return 0;
}

ckpt_cut ckpt_rules_cut(const ckpt_shard_rule *axis, const ckpt_shard_rule *view, int64_t parts) {
  ckpt_cut cut;
  if (view != NULL) {
    cut = view->view;
  } else {
    memset(&cut, 0, sizeof cut);
  }
  cut.axis = axis->axis;
  cut.has_parts = 1;
  cut.parts = parts;
  cut.lengths = NULL;
  return cut;
}

int ckpt_plan_rank_files(ckpt_plan *plan, size_t ranks, const ckpt_format *format,
                         tool_error *err) {
  int rc = ckpt_plan_files(plan, ranks, err);
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    char name[64];
    snprintf(name, sizeof name, "rank%zu%s", i, format->suffix);
    plan->files[i].name = strdup(name);
    if (plan->files[i].name == NULL) {
      rc = tool_oom(err, "planning the ranks");
    }
  }
  return rc;
}
