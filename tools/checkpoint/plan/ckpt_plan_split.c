/* Planning a split: the tensors the rules match are replaced by their parts. */
#include <stdlib.h>
#include <string.h>

#include "ckpt_by_size.h"
#include "ckpt_companion.h"
#include "ckpt_glob.h"
#include "ckpt_planner.h"
#include "ckpt_stack.h"

/* The one rule tensor `t` matches (NULL: none) with its captures; two rules are an error. */
static int find_rule(const ckpt_split_rule *rules, size_t rule_count, const ckpt_tensor *t,
                     size_t *hits, const ckpt_split_rule **rule, ckpt_match *match,
                     tool_error *err) {
  *rule = NULL;
  for (size_t i = 0; i < rule_count; i++) {
    ckpt_match here;
    int64_t index;
    int hit = rules[i].experts == CKPT_STACK ? ckpt_stack_match(&rules[i], t->name, &here, &index)
                                             : ckpt_glob_match(rules[i].glob, t->name, &here);
    if (!hit) {
      continue;
    }
    if (*rule != NULL) {
      return tool_fail(err, CLI_EXIT_DATA, "tensor '%.200s' matches both %s and %s", t->name,
                       (*rule)->origin, rules[i].origin);
    }
    *rule = &rules[i];
    *match = here;
    hits[i]++;
  }
  return 0;
}

/* The cut of `rule` for `t`: for a rule that unstacks, one part per index of its axis. */
static int rule_cut(const ckpt_split_rule *rule, const ckpt_tensor *t, const char *path,
                    ckpt_cut *cut, tool_error *err) {
  *cut = rule->cut;
  if (rule->experts != CKPT_UNSTACK) {
    return 0;
  }
  int64_t a = cut->axis < 0 ? cut->axis + t->ndim : cut->axis;
  cut->has_parts = 1;
  cut->parts = 1; /* an axis out of range gets the library's message */
  if (a >= 0 && a < t->ndim) {
    if (t->shape[a] == 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: %s: tensor '%.200s' has no experts to unstack: its axis %lld is 0",
                       path, rule->origin, t->name, (long long)a);
    }
    cut->parts = t->shape[a];
  }
  return 0;
}

/* Adds the parts of `t` that `rule` cuts to `out`, named by the rule and `suffix`; `group` is the
 * cut's number. */
static int add_parts(const ckpt_model *m, const ckpt_split_rule *rule, const ckpt_match *match,
                     const char *suffix, const ckpt_tensor *t, uint64_t group, ckpt_out_file *out,
                     tool_error *err) {
  ckpt_part *parts = NULL;
  size_t count = 0;
  int rc = ckpt_cut_tensor(&rule->cut, t, m->files[t->file].path, &parts, &count, err);
  int unstack = rule->experts == CKPT_UNSTACK;
  int64_t axis = rule->cut.axis < 0 ? rule->cut.axis + t->ndim : rule->cut.axis;
  if (rc == 0 && !unstack && count != rule->name_count) {
    rc = tool_fail(err, CLI_EXIT_USAGE, "%s cuts tensor '%.200s' into %zu %s but names %zu",
                   rule->origin, t->name, count, tool_plural(count, "part", "parts"),
                   rule->name_count);
  }
  for (size_t i = 0; i < count && rc == 0; i++) {
    ckpt_out_tensor o = ckpt_out_whole(t);
    ckpt_span span = ckpt_span_part(t, &parts[i], group);
    char *name = unstack ? ckpt_expert_name(rule->names[0], match, (int64_t)i, suffix)
                         : ckpt_expert_name(rule->names[i], match, -1, suffix);
    if (unstack) {
      /* The expert's own shape: the axis (of length 1 in the part) removed. */
      ckpt_part *p = &parts[i];
      memmove(&p->shape[axis], &p->shape[axis + 1],
              (size_t)(p->ndim - axis - 1) * sizeof *p->shape);
      p->ndim--;
    }
    o.name = name;
    o.ndim = parts[i].ndim;
    o.shape = parts[i].shape;
    o.bytes = span.rows * span.take;
    o.slice = parts[i].slice;
    if (name == NULL || ckpt_out_file_add(out, &o, &span, 1) != 0) {
      rc = tool_oom(err, "planning the split");
    }
    free(name);
  }
  free(parts);
  return rc;
}

/* The scale `s` of weight `w`: cut as the rule of `w` cuts it, its parts named after the weight's
 * parts with the scale's suffix, or copied whole when no rule cuts `w`. A rule that matches the
 * scale must be the weight's: a scale cut apart from its weight would describe other blocks. */
static int add_companion(const ckpt_model *m, const ckpt_split_rule *rules, size_t rule_count,
                         size_t *hits, size_t *scratch, const ckpt_tensor *w, const ckpt_tensor *s,
                         uint64_t group, ckpt_out_file *out, tool_error *err) {
  const ckpt_split_rule *own = NULL, *rule = NULL;
  ckpt_match own_match, match;
  const char *path = m->files[s->file].path;
  int rc = find_rule(rules, rule_count, s, hits, &own, &own_match, err);
  if (rc == 0) {
    rc = find_rule(rules, rule_count, w, scratch, &rule, &match, err);
  }
  if (rc == 0 && own != NULL && own != rule) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' is the quantization scale of '%.200s' and is cut as its "
                     "weight is, but %s matches it and not its weight",
                     path, s->name, w->name, own->origin);
  }
  if (rc == 0 && rule != NULL && rule->experts == CKPT_STACK) {
    return 0; /* stacked with its weight (ckpt_stack.c) */
  }
  if (rc == 0 && rule == NULL) {
    rc = ckpt_companion_check(&m->quant, w, s, path, err);
    ckpt_out_tensor o = ckpt_out_whole(s);
    ckpt_span span = ckpt_span_whole(s);
    if (rc == 0 && ckpt_out_file_add(out, &o, &span, 1) != 0) {
      rc = tool_oom(err, "planning the split");
    }
    return rc;
  }
  ckpt_split_rule scaled;
  ckpt_cut wcut;
  if (rc == 0) {
    rc = ckpt_companion_check(&m->quant, w, s, path, err);
  }
  if (rc == 0) {
    rc = rule_cut(rule, w, m->files[w->file].path, &wcut, err);
  }
  if (rc == 0) {
    scaled = *rule;
    rc = ckpt_companion_cut(&m->quant, w, s, &wcut, path, &scaled.cut, err);
  }
  if (rc == 0) {
    rc = add_parts(m, &scaled, &match, CKPT_SCALE_SUFFIX, s, group, out, err);
    ckpt_companion_cut_free(&scaled.cut);
  }
  return rc;
}

/* Every tensor, by name: its parts when a rule cuts it, else itself, into files[t->file], or
 * into files[0] when `one_file`. */
static int plan_tensors(const ckpt_model *m, const ckpt_split_rule *rules, size_t rule_count,
                        ckpt_out_file *files, int one_file, tool_error *err) {
  size_t *hits = calloc(rule_count + 1, sizeof *hits);
  size_t *scratch = calloc(rule_count + 1, sizeof *scratch);
  int rc = hits == NULL || scratch == NULL ? tool_oom(err, "planning the split") : 0;
  for (size_t k = 0; k < m->tensor_count && rc == 0; k++) {
    const ckpt_tensor *t = m->by_name[k];
    ckpt_out_file *out = &files[one_file ? 0 : t->file];
    size_t at;
    const ckpt_tensor *w = ckpt_companion_weight(m, t, &at);
    if (w != NULL) {
      rc = add_companion(m, rules, rule_count, hits, scratch, w, t, (uint64_t)k + 1, out, err);
      continue;
    }
    const ckpt_split_rule *rule = NULL;
    ckpt_match match;
    rc = find_rule(rules, rule_count, t, hits, &rule, &match, err);
    if (rc != 0) {
      break;
    }
    if (rule != NULL && rule->experts == CKPT_STACK) {
      continue; /* written by ckpt_plan_stacks */
    }
    if (rule != NULL) {
      ckpt_split_rule effective = *rule;
      rc = rule_cut(rule, t, m->files[t->file].path, &effective.cut, err);
      if (rc == 0) {
        rc = add_parts(m, &effective, &match, "", t, (uint64_t)k + 1, out, err);
      }
      continue;
    }
    ckpt_out_tensor o = ckpt_out_whole(t);
    ckpt_span span = ckpt_span_whole(t);
    if (ckpt_out_file_add(out, &o, &span, 1) != 0) {
      rc = tool_oom(err, "planning the split");
    }
  }
  if (rc == 0) {
    rc = ckpt_plan_stacks(m, rules, rule_count, files, one_file, err);
  }
  for (size_t i = 0; i < rule_count && rc == 0; i++) {
    if (hits[i] == 0) {
      const char *note = rules[i].experts == CKPT_STACK
                             ? " ('{e}' matches an expert's number: 0, 1, ... without a leading "
                               "zero)"
                             : ckpt_glob_note(rules[i].glob);
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: no tensor matches '%.200s'%s", rules[i].origin,
                     rules[i].glob, note);
    }
  }
  free(hits);
  free(scratch);
  return rc;
}

/* The names checked, every file laid out, and the index rendered when there is one. */
static int finish(const ckpt_format *format, ckpt_plan *plan, tool_error *err) {
  int rc = ckpt_plan_check_names(plan, err);
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    rc = ckpt_cast_file(format->cast, &plan->files[i], err);
    rc = rc == 0 ? format->layout(format->ctx, &plan->files[i], err) : rc;
  }
  if (rc == 0 && plan->index_name != NULL && format->index != NULL) {
    rc = format->index(format->ctx, plan, err);
  }
  return rc;
}

int ckpt_plan_split(const ckpt_model *m, const ckpt_format *format, const ckpt_split_rule *rules,
                    size_t rule_count, ckpt_plan *plan, tool_error *err) {
  memset(plan, 0, sizeof *plan);
  int rc = ckpt_plan_files(plan, m->file_count, err);
  for (size_t i = 0; i < m->file_count && rc == 0; i++) {
    ckpt_out_file *out = &plan->files[i];
    out->name = strdup(m->files[i].name);
    out->meta = m->files[i].meta;
    out->meta_count = m->files[i].meta_count;
    out->has_meta = m->files[i].has_meta;
    if (out->name == NULL) {
      rc = tool_oom(err, "planning the split");
    }
  }
  if (rc == 0) {
    rc = plan_tensors(m, rules, rule_count, plan->files, 0, err);
  }
  if (rc == 0 && m->index_name != NULL && format->index != NULL) {
    plan->index_name = strdup(m->index_name);
    rc = plan->index_name == NULL ? tool_oom(err, "planning the index") : 0;
  }
  return rc == 0 ? finish(format, plan, err) : rc;
}

int ckpt_plan_split_sized(const ckpt_model *m, const ckpt_format *format,
                          const ckpt_split_rule *rules, size_t rule_count, uint64_t max_shard_size,
                          ckpt_plan *plan, tool_error *err) {
  if (max_shard_size == 0) {
    return ckpt_plan_split(m, format, rules, rule_count, plan, err);
  }
  memset(plan, 0, sizeof *plan);
  ckpt_out_file all;
  memset(&all, 0, sizeof all);
  int rc = plan_tensors(m, rules, rule_count, &all, 1, err);
  if (rc == 0) { /* sized by the outputs' bytes: after the conversion */
    rc = ckpt_cast_file(format->cast, &all, err);
  }
  if (rc == 0) {
    rc = ckpt_plan_by_size(plan, &all, max_shard_size, "model", format->suffix,
                           format->index != NULL ? ".index.json" : NULL, err);
  }
  ckpt_out_file_free(&all);
  if (rc == 0) {
    rc = ckpt_plan_union_meta(plan, m, format->metadata_name, "shards", err);
  }
  return rc == 0 ? finish(format, plan, err) : rc;
}
