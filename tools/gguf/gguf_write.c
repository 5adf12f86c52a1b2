/* The GGUF writer: tensor order, aligned offsets, and the header's bytes. */
#include "gguf_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_read.h"
#include "gguf_value.h"

/* A growing byte buffer. */
typedef struct bytes {
  unsigned char *data;
  size_t len, cap;
  int failed;
} bytes;

static void put(bytes *b, const void *p, size_t n) {
  if (b->failed || n == 0) {
    return;
  }
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + n) {
      cap *= 2;
    }
    unsigned char *grown = realloc(b->data, cap);
    if (grown == NULL) {
      b->failed = 1;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

static void put_le(bytes *b, uint64_t v, unsigned n) {
  unsigned char raw[8];
  gguf_put_le(raw, v, n);
  put(b, raw, n);
}

static void put_string(bytes *b, const char *s, size_t n) {
  put_le(b, n, 8);
  put(b, s, n);
}

/* The sort keys of the tensors: their source's file and place in it, then the order added. */
typedef struct tensor_key {
  size_t file, index, added;
} tensor_key;

static int by_source(const void *a, const void *b) {
  const tensor_key *x = a, *y = b;
  if (x->file != y->file) {
    return x->file < y->file ? -1 : 1;
  }
  if (x->index != y->index) {
    return x->index < y->index ? -1 : 1;
  }
  return x->added < y->added ? -1 : x->added > y->added;
}

static int order_tensors(const gguf_model *m, ckpt_out_file *file, tool_error *err) {
  size_t n = file->tensor_count;
  tensor_key *keys = calloc(n + 1, sizeof *keys);
  ckpt_out_tensor *sorted = calloc(n + 1, sizeof *sorted);
  if (keys == NULL || sorted == NULL) {
    free(keys);
    free(sorted);
    return tool_oom(err, "laying out a GGUF file");
  }
  for (size_t j = 0; j < n; j++) {
    const ckpt_tensor *src = file->tensors[j].source;
    keys[j].file = src->file;
    keys[j].index = (size_t)(src - m->ckpt.files[src->file].tensors);
    keys[j].added = j;
  }
  qsort(keys, n, sizeof *keys, by_source);
  for (size_t j = 0; j < n; j++) {
    sorted[j] = file->tensors[keys[j].added];
  }
  if (n > 0) {
    memcpy(file->tensors, sorted, n * sizeof *sorted);
  }
  free(keys);
  free(sorted);
  return 0;
}

/* Where the model's headers had key `key`: (file, place), or (file_count, 0) when none had. */
static void key_place(const gguf_model *m, const char *key, size_t *file, size_t *pos) {
  for (size_t f = 0; f < m->ckpt.file_count; f++) {
    const ckpt_file *cf = &m->ckpt.files[f];
    size_t lo = 0, hi = cf->meta_count;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (strcmp(cf->meta[mid].key, key) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo < cf->meta_count && strcmp(cf->meta[lo].key, key) == 0) {
      *file = f;
      *pos = m->info[f].pos[lo];
      return;
    }
  }
  *file = m->ckpt.file_count;
  *pos = 0;
}

typedef struct meta_key {
  size_t file, pos, given;
} meta_key;

static int by_place(const void *a, const void *b) {
  const meta_key *x = a, *y = b;
  if (x->file != y->file) {
    return x->file < y->file ? -1 : 1;
  }
  if (x->pos != y->pos) {
    return x->pos < y->pos ? -1 : 1;
  }
  return x->given < y->given ? -1 : x->given > y->given;
}

/* The metadata, in the order of the model's headers. */
static int render_metadata(const gguf_model *m, const ckpt_out_file *file, bytes *b) {
  size_t n = file->meta_count;
  meta_key *keys = calloc(n + 1, sizeof *keys);
  if (keys == NULL) {
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    key_place(m, file->meta[i].key, &keys[i].file, &keys[i].pos);
    keys[i].given = i;
  }
  qsort(keys, n, sizeof *keys, by_place);
  for (size_t i = 0; i < n; i++) {
    const ckpt_meta *e = &file->meta[keys[i].given];
    int type = gguf_meta_type(e);
    put_string(b, e->key, strlen(e->key));
    put_le(b, (uint64_t)type, 4);
    if (type == GGUF_STRING) {
      put_string(b, e->value, e->value_size);
    } else {
      put(b, e->value, e->value_size);
    }
  }
  free(keys);
  return 0;
}

/* The file's alignment: its general.alignment (a valid one: it comes from an input), or 32. */
static uint64_t alignment_of(const ckpt_out_file *file) {
  const ckpt_meta *e = gguf_meta_lookup(file->meta, file->meta_count, "general.alignment");
  if (e != NULL && gguf_meta_type(e) == GGUF_U32) {
    uint64_t a = gguf_le((const unsigned char *)e->value, 4);
    if (a != 0 && (a & (a - 1)) == 0) {
      return a;
    }
  }
  return GGUF_DEFAULT_ALIGNMENT;
}

/* The rules of the format a tensor of the output must meet. */
static int check_tensor(const ckpt_out_file *file, const ckpt_out_tensor *t, tool_error *err) {
  size_t n = strlen(t->name);
  if (n == 0 || n > GGUF_MAX_NAME || gguf_utf8_error((const unsigned char *)t->name, n) >= 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "output '%s': tensor name '%s' is not 1 to %u bytes of UTF-8 (ggml's limit)",
                     file->name, t->name, GGUF_MAX_NAME);
  }
  if (t->ndim > GGUF_MAX_DIMS) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "output '%s': tensor '%s' would have %d dimensions, more "
                     "than the %d of GGUF",
                     file->name, t->name, t->ndim, GGUF_MAX_DIMS);
  }
  uint64_t row = t->ndim > 0 ? (uint64_t)t->shape[t->ndim - 1] : 1;
  if (row % t->dtype->block_elems != 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "output '%s': tensor '%s' would have rows of %llu %s, not whole %s "
                     "blocks (%u elements)",
                     file->name, t->name, (unsigned long long)row,
                     tool_plural(row, "element", "elements"), t->dtype->name,
                     (unsigned)t->dtype->block_elems);
  }
  return 0;
}

int gguf_layout(const gguf_model *m, ckpt_out_file *file, tool_error *err) {
  if (file->tensor_count > GGUF_MAX_TENSORS) {
    return tool_fail(err, CLI_EXIT_DATA, "output '%s' would hold %zu tensors, more than %u",
                     file->name, file->tensor_count, GGUF_MAX_TENSORS);
  }
  int rc = order_tensors(m, file, err);
  uint64_t align = alignment_of(file), at = 0;
  for (size_t i = 0; i < file->tensor_count && rc == 0; i++) {
    ckpt_out_tensor *t = &file->tensors[i];
    rc = check_tensor(file, t, err);
    t->begin = at;
    at += (t->bytes + align - 1) / align * align;
  }
  if (rc != 0) {
    return rc;
  }
  file->data_size = at;
  bytes b = {0};
  put(&b, "GGUF", 4);
  put_le(&b, m->info[0].version, 4);
  put_le(&b, file->tensor_count, 8);
  put_le(&b, file->meta_count, 8);
  if (render_metadata(m, file, &b) != 0) {
    b.failed = 1;
  }
  for (size_t i = 0; i < file->tensor_count; i++) {
    const ckpt_out_tensor *t = &file->tensors[i];
    put_string(&b, t->name, strlen(t->name));
    put_le(&b, (uint64_t)t->ndim, 4);
    for (int d = t->ndim - 1; d >= 0; d--) {
      put_le(&b, (uint64_t)t->shape[d], 8);
    }
    put_le(&b, t->dtype->code, 4);
    put_le(&b, t->begin, 8);
  }
  /* An alignment read from an input may be large: refuse a padded header over the limit before
   * allocating the padding. */
  if (!b.failed && (b.len + align - 1) / align * align > GGUF_MAX_HEADER) {
    free(b.data);
    return tool_fail(err, CLI_EXIT_DATA,
                     "output '%s': its header padded to the alignment %llu would hold more than "
                     "the %u bytes cleave reads",
                     file->name, (unsigned long long)align, GGUF_MAX_HEADER);
  }
  static const unsigned char zeros[64] = {0};
  while (!b.failed && b.len % align != 0) {
    size_t pad = (size_t)(align - b.len % align);
    put(&b, zeros, pad < sizeof zeros ? pad : sizeof zeros);
  }
  if (b.failed) {
    free(b.data);
    return tool_oom(err, "rendering a GGUF header");
  }
  free(file->prefix);
  file->prefix = b.data;
  file->prefix_size = b.len;
  return 0;
}

static int layout(void *ctx, ckpt_out_file *file, tool_error *err) {
  return gguf_layout(ctx, file, err);
}

ckpt_format gguf_format(const gguf_model *m) {
  ckpt_format f = {"gguf", "metadata", ".gguf", (void *)m, layout, NULL, NULL};
  return f;
}
