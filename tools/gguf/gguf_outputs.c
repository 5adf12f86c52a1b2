/* Finishing a gguf plan: split sets, the metadata the rules change, the layouts. */
#include "gguf_outputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_value.h"
#include "gguf_write.h"

/* The most files a set may have: split.count is a u16. */
#define MAX_SET_FILES 65535u

void gguf_outputs_free(gguf_outputs *store) {
  for (size_t i = 0; i < store->array_count; i++) {
    free(store->arrays[i]);
  }
  for (size_t i = 0; i < store->string_count; i++) {
    free(store->strings[i]);
  }
  free(store->arrays);
  free(store->strings);
  memset(store, 0, sizeof *store);
}

/* Keeps `p` (malloc'd) until the store is freed; NULL when out of memory (p is freed). */
static void *keep(gguf_outputs *store, void *p) {
  if (p == NULL) {
    return NULL;
  }
  if (store->string_count == store->string_cap) {
    size_t cap = store->string_cap ? store->string_cap * 2 : 16;
    char **grown = realloc(store->strings, cap * sizeof *grown);
    if (grown == NULL) {
      free(p);
      return NULL;
    }
    store->strings = grown;
    store->string_cap = cap;
  }
  store->strings[store->string_count++] = p;
  return p;
}

/* A scalar entry of `type` holding `v`, its value kept in the store. */
static int scalar(gguf_outputs *store, const char *key, int type, uint64_t v, ckpt_meta *out) {
  unsigned n = gguf_value_size(type);
  unsigned char *value = keep(store, calloc(n + 1, 1));
  if (value == NULL) {
    return -1;
  }
  gguf_put_le(value, v, n);
  out->key = (char *)key;
  out->value = (char *)value;
  out->value_size = n;
  out->kind = GGUF_META_KIND(type);
  return 0;
}

static uint64_t alignment_bytes(const ckpt_out_file *f) {
  const ckpt_meta *e = gguf_meta_lookup(f->meta, f->meta_count, "general.alignment");
  return e != NULL && gguf_meta_type(e) == GGUF_U32 ? gguf_le((const unsigned char *)e->value, 4)
                                                    : GGUF_DEFAULT_ALIGNMENT;
}

/* gguf-split's rules: a file takes tensors in order until the next one would take its data past
 * `o->max_shard_bytes` (each tensor padded to the alignment), or until it holds
 * `o->max_tensors`; a file holds one tensor at least. Returns whether tensor of `padded` bytes
 * starts a new file, and counts it in. */
static int starts_file(uint64_t padded, const gguf_output_options *o, uint64_t *used,
                       size_t *in_file) {
  int fresh = *in_file == 0 || (o->max_shard_bytes > 0 && *used + padded > o->max_shard_bytes) ||
              (o->max_tensors > 0 && *in_file >= o->max_tensors);
  if (fresh) {
    *used = 0;
    *in_file = 0;
  }
  *used += padded;
  (*in_file)++;
  return fresh;
}

/* Moves the tensors of every file, in order, into the files of a set of at most
 * `o->max_shard_bytes` bytes of data and `o->max_tensors` tensors each, named
 * BASE-0000k-of-0000N.gguf. */
static int regroup(ckpt_plan *plan, const gguf_output_options *o, tool_error *err) {
  uint64_t align = alignment_bytes(&plan->files[0]);
  size_t files = 0, in_file = 0;
  uint64_t used = 0;
  for (size_t i = 0; i < plan->file_count; i++) {
    for (size_t k = 0; k < plan->files[i].tensor_count; k++) {
      uint64_t padded = (plan->files[i].tensors[k].bytes + align - 1) / align * align;
      files += (size_t)starts_file(padded, o, &used, &in_file);
    }
  }
  files = files == 0 ? 1 : files;
  if (files > MAX_SET_FILES) {
    char limits[96] = "";
    if (o->max_shard_bytes > 0) {
      snprintf(limits, sizeof limits, "--max-shard-size %llu",
               (unsigned long long)o->max_shard_bytes);
    }
    if (o->max_tensors > 0) {
      size_t k = strlen(limits);
      snprintf(limits + k, sizeof limits - k, "%s--max-tensors %llu", k > 0 ? " and " : "",
               (unsigned long long)o->max_tensors);
    }
    return tool_fail(err, CLI_EXIT_DATA, "%s would make %zu files, more than the %u of a split set",
                     limits, files, MAX_SET_FILES);
  }
  ckpt_plan fresh;
  memset(&fresh, 0, sizeof fresh);
  int rc = ckpt_plan_files(&fresh, files, err);
  for (size_t f = 0; f < files && rc == 0; f++) {
    char name[4096];
    gguf_split_name(o->set_base, f, files, name, sizeof name);
    fresh.files[f].name = strdup(name);
    if (fresh.files[f].name == NULL) {
      rc = tool_oom(err, "planning the split set");
    }
  }
  size_t at = 0, placed = 0;
  used = 0;
  in_file = 0;
  for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
    const ckpt_out_file *old = &plan->files[i];
    for (size_t k = 0; k < old->tensor_count && rc == 0; k++) {
      const ckpt_out_tensor *t = &old->tensors[k];
      uint64_t padded = (t->bytes + align - 1) / align * align;
      if (starts_file(padded, o, &used, &in_file) && placed++ > 0) {
        at++;
      }
      if (ckpt_out_file_add(&fresh.files[at], t, ckpt_out_spans(old, t), t->span_count) != 0) {
        rc = tool_oom(err, "planning the split set");
      }
    }
  }
  if (rc == 0) {
    /* The first file keeps the model's metadata; the others take general.alignment from it
     * unless it is the default, which gguf-split's files rely on. */
    fresh.files[0].meta = plan->files[0].meta;
    fresh.files[0].meta_count = plan->files[0].meta_count;
    fresh.files[0].has_meta = 1;
    const ckpt_meta *a =
        alignment_bytes(&plan->files[0]) != GGUF_DEFAULT_ALIGNMENT
            ? gguf_meta_lookup(plan->files[0].meta, plan->files[0].meta_count, "general.alignment")
            : NULL;
    for (size_t f = 1; f < files; f++) {
      fresh.files[f].meta = a;
      fresh.files[f].meta_count = a != NULL;
      fresh.files[f].has_meta = 1;
    }
    /* Swap the files: the old ones go with a plan that holds nothing else. */
    ckpt_plan old;
    memset(&old, 0, sizeof old);
    old.files = plan->files;
    old.file_count = plan->file_count;
    plan->files = fresh.files;
    plan->file_count = fresh.file_count;
    fresh.files = old.files;
    fresh.file_count = old.file_count;
  }
  ckpt_plan_free(&fresh);
  return rc;
}

/* The expert count of the model the files first..first+count-1 form: updated when every
 * *_exps* tensor whose axis 0 held the input's experts holds the same other number of them. */
static int experts(ckpt_plan *plan, size_t first, size_t count, ckpt_meta **arrays,
                   gguf_outputs *store, tool_error *err) {
  ckpt_meta *entry = NULL;
  for (size_t f = first; f < first + count && entry == NULL; f++) {
    const ckpt_out_file *file = &plan->files[f];
    const ckpt_meta *arch = gguf_meta_lookup(arrays[f], file->meta_count, "general.architecture");
    if (arch == NULL || gguf_meta_type(arch) != GGUF_STRING) {
      continue;
    }
    char key[256];
    snprintf(key, sizeof key, "%.200s.expert_count", arch->value);
    entry = (ckpt_meta *)gguf_meta_lookup(arrays[f], file->meta_count, key);
  }
  int neg;
  uint64_t experts_in;
  if (entry == NULL || gguf_meta_integer(entry, &neg, &experts_in) != 0 || neg || experts_in == 0 ||
      experts_in > INT64_MAX) {
    return 0;
  }
  const ckpt_out_tensor *seen = NULL;
  for (size_t f = first; f < first + count; f++) {
    const ckpt_out_file *file = &plan->files[f];
    for (size_t k = 0; k < file->tensor_count; k++) {
      const ckpt_out_tensor *t = &file->tensors[k];
      const ckpt_tensor *src = t->source;
      if (strstr(src->name, "_exps") == NULL || src->ndim < 1 || t->ndim < 1 ||
          (uint64_t)src->shape[0] != experts_in) {
        continue;
      }
      if (seen != NULL && seen->shape[0] != t->shape[0]) {
        return tool_fail(err, CLI_EXIT_DATA,
                         "output '%s': the expert tensors would hold different numbers of "
                         "experts ('%s' %lld, '%s' %lld, of %llu): cut every *_exps tensor along "
                         "axis 0 alike, or none",
                         plan->files[first].name, seen->name, (long long)seen->shape[0], t->name,
                         (long long)t->shape[0], (unsigned long long)experts_in);
      }
      seen = t;
    }
  }
  if (seen == NULL || (uint64_t)seen->shape[0] == experts_in) {
    return 0;
  }
  int type = gguf_meta_type(entry);
  unsigned n = gguf_value_size(type);
  uint64_t v = (uint64_t)seen->shape[0];
  int is_signed = type == GGUF_I8 || type == GGUF_I16 || type == GGUF_I32 || type == GGUF_I64;
  if (n < 8 && v >> (8 * n - (unsigned)is_signed) != 0) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %llu does not fit its type %s", entry->key,
                     (unsigned long long)v, gguf_value_type_name(type));
  }
  return scalar(store, entry->key, type, v, entry) == 0 ? 0 : tool_oom(err, "updating metadata");
}

/* Every file's own metadata array (the plan's entries, updated), with the split keys in a set. */
static int build_metadata(ckpt_plan *plan, int is_set, gguf_outputs *store, tool_error *err) {
  size_t n = plan->file_count;
  store->arrays = calloc(n + 1, sizeof *store->arrays);
  if (store->arrays == NULL) {
    return tool_oom(err, "updating metadata");
  }
  store->array_count = n;
  uint64_t total = 0;
  for (size_t f = 0; f < n; f++) {
    total += plan->files[f].tensor_count;
  }
  if (is_set && total > INT32_MAX) {
    return tool_fail(err, CLI_EXIT_DATA, "the set would hold %llu tensors, more than %s takes",
                     (unsigned long long)total, GGUF_SPLIT_TENSORS);
  }
  for (size_t f = 0; f < n; f++) {
    ckpt_out_file *file = &plan->files[f];
    size_t count = file->meta_count;
    ckpt_meta *a = calloc(count + 4, sizeof *a);
    if (a == NULL) {
      return tool_oom(err, "updating metadata");
    }
    store->arrays[f] = a;
    if (count > 0) {
      memcpy(a, file->meta, count * sizeof *a);
    }
  }
  /* A rank of a shard is a model of its own; the files of a split or merge form one model. */
  int rc = 0;
  if (plan->lockstep) {
    for (size_t f = 0; f < n && rc == 0; f++) {
      rc = experts(plan, f, 1, store->arrays, store, err);
    }
  } else if (n > 0) {
    rc = experts(plan, 0, n, store->arrays, store, err);
  }
  for (size_t f = 0; f < n && rc == 0; f++) {
    ckpt_out_file *file = &plan->files[f];
    ckpt_meta *a = store->arrays[f];
    size_t count = file->meta_count;
    /* gguf-split's order: it appends split.count again once it knows the number of files. */
    if (is_set && (scalar(store, GGUF_SPLIT_NO, GGUF_U16, f, &a[count]) != 0 ||
                   scalar(store, GGUF_SPLIT_TENSORS, GGUF_I32, total, &a[count + 1]) != 0 ||
                   scalar(store, GGUF_SPLIT_COUNT, GGUF_U16, n, &a[count + 2]) != 0)) {
      return tool_oom(err, "updating metadata");
    }
    file->meta = a;
    file->meta_count = count + (is_set ? 3 : 0);
    file->has_meta = 1;
  }
  return rc;
}

int gguf_finish_plan(const gguf_model *m, ckpt_plan *plan, const gguf_output_options *o,
                     gguf_outputs *store, tool_error *err) {
  int rc = 0;
  int is_set = o->mirror_set;
  if (o->max_shard_bytes > 0 || o->max_tensors > 0) {
    rc = regroup(plan, o, err);
    is_set = 1;
  }
  if (rc == 0) {
    rc = build_metadata(plan, is_set, store, err);
  }
  for (size_t f = 0; f < plan->file_count && rc == 0; f++) {
    rc = gguf_layout(m, &plan->files[f], err);
  }
  return rc;
}
