/* Planning split and shard: which output tensor comes from which bytes of which input. */
#include "st_planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

static int oom(st_error *err) {
  return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
}

static st_piece whole_piece(const st_model *m, st_ref r) {
  const st_tensor *t = st_model_tensor(m, r);
  const st_file *f = &m->files[r.file];
  st_piece p;
  memset(&p, 0, sizeof p);
  p.name = t->name;
  p.dtype = t->dtype;
  p.ndim = t->ndim;
  p.shape = t->shape;
  p.src_file = r.file;
  p.src_offset = 8 + f->header_size + t->begin;
  p.rows = 1;
  p.row_bytes = st_tensor_bytes(t);
  p.col = 0;
  p.take = p.row_bytes;
  p.source = t->name;
  return p;
}

/* Part `part` of the tensor at `r`, the cut numbered `cut` (every part of one cut tensor shares
 * it, so that the copy can gather them all from one read of the tensor's rows). */
static st_piece part_piece(const st_model *m, st_ref r, const st_part *part, uint64_t cut) {
  st_piece p = whole_piece(m, r);
  p.cut = cut;
  p.ndim = part->ndim;
  p.shape = (int64_t *)part->shape;
  p.rows = part->rows;
  p.row_bytes = part->row_bytes;
  p.col = part->col;
  p.take = part->take;
  /* A part that is a contiguous range is one row. */
  if (p.rows == 1 || p.take == p.row_bytes) {
    p.src_offset += p.col;
    p.take *= p.rows;
    p.row_bytes = p.take;
    p.col = 0;
    p.rows = 1;
  }
  return p;
}

/* Output names must be unique across the plan. */
typedef struct name_entry {
  const char *name;
  const char *source;
  int cut;
} name_entry;

static int name_entry_cmp(const void *a, const void *b) {
  return strcmp(((const name_entry *)a)->name, ((const name_entry *)b)->name);
}

static int check_unique(const st_plan *plan, st_error *err, size_t files) {
  size_t n = 0;
  for (size_t i = 0; i < files; i++) {
    n += plan->files[i].count;
  }
  name_entry *all = calloc(n + 1, sizeof *all);
  if (all == NULL) {
    return oom(err);
  }
  n = 0;
  for (size_t i = 0; i < files; i++) {
    for (size_t k = 0; k < plan->files[i].count; k++) {
      const st_piece *p = &plan->files[i].pieces[k];
      all[n++] = (name_entry){p->name, p->source, strcmp(p->name, p->source) != 0};
    }
  }
  qsort(all, n, sizeof *all, name_entry_cmp);
  int rc = 0;
  for (size_t i = 1; i < n; i++) {
    if (strcmp(all[i - 1].name, all[i].name) == 0) {
      const name_entry *a = &all[i - 1], *b = &all[i];
      if (!a->cut || !b->cut) {
        const name_entry *part = a->cut ? a : b;
        rc = st_fail(err, CLI_EXIT_DATA,
                     "the part '%.200s' of tensor '%.200s' would replace the untouched tensor "
                     "of that name",
                     part->name, part->source);
      } else {
        rc = st_fail(err, CLI_EXIT_DATA,
                     "two outputs are named '%.200s' (parts of '%.200s' and '%.200s')", a->name,
                     a->source, b->source);
      }
      break;
    }
  }
  free(all);
  return rc;
}

static int new_files(st_plan *plan, size_t n, st_error *err) {
  plan->files = calloc(n + 1, sizeof *plan->files);
  if (plan->files == NULL) {
    return oom(err);
  }
  plan->file_count = n;
  return 0;
}

int st_plan_split(const st_model *m, const st_split_rule *rules, size_t rule_count, st_plan *plan,
                  st_error *err) {
  memset(plan, 0, sizeof *plan);
  int rc = new_files(plan, m->file_count, err);
  for (size_t i = 0; i < m->file_count && rc == 0; i++) {
    plan->files[i].name = strdup(m->file_names[i]);
    plan->files[i].meta = m->files[i].meta;
    plan->files[i].meta_count = m->files[i].meta_count;
    plan->files[i].has_meta = m->files[i].has_meta;
    if (plan->files[i].name == NULL) {
      rc = oom(err);
    }
  }
  size_t *hits = calloc(rule_count + 1, sizeof *hits);
  if (rc == 0 && hits == NULL) {
    rc = oom(err);
  }
  for (size_t k = 0; k < m->tensor_count && rc == 0; k++) {
    st_ref r = m->sorted[k];
    const st_tensor *t = st_model_tensor(m, r);
    const st_split_rule *rule = NULL;
    st_match match;
    for (size_t i = 0; i < rule_count && rc == 0; i++) {
      st_match here;
      if (!st_glob_match(rules[i].glob, t->name, &here)) {
        continue;
      }
      if (rule != NULL) {
        rc = st_fail(err, CLI_EXIT_DATA, "tensor '%.200s' matches both %s and %s", t->name,
                     rule->origin, rules[i].origin);
        break;
      }
      rule = &rules[i];
      match = here;
      hits[i]++;
    }
    if (rc != 0) {
      break;
    }
    st_out_file *out = &plan->files[r.file];
    if (rule == NULL) {
      st_piece p = whole_piece(m, r);
      if (st_out_file_add(out, &p) != 0) {
        rc = oom(err);
      }
      continue;
    }
    st_part *parts = NULL;
    size_t count = 0;
    rc = st_cut_tensor(&rule->cut, t, m->files[r.file].path, &parts, &count, err);
    if (rc == 0 && count != rule->name_count) {
      rc = st_fail(err, CLI_EXIT_USAGE, "%s cuts tensor '%.200s' into %zu parts but names %zu",
                   rule->origin, t->name, count, rule->name_count);
    }
    for (size_t i = 0; i < count && rc == 0; i++) {
      st_piece p = part_piece(m, r, &parts[i], (uint64_t)k + 1);
      char *name = st_glob_fill(rule->names[i], &match);
      p.name = name;
      if (name == NULL || st_out_file_add(out, &p) != 0) {
        rc = oom(err);
      }
      free(name);
    }
    free(parts);
  }
  for (size_t i = 0; i < rule_count && rc == 0; i++) {
    if (hits[i] == 0) {
      rc = st_fail(err, CLI_EXIT_DATA, "%s: no tensor matches '%.200s'", rules[i].origin,
                   rules[i].glob);
    }
  }
  free(hits);
  if (rc == 0) {
    rc = check_unique(plan, err, plan->file_count);
  }
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    rc = st_layout(&plan->files[i], err);
  }
  if (rc == 0 && m->index_name != NULL) {
    rc = st_plan_index(plan, m, err);
  }
  return rc;
}

/* The union of the input files' metadata; a key with two values is an error. */
static int merged_metadata(const st_model *m, st_meta **out, size_t *count, int *has,
                           st_error *err) {
  size_t n = 0;
  *has = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    n += m->files[i].meta_count;
    *has |= m->files[i].has_meta;
  }
  st_meta *all = calloc(n + 1, sizeof *all);
  if (all == NULL) {
    return oom(err);
  }
  size_t k = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    for (size_t j = 0; j < m->files[i].meta_count; j++) {
      const st_meta *e = &m->files[i].meta[j];
      size_t seen = 0;
      for (; seen < k && strcmp(all[seen].key, e->key) != 0; seen++) {
      }
      if (seen < k) {
        if (strcmp(all[seen].value, e->value) != 0) {
          free(all);
          return st_fail(err, CLI_EXIT_DATA,
                         "__metadata__ '%.200s' differs between the shards ('%.100s' in '%s')",
                         e->key, e->value, m->file_names[i]);
        }
        continue;
      }
      all[k++] = *e;
    }
  }
  /* Sorted like a file's own metadata. */
  for (size_t i = 1; i < k; i++) {
    for (size_t j = i; j > 0 && strcmp(all[j - 1].key, all[j].key) > 0; j--) {
      st_meta t = all[j];
      all[j] = all[j - 1];
      all[j - 1] = t;
    }
  }
  *out = all;
  *count = k;
  return 0;
}

int st_plan_shard(const st_model *m, const st_shard_spec *spec, st_plan *plan, st_error *err) {
  memset(plan, 0, sizeof *plan);
  size_t ranks = (size_t)spec->ranks;
  st_meta *meta = NULL;
  size_t meta_count = 0;
  int has_meta = 0;
  int rc = merged_metadata(m, &meta, &meta_count, &has_meta, err);
  if (rc == 0) {
    rc = new_files(plan, ranks, err);
  }
  for (size_t i = 0; i < ranks && rc == 0; i++) {
    char name[64];
    snprintf(name, sizeof name, "rank%zu.safetensors", i);
    plan->files[i].name = strdup(name);
    plan->files[i].meta = meta;
    plan->files[i].meta_count = meta_count;
    plan->files[i].has_meta = has_meta;
    if (plan->files[i].name == NULL) {
      rc = oom(err);
    }
  }
  size_t rules = spec->axis_count + spec->view_count + spec->replicate_count;
  size_t *hits = calloc(rules + 1, sizeof *hits);
  if (rc == 0 && hits == NULL) {
    rc = oom(err);
  }
  for (size_t k = 0; k < m->tensor_count && rc == 0; k++) {
    st_ref r = m->sorted[k];
    const st_tensor *t = st_model_tensor(m, r);
    const st_shard_rule *axis = NULL, *view = NULL;
    for (size_t i = 0; i < spec->axis_count && axis == NULL; i++) {
      if (st_glob_match(spec->axes[i].glob, t->name, NULL)) {
        axis = &spec->axes[i];
        hits[i]++;
      }
    }
    for (size_t i = 0; i < spec->view_count && view == NULL; i++) {
      if (st_glob_match(spec->views[i].glob, t->name, NULL)) {
        view = &spec->views[i];
        hits[spec->axis_count + i]++;
      }
    }
    if (axis == NULL) {
      int replicate = !spec->unmatched_error;
      for (size_t i = 0; i < spec->replicate_count; i++) {
        if (st_glob_match(spec->replicate[i], t->name, NULL)) {
          hits[spec->axis_count + spec->view_count + i]++;
          replicate = 1;
          break;
        }
      }
      if (!replicate) {
        rc = st_fail(err, CLI_EXIT_DATA,
                     "tensor '%.200s' matches no --axis or --replicate rule "
                     "(--unmatched error)",
                     t->name);
        break;
      }
      st_piece p = whole_piece(m, r);
      for (size_t i = 0; i < ranks && rc == 0; i++) {
        if (st_out_file_add(&plan->files[i], &p) != 0) {
          rc = oom(err);
        }
      }
      continue;
    }
    st_cut cut;
    if (view != NULL) {
      cut = view->view;
    } else {
      memset(&cut, 0, sizeof cut);
    }
    cut.axis = axis->axis;
    cut.has_parts = 1;
    cut.parts = spec->ranks;
    cut.lengths = NULL;
    st_part *parts = NULL;
    size_t count = 0;
    rc = st_cut_tensor(&cut, t, m->files[r.file].path, &parts, &count, err);
    for (size_t i = 0; i < count && rc == 0; i++) {
      st_piece p = part_piece(m, r, &parts[i], (uint64_t)k + 1);
      if (st_out_file_add(&plan->files[i], &p) != 0) {
        rc = oom(err);
      }
    }
    free(parts);
  }
  for (size_t i = 0; i < rules && rc == 0; i++) {
    if (hits[i] == 0) {
      const char *glob = i < spec->axis_count ? spec->axes[i].glob
                         : i < spec->axis_count + spec->view_count
                             ? spec->views[i - spec->axis_count].glob
                             : spec->replicate[i - spec->axis_count - spec->view_count];
      const char *kind = i < spec->axis_count                      ? "--axis"
                         : i < spec->axis_count + spec->view_count ? "--view"
                                                                   : "--replicate";
      rc = st_fail(err, CLI_EXIT_DATA, "%s: no tensor matches '%.200s'", kind, glob);
    }
  }
  free(hits);
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    rc = st_layout(&plan->files[i], err);
  }
  plan->lockstep = 1;
  if (rc == 0) {
    /* The plan keeps pointers to the merged metadata: hand it over to file 0's slot. */
    plan->shared_meta = meta;
  } else {
    free(meta);
  }
  return rc;
}
