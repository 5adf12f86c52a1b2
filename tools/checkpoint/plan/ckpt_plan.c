/* The plan's memory, and the names of its outputs. */
#include "ckpt_plan.h"

#include <stdlib.h>
#include <string.h>

/* Grows `*array` of `*cap` elements of `size` bytes to hold `need`. Returns 0 or -1. */
static int reserve(void **array, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) {
    return 0;
  }
  size_t grown = *cap == 0 ? 16 : *cap;
  while (grown < need) {
    grown *= 2;
  }
  void *p = realloc(*array, grown * size);
  if (p == NULL) {
    return -1;
  }
  *array = p;
  *cap = grown;
  return 0;
}

int ckpt_out_file_add(ckpt_out_file *file, const ckpt_out_tensor *tensor, const ckpt_span *spans,
                      size_t count) {
  if (reserve((void **)&file->tensors, &file->tensor_cap, file->tensor_count + 1,
              sizeof *file->tensors) != 0 ||
      reserve((void **)&file->spans, &file->span_cap, file->span_count + count,
              sizeof *file->spans) != 0) {
    return -1;
  }
  ckpt_out_tensor *dst = &file->tensors[file->tensor_count];
  *dst = *tensor;
  dst->name = strdup(tensor->name);
  dst->shape = malloc((size_t)(tensor->ndim > 0 ? tensor->ndim : 1) * sizeof *dst->shape);
  if (dst->name == NULL || dst->shape == NULL) {
    free(dst->name);
    free(dst->shape);
    return -1;
  }
  if (tensor->ndim > 0) {
    memcpy(dst->shape, tensor->shape, (size_t)tensor->ndim * sizeof *dst->shape);
  }
  dst->first_span = file->span_count;
  dst->span_count = count;
  if (count > 0) {
    memcpy(file->spans + file->span_count, spans, count * sizeof *spans);
  }
  file->span_count += count;
  file->tensor_count++;
  return 0;
}

const ckpt_span *ckpt_out_spans(const ckpt_out_file *file, const ckpt_out_tensor *t) {
  return file->spans + t->first_span;
}

ckpt_out_tensor ckpt_out_whole(const ckpt_tensor *t) {
  ckpt_out_tensor o;
  memset(&o, 0, sizeof o);
  o.name = t->name;
  o.dtype = t->dtype;
  o.ndim = t->ndim;
  o.shape = t->shape;
  o.bytes = t->bytes;
  o.source = t;
  return o;
}

ckpt_span ckpt_span_whole(const ckpt_tensor *t) {
  ckpt_span s;
  memset(&s, 0, sizeof s);
  s.src_file = t->file;
  s.src_row = t->offset;
  s.src_stride = s.dst_stride = s.take = t->bytes;
  s.rows = 1;
  return s;
}

ckpt_span ckpt_span_part(const ckpt_tensor *t, const ckpt_part *p, uint64_t group) {
  ckpt_span s = ckpt_span_whole(t);
  if (p->rows == 1 || p->take == p->row_bytes) {
    /* A contiguous range of the tensor: one row. */
    s.src_row += p->col;
    s.take = s.src_stride = s.dst_stride = p->take * p->rows;
    return s;
  }
  s.rows = p->rows;
  s.src_stride = p->row_bytes;
  s.src_col = p->col;
  s.take = s.dst_stride = p->take;
  s.group = group;
  return s;
}

uint64_t ckpt_out_file_size(const ckpt_out_file *f) {
  return f->prefix_size + f->data_size;
}

int ckpt_plan_files(ckpt_plan *plan, size_t count, tool_error *err) {
  plan->files = calloc(count + 1, sizeof *plan->files);
  if (plan->files == NULL) {
    return tool_oom(err, "planning the outputs");
  }
  plan->file_count = count;
  return 0;
}

void ckpt_out_file_free(ckpt_out_file *f) {
  for (size_t k = 0; k < f->tensor_count; k++) {
    free(f->tensors[k].name);
    free(f->tensors[k].shape);
  }
  free(f->tensors);
  free(f->spans);
  free(f->name);
  free(f->prefix);
  memset(f, 0, sizeof *f);
}

void ckpt_plan_free(ckpt_plan *plan) {
  for (size_t i = 0; i < plan->file_count; i++) {
    ckpt_out_file_free(&plan->files[i]);
  }
  free(plan->files);
  free(plan->index_text);
  free(plan->index_name);
  for (size_t i = 0; i < plan->made_count; i++) {
    free(plan->made[i].name);
    free(plan->made[i].text);
  }
  free(plan->made);
  free(plan->shared_meta);
  free(plan->checks);
  memset(plan, 0, sizeof *plan);
}

int ckpt_plan_add_made(ckpt_plan *plan, const char *name, const char *text, tool_error *err) {
  ckpt_made_file *made = realloc(plan->made, (plan->made_count + 1) * sizeof *made);
  if (made == NULL) {
    return tool_oom(err, "planning the outputs");
  }
  plan->made = made;
  ckpt_made_file *f = &made[plan->made_count];
  f->name = strdup(name);
  f->text = strdup(text);
  if (f->name == NULL || f->text == NULL) {
    free(f->name);
    free(f->text);
    return tool_oom(err, "planning the outputs");
  }
  plan->made_count++;
  return 0;
}

int ckpt_plan_add_check(ckpt_plan *plan, const ckpt_tensor *tensor, const ckpt_tensor *copy,
                        tool_error *err) {
  if (reserve((void **)&plan->checks, &plan->check_cap, plan->check_count + 1,
              sizeof *plan->checks) != 0) {
    return tool_oom(err, "planning the comparisons");
  }
  plan->checks[plan->check_count++] = (ckpt_check){tensor, copy, NULL};
  return 0;
}

static int same_value(const ckpt_meta *a, const ckpt_meta *b) {
  return a->kind == b->kind && a->value_size == b->value_size &&
         memcmp(a->value, b->value, a->value_size) == 0;
}

/* A metadata entry and the file it is in, for the union. */
typedef struct meta_entry {
  const ckpt_meta *meta;
  size_t file;
} meta_entry;

static int meta_order(const void *a, const void *b) {
  const meta_entry *x = a, *y = b;
  int c = strcmp(x->meta->key, y->meta->key);
  return c != 0 ? c : x->file < y->file ? -1 : x->file > y->file;
}

int ckpt_plan_union_meta(ckpt_plan *plan, const ckpt_model *m, const char *metadata_name,
                         const char *what, tool_error *err) {
  size_t n = 0;
  int has = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    n += m->files[i].meta_count;
    has |= m->files[i].has_meta;
  }
  meta_entry *all = calloc(n + 1, sizeof *all);
  ckpt_meta *out = calloc(n + 1, sizeof *out);
  if (all == NULL || out == NULL) {
    free(all);
    free(out);
    return tool_oom(err, "merging the metadata");
  }
  size_t k = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    for (size_t j = 0; j < m->files[i].meta_count; j++) {
      all[k++] = (meta_entry){&m->files[i].meta[j], i};
    }
  }
  /* Sorted by key, then file: each key's entries side by side, the first file's first. */
  qsort(all, n, sizeof *all, meta_order);
  size_t count = 0;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (count > 0 && strcmp(out[count - 1].key, all[i].meta->key) == 0) {
      if (!same_value(&out[count - 1], all[i].meta)) {
        rc = tool_fail(err, CLI_EXIT_DATA, "%s '%.200s' differs between the %s ('%.100s' in '%s')",
                       metadata_name, all[i].meta->key, what, all[i].meta->value,
                       m->files[all[i].file].name);
      }
      continue;
    }
    out[count++] = *all[i].meta;
  }
  free(all);
  if (rc != 0) {
    free(out);
    return rc;
  }
  free(plan->shared_meta);
  plan->shared_meta = out;
  for (size_t i = 0; i < plan->file_count; i++) {
    plan->files[i].meta = out;
    plan->files[i].meta_count = count;
    plan->files[i].has_meta = has;
  }
  return 0;
}
typedef struct name_entry {
  const char *name;
  const char *source;
  int cut;
} name_entry;

static int name_entry_cmp(const void *a, const void *b) {
  return strcmp(((const name_entry *)a)->name, ((const name_entry *)b)->name);
}

int ckpt_plan_check_names(const ckpt_plan *plan, tool_error *err) {
  size_t n = 0;
  for (size_t i = 0; i < plan->file_count; i++) {
    n += plan->files[i].tensor_count;
  }
  name_entry *all = calloc(n + 1, sizeof *all);
  if (all == NULL) {
    return tool_oom(err, "checking the output names");
  }
  n = 0;
  for (size_t i = 0; i < plan->file_count; i++) {
    for (size_t k = 0; k < plan->files[i].tensor_count; k++) {
      const ckpt_out_tensor *t = &plan->files[i].tensors[k];
      const char *source = t->source != NULL ? t->source->name : t->name;
      all[n++] = (name_entry){t->name, source, strcmp(t->name, source) != 0};
    }
  }
  qsort(all, n, sizeof *all, name_entry_cmp);
  int rc = 0;
  for (size_t i = 1; i < n; i++) {
    if (strcmp(all[i - 1].name, all[i].name) == 0) {
      const name_entry *a = &all[i - 1], *b = &all[i];
      if (!a->cut || !b->cut) {
        const name_entry *part = a->cut ? a : b;
        rc = tool_fail(err, CLI_EXIT_DATA,
                       "the part '%.200s' of tensor '%.200s' would replace the untouched tensor "
                       "of that name",
                       part->name, part->source);
      } else {
        rc = tool_fail(err, CLI_EXIT_DATA,
                       "two outputs are named '%.200s' (parts of '%.200s' and '%.200s')", a->name,
                       a->source, b->source);
      }
      break;
    }
  }
  free(all);
  return rc;
}
