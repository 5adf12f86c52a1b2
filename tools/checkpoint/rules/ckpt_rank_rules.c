/* The rules of the rank commands (shard, merge, reshard): which tensors they cut or join, and
 * the files of the ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_glob.h"
#include "ckpt_planner.h"

/* The first rule that `name` matches among the command line's (`preset` 0) or the preset's
 * (`preset` 1), counted in `hits`, or NULL. */
static const ckpt_shard_rule *first_match(const ckpt_shard_rule *rules, size_t count,
                                          const char *name, int preset, size_t *hits) {
  for (size_t i = 0; i < count; i++) {
    if ((rules[i].preset != 0) == preset && ckpt_glob_match(rules[i].glob, name, NULL)) {
      hits[i]++;
      return &rules[i];
    }
  }
  return NULL;
}

/* Whether a --replicate glob of the command line (`preset` 0) or of the preset matches, counted
 * in `hits`. */
static int replicated(const ckpt_shard_spec *spec, const char *name, int preset, size_t *hits) {
  size_t from = spec->replicate_count - spec->replicate_preset_count;
  for (size_t i = preset ? from : 0; i < (preset ? spec->replicate_count : from); i++) {
    if (ckpt_glob_match(spec->replicate[i], name, NULL)) {
      hits[i]++;
      return 1;
    }
  }
  return 0;
}

int ckpt_rules_for(const ckpt_shard_spec *spec, const char *name, size_t *hits,
                   const ckpt_shard_rule **axis, const ckpt_shard_rule **view, tool_error *err) {
  *view = first_match(spec->views, spec->view_count, name, 0, hits + spec->axis_count);
  /* A --replicate rule counts only for the tensors no --axis rule takes. The command line's
   * rules come before a preset's: they take the tensors they match, whatever the preset says. */
  size_t *replicate_hits = hits + spec->axis_count + spec->view_count;
  *axis = first_match(spec->axes, spec->axis_count, name, 0, hits);
  if (*axis != NULL || replicated(spec, name, 0, replicate_hits)) {
    return 0;
  }
  *axis = first_match(spec->axes, spec->axis_count, name, 1, hits);
  if (*axis != NULL && (*axis)->segment_count > 0 && *view != NULL) {
    /* A fused QKV is cut by its parts' heads, not along a view. */
    return tool_fail(err, CLI_EXIT_DATA,
                     "tensor '%.200s': --view '%.200s' would reshape the fused QKV the preset "
                     "cuts by its q, k and v heads; give it an --axis rule of its own to cut it "
                     "along that view",
                     name, (*view)->glob);
  }
  if (*axis != NULL || replicated(spec, name, 1, replicate_hits)) {
    return 0;
  }
  if (spec->unmatched_error && spec->unmatched_preset != NULL) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "tensor '%.200s' matches no --axis or --replicate rule, of preset '%s' or "
                     "of the command line: a tensor the preset does not know is not copied "
                     "silently (give it a rule, or --unmatched replicate)",
                     name, spec->unmatched_preset);
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

/* A preset's rule, which may match nothing (`i` counts as in ckpt_rules_for's hits). */
static int optional_rule(const ckpt_shard_spec *spec, size_t i) {
  size_t axes = spec->axis_count, views = spec->view_count;
  if (i < axes) {
    return spec->axes[i].preset;
  }
  return i >= axes + views &&
         i - axes - views >= spec->replicate_count - spec->replicate_preset_count;
}

/* CLI_EXIT_DATA when the spec has a preset's --axis rules and none matched a tensor: its names
 * are not the model's. */
static int preset_unmatched(const ckpt_shard_spec *spec, const size_t *hits, tool_error *err) {
  size_t presets = 0, matched = 0;
  for (size_t i = 0; i < spec->axis_count; i++) {
    presets += spec->axes[i].preset != 0;
    matched += spec->axes[i].preset != 0 && hits[i] != 0;
  }
  if (presets == 0 || matched != 0) {
    return 0;
  }
  for (size_t i = 0; i < spec->axis_count; i++) {
    if (spec->axes[i].preset) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "the preset cuts no tensor of the model: its names are not the preset's "
                       "(no tensor matches '%.200s' or any other of its %zu --axis rules)",
                       spec->axes[i].glob, presets - 1);
    }
  }
  return 0;
}

int ckpt_rules_preset_fits(const ckpt_shard_spec *spec, const ckpt_model *m, tool_error *err) {
  size_t *hits = calloc(spec->axis_count + 1, sizeof *hits);
  if (hits == NULL) {
    return tool_oom(err, "matching the preset's rules");
  }
  for (size_t i = 0; i < spec->axis_count; i++) {
    for (size_t k = 0; spec->axes[i].preset && hits[i] == 0 && k < m->tensor_count; k++) {
      ckpt_match match;
      hits[i] += ckpt_glob_match(spec->axes[i].glob, m->by_name[k]->name, &match) != 0;
    }
  }
  int rc = preset_unmatched(spec, hits, err);
  free(hits);
  return rc;
}

int ckpt_rules_unmatched(const ckpt_shard_spec *spec, const size_t *hits, tool_error *err) {
  size_t axes = spec->axis_count, views = spec->view_count;
  for (size_t i = 0; i < ckpt_rules_count(spec); i++) {
    if (hits[i] != 0 || optional_rule(spec, i)) {
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
  return preset_unmatched(spec, hits, err);
}

/* What one entry along the axis is called: a row of a matrix's axis 0, a column of its axis 1. */
static const char *entries(const ckpt_tensor *t, int64_t axis) {
  if (t->ndim == 1) {
    return "elements";
  }
  return axis == t->ndim - 1 ? "columns" : "rows";
}

/* The heads of a fused [q; k; v] tensor: its rows, then each part's heads against the ranks. */
static int check_segments(const ckpt_shard_rule *axis, const ckpt_tensor *t, const char *where,
                          int64_t ranks, tool_error *err) {
  static const char *const part[] = {"q", "k", "v"};
  const int64_t *h = axis->segment_heads, size = axis->head_size;
  int64_t total = 0;
  for (int i = 0; i < axis->segment_count; i++) {
    total += h[i] * size;
  }
  if (t->ndim < 1 || t->shape[0] != total) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%.300s: tensor '%.200s' has %lld rows, not the %lld of its q, k and v (%lld, "
                     "%lld and %lld heads of %lld) that config.json gives",
                     where, t->name, t->ndim < 1 ? 0LL : (long long)t->shape[0], (long long)total,
                     (long long)h[0], (long long)h[1], (long long)h[2], (long long)size);
  }
  for (int i = 0; i < axis->segment_count; i++) {
    if (h[i] % ranks != 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%.300s: tensor '%.200s': %lld ranks would cut the %lld %s of its %s part "
                       "(%lld rows each; every rank takes whole heads of q, k and v: the ranks "
                       "must divide the heads)",
                       where, t->name, (long long)ranks, (long long)h[i],
                       i == 0 ? "attention heads" : "KV heads", part[i], (long long)size);
    }
  }
  return 0;
}

int ckpt_rules_check_heads(const ckpt_shard_rule *axis, const ckpt_tensor *t, const char *where,
                           int64_t ranks, tool_error *err) {
  if (axis->segment_count > 0) {
    return check_segments(axis, t, where, ranks, err);
  }
  int64_t a = axis->axis < 0 ? axis->axis + t->ndim : axis->axis;
  if (axis->heads == 0 || a < 0 || a >= t->ndim) {
    return 0; /* no heads, or an axis out of range, which the cut reports */
  }
  int64_t heads = axis->heads, size = axis->head_size, have = t->shape[a];
  const char *kind = axis->head_kind, *unit = entries(t, a);
  if (have != heads * size) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%.300s: tensor '%.200s' has %lld %s on axis %lld, not the %lld %s of %lld "
                     "(%lld) that config.json gives",
                     where, t->name, (long long)have, unit, (long long)a, (long long)heads, kind,
                     (long long)size, (long long)(heads * size));
  }
  if (ranks <= 1 || heads % ranks == 0 ||
      (axis->replicate_heads == CKPT_HEADS_REPLICATED && heads < ranks && ranks % heads == 0)) {
    return 0;
  }
  /* KV heads fewer than the ranks can be replicated when the ranks are a multiple of them. */
  const char *why = " (every rank takes whole heads: the ranks must divide the heads)";
  if (heads < ranks && axis->replicate_heads == CKPT_HEADS_REPLICATED) {
    why = " (--replicate-kv needs the ranks to be a multiple of the KV heads)";
  } else if (heads < ranks && ranks % heads == 0 &&
             axis->replicate_heads == CKPT_HEADS_REPLICABLE) {
    why = "; --replicate-kv gives each rank the KV heads its query heads use";
  }
  return tool_fail(err, CLI_EXIT_DATA,
                   "%.300s: tensor '%.200s': %lld ranks would cut its %lld %s of %lld %s%s", where,
                   t->name, (long long)ranks, (long long)heads, kind, (long long)size, unit, why);
}

int64_t ckpt_rules_parts(const ckpt_shard_rule *axis, int64_t ranks) {
  return axis->replicate_heads == CKPT_HEADS_REPLICATED && axis->heads != 0 && axis->heads < ranks
             ? axis->heads
             : ranks;
}

size_t ckpt_rules_part_of(int64_t parts, int64_t ranks, size_t rank) {
  /* vLLM (vllm/model_executor/layers/linear.py, QKVParallelLinear.weight_loader) loads KV head
   * tp_rank // num_kv_head_replicas into each rank, num_kv_head_replicas = tp_size / kv_heads:
   * the same head as rank * kv_heads / tp_size when tp_size is a multiple of kv_heads. */
  return parts == ranks ? rank : (size_t)((uint64_t)rank * (uint64_t)parts / (uint64_t)ranks);
}

ckpt_cut ckpt_rules_cut(const ckpt_shard_rule *axis, const ckpt_shard_rule *view, int64_t parts) {
  ckpt_cut cut;
  if (view != NULL) {
    cut = view->view;
  } else if (axis->view.has_view) {
    cut = axis->view; /* a preset's rule carries its view */
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
