/* Reading the metadata entries of a GGUF header: keys, value types, values, duplicates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf_read.h"
#include "gguf_source.h"
#include "gguf_value.h"

/* A growing value buffer, NUL-terminated after its bytes. */
typedef struct value_buf {
  unsigned char *data;
  size_t len, cap;
} value_buf;

static int reserve(value_buf *b, uint64_t extra) {
  if (b->len + extra + 1 <= b->cap) {
    return 0;
  }
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) {
    cap *= 2;
  }
  unsigned char *p = realloc(b->data, cap);
  if (p == NULL) {
    return -1;
  }
  b->data = p;
  b->cap = cap;
  return 0;
}

/* Reads a string (u64 length, bytes) into `b` after `with_length` copies of its length field:
 * UTF-8 without NUL, at most `max` bytes (0: no limit but the header's). */
static int read_string(gguf_source *s, value_buf *b, int with_length, uint64_t max,
                       const char *field, tool_error *err) {
  uint64_t at = s->pos, n;
  char what[200];
  snprintf(what, sizeof what, "the length of %s", field);
  int rc = gguf_source_u64(s, &n, what, err);
  if (rc != 0) {
    return rc;
  }
  if (max != 0 && n > max) {
    return gguf_fail_at(err, s, at, "%s is %llu bytes long, more than %llu", field,
                        (unsigned long long)n, (unsigned long long)max);
  }
  rc = gguf_source_need(s, n, field, err);
  if (rc == 0 && reserve(b, n + 8) != 0) {
    rc = tool_oom(err, "reading GGUF metadata");
  }
  if (rc != 0) {
    return rc;
  }
  if (with_length) {
    gguf_put_le(b->data + b->len, n, 8);
    b->len += 8;
  }
  uint64_t start = s->pos;
  rc = gguf_source_read(s, b->data + b->len, n, field, err);
  if (rc != 0) {
    return rc;
  }
  int64_t bad = gguf_utf8_error(b->data + b->len, (size_t)n);
  if (bad >= 0) {
    return gguf_fail_at(err, s, start + (uint64_t)bad, "%s is not valid UTF-8 (byte 0x%02x%s)",
                        field, b->data[b->len + (size_t)bad],
                        b->data[b->len + (size_t)bad] == 0 ? ", NUL" : "");
  }
  b->len += (size_t)n;
  b->data[b->len] = '\0';
  return 0;
}

/* Reads `count` fixed-size elements of type `t` into `b` (bools must be 0 or 1). */
static int read_fixed(gguf_source *s, value_buf *b, int t, uint64_t count, const char *field,
                      tool_error *err) {
  uint64_t n = count * gguf_value_size(t); /* count <= 2^30, size <= 8: no overflow */
  int rc = gguf_source_need(s, n, field, err);
  if (rc == 0 && reserve(b, n) != 0) {
    rc = tool_oom(err, "reading GGUF metadata");
  }
  uint64_t start = s->pos;
  if (rc == 0) {
    rc = gguf_source_read(s, b->data + b->len, n, field, err);
  }
  for (uint64_t i = 0; rc == 0 && t == GGUF_BOOL && i < n; i++) {
    unsigned char v = b->data[b->len + i];
    if (v > 1) {
      rc = gguf_fail_at(err, s, start + i, "%s: a bool is %u, not 0 or 1", field, v);
    }
  }
  if (rc == 0) {
    b->len += (size_t)n;
    b->data[b->len] = '\0';
  }
  return rc;
}

/* Reads a value type (i32) and checks it: 0..12; inside an array, not an array. */
static int read_type(gguf_source *s, int in_array, const char *field, int *type, tool_error *err) {
  uint64_t at = s->pos;
  uint32_t raw;
  int rc = gguf_source_u32(s, &raw, field, err);
  if (rc != 0) {
    return rc;
  }
  int32_t t = (int32_t)raw;
  if (t < 0 || t >= GGUF_TYPE_COUNT) {
    return gguf_fail_at(err, s, at, "%s is %d, not a GGUF value type (0 to 12)", field, (int)t);
  }
  if (in_array && t == GGUF_ARRAY) {
    return gguf_fail_at(err, s, at, "%s is an array: arrays of arrays are not supported", field);
  }
  *type = t;
  return 0;
}

/* Reads the value of one entry (its type already read) into `b`. */
static int read_value(gguf_source *s, int type, const char *key, value_buf *b, tool_error *err) {
  char field[200];
  snprintf(field, sizeof field, "the value of '%.100s'", key);
  if (type == GGUF_STRING) {
    return read_string(s, b, 0, 0, field, err);
  }
  if (type != GGUF_ARRAY) {
    return read_fixed(s, b, type, 1, field, err);
  }
  int elem;
  uint64_t count, at;
  char what[240];
  snprintf(what, sizeof what, "the element type of '%.100s'", key);
  int rc = read_type(s, 1, what, &elem, err);
  snprintf(what, sizeof what, "the element count of '%.100s'", key);
  at = s->pos;
  if (rc == 0) {
    rc = gguf_source_u64(s, &count, what, err);
  }
  if (rc == 0 && count > GGUF_MAX_ARRAY) {
    rc = gguf_fail_at(err, s, at, "%s is %llu, more than the %u llama.cpp reads", what,
                      (unsigned long long)count, GGUF_MAX_ARRAY);
  }
  /* Every element takes at least a byte (a string its 8-byte length): refuse a count the file
   * cannot hold before allocating anything for it. */
  uint64_t least = elem == GGUF_STRING ? 8 : gguf_value_size(elem);
  if (rc == 0) {
    rc = gguf_source_need(s, count * least, field, err);
  }
  if (rc == 0 && reserve(b, 12) != 0) {
    rc = tool_oom(err, "reading GGUF metadata");
  }
  if (rc != 0) {
    return rc;
  }
  gguf_put_le(b->data, (uint64_t)elem, 4);
  gguf_put_le(b->data + 4, count, 8);
  b->len = 12;
  if (elem != GGUF_STRING) {
    return read_fixed(s, b, elem, count, field, err);
  }
  for (uint64_t i = 0; i < count && rc == 0; i++) {
    snprintf(what, sizeof what, "element %llu of '%.100s'", (unsigned long long)i, key);
    rc = read_string(s, b, 1, 0, what, err);
  }
  return rc;
}

/* An entry while the header is read: its place in the header and the offset of its key. */
typedef struct entry {
  ckpt_meta meta;
  size_t header_pos;
  uint64_t key_at;
} entry;

static int by_key(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int c = strcmp(x->meta.key, y->meta.key);
  return c != 0 ? c : x->header_pos < y->header_pos ? -1 : 1;
}

/* Sorts the entries by key into out->meta (refusing a key given twice) and info->order. */
static int sort_entries(gguf_source *s, entry *all, size_t n, ckpt_file *out, gguf_info *info,
                        tool_error *err) {
  if (n > 1) {
    qsort(all, n, sizeof *all, by_key);
  }
  out->meta = calloc(n + 1, sizeof *out->meta);
  info->order = calloc(n + 1, sizeof *info->order);
  info->key_at = calloc(n + 1, sizeof *info->key_at);
  info->pos = calloc(n + 1, sizeof *info->pos);
  if (out->meta == NULL || info->order == NULL || info->key_at == NULL || info->pos == NULL) {
    return tool_oom(err, "reading GGUF metadata");
  }
  for (size_t i = 0; i < n; i++) {
    out->meta[i] = all[i].meta;
    all[i].meta.key = all[i].meta.value = NULL;
    info->order[all[i].header_pos] = i;
    info->key_at[i] = all[i].key_at;
    info->pos[i] = all[i].header_pos;
    out->meta_count = i + 1;
  }
  for (size_t i = 1; i < n; i++) {
    if (strcmp(out->meta[i - 1].key, out->meta[i].key) == 0) {
      return gguf_fail_at(err, s, all[i].key_at, "the metadata key '%.200s' is given twice",
                          out->meta[i].key);
    }
  }
  return 0;
}

int gguf_read_metadata(gguf_source *s, uint64_t count, ckpt_file *out, gguf_info *info,
                       tool_error *err) {
  /* The table grows with the entries read, so that a count the file does not hold allocates
   * nothing. */
  entry *all = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (uint64_t i = 0; i < count && rc == 0; i++) {
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      entry *grown = realloc(all, cap * sizeof *all);
      if (grown == NULL) {
        rc = tool_oom(err, "reading GGUF metadata");
        break;
      }
      all = grown;
    }
    entry *e = &all[n];
    memset(e, 0, sizeof *e);
    e->header_pos = (size_t)i;
    e->key_at = s->pos;
    char field[64];
    snprintf(field, sizeof field, "the key of metadata entry %llu", (unsigned long long)i);
    value_buf key = {0}, value = {0};
    rc = read_string(s, &key, 0, GGUF_MAX_KEY, field, err);
    if (rc == 0 && key.len == 0) {
      rc = gguf_fail_at(err, s, e->key_at, "%s is empty", field);
    }
    int type = 0;
    if (rc == 0) {
      char what[200];
      snprintf(what, sizeof what, "the type of '%.100s'", (char *)key.data);
      rc = read_type(s, 0, what, &type, err);
    }
    if (rc == 0) {
      rc = read_value(s, type, (char *)key.data, &value, err);
    }
    if (rc == 0 && value.data == NULL && reserve(&value, 0) != 0) {
      rc = tool_oom(err, "reading GGUF metadata");
    }
    if (rc != 0) {
      free(key.data);
      free(value.data);
      break;
    }
    e->meta.key = (char *)key.data;
    e->meta.value = (char *)value.data;
    e->meta.value_size = value.len;
    e->meta.kind = GGUF_META_KIND(type);
    n++;
  }
  if (rc == 0) {
    rc = sort_entries(s, all, n, out, info, err);
  }
  for (size_t i = 0; i < n; i++) {
    free(all[i].meta.key);
    free(all[i].meta.value);
  }
  free(all);
  out->has_meta = 1;
  return rc;
}
