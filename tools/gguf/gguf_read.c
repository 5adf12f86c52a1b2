/* Reading one GGUF file: the header's frame, the tensor infos and the data section. */
#include "gguf_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguf_source.h"
#include "gguf_types.h"
#include "gguf_value.h"
#include "io.h"
#include "shape_format.h"

/* The least bytes a metadata entry (a 1-byte key, its type, a 1-byte value) and a tensor info
 * (a 1-byte name, n_dims 0, type, offset) take: counts the file cannot hold are refused first. */
#define LEAST_ENTRY 14u
#define LEAST_INFO 25u

void gguf_info_free(gguf_info *info) {
  free(info->order);
  free(info->key_at);
  free(info->pos);
  memset(info, 0, sizeof *info);
}

/* The magic and the version (2 or 3, as llama.cpp reads them). */
static int read_frame(gguf_source *s, uint32_t *version, tool_error *err) {
  unsigned char magic[4];
  int rc = gguf_source_read(s, magic, 4, "the magic", err);
  if (rc != 0) {
    return rc;
  }
  if (memcmp(magic, "GGUF", 4) != 0) {
    char shown[5];
    for (int i = 0; i < 4; i++) {
      shown[i] = magic[i] >= 0x20 && magic[i] < 0x7f ? (char)magic[i] : '?';
    }
    shown[4] = '\0';
    return gguf_fail_at(err, s, 0,
                        "the magic is '%s' (%02x %02x %02x %02x), not 'GGUF': not a GGUF file",
                        shown, magic[0], magic[1], magic[2], magic[3]);
  }
  rc = gguf_source_u32(s, version, "the version", err);
  if (rc != 0) {
    return rc;
  }
  uint32_t v = *version;
  if (v != 0 && (v & 0xffffu) == 0) {
    return gguf_fail_at(err, s, 4,
                        "the version reads as %u: a big-endian file (cleave reads little-endian "
                        "GGUF, as llama.cpp does)",
                        (unsigned)v);
  }
  if (v != 2 && v != 3) {
    return gguf_fail_at(err, s, 4, "version %u is not supported (GGUF versions 2 and 3)%s",
                        (unsigned)v, v == 1 ? "; version 1 is no longer read by llama.cpp" : "");
  }
  return 0;
}

/* A count of the header (tensor_count, metadata_kv_count): at most `max`, and no more than the
 * rest of the file can hold at `least` bytes each. */
static int read_count(gguf_source *s, const char *field, uint64_t max, uint64_t least,
                      uint64_t *count, tool_error *err) {
  uint64_t at = s->pos;
  int rc = gguf_source_u64(s, count, field, err);
  if (rc != 0) {
    return rc;
  }
  if (*count > INT64_MAX) {
    return gguf_fail_at(err, s, at, "%s is %llu, negative as the int64 llama.cpp reads", field,
                        (unsigned long long)*count);
  }
  if (*count > max) {
    return gguf_fail_at(err, s, at, "%s is %llu, more than the %llu cleave reads", field,
                        (unsigned long long)*count, (unsigned long long)max);
  }
  if (*count > (s->size - s->pos) / least) {
    return gguf_fail_at(err, s, at,
                        "%s is %llu, more than the %llu %s after the counts can hold (%llu "
                        "%s each at least)",
                        field, (unsigned long long)*count, (unsigned long long)(s->size - s->pos),
                        tool_plural(s->size - s->pos, "byte", "bytes"), (unsigned long long)least,
                        tool_plural(least, "byte", "bytes"));
  }
  return 0;
}

/* general.alignment, when present: a u32 that is a power of 2. */
static int find_alignment(gguf_source *s, const ckpt_file *f, const gguf_info *info,
                          uint64_t *alignment, tool_error *err) {
  *alignment = GGUF_DEFAULT_ALIGNMENT;
  for (size_t i = 0; i < f->meta_count; i++) {
    const ckpt_meta *m = &f->meta[i];
    if (strcmp(m->key, "general.alignment") != 0) {
      continue;
    }
    if (gguf_meta_type(m) != GGUF_U32) {
      return gguf_fail_at(err, s, info->key_at[i], "general.alignment is of type %s, not u32",
                          gguf_value_type_name(gguf_meta_type(m)));
    }
    uint64_t a = gguf_le((const unsigned char *)m->value, 4);
    if (a == 0 || (a & (a - 1)) != 0) {
      return gguf_fail_at(err, s, info->key_at[i], "general.alignment is %llu, not a power of 2",
                          (unsigned long long)a);
    }
    *alignment = a;
  }
  return 0;
}

/* Grows the tensor table to hold one more (the table grows with the infos read). */
static int room_for_tensor(ckpt_file *f, size_t *cap, tool_error *err) {
  if (f->tensor_count < *cap) {
    return 0;
  }
  size_t grown = *cap ? *cap * 2 : 64;
  ckpt_tensor *p = realloc(f->tensors, grown * sizeof *p);
  if (p == NULL) {
    return tool_oom(err, "reading GGUF tensor infos");
  }
  f->tensors = p;
  *cap = grown;
  return 0;
}

/* The name of tensor info `index`: 1 to 63 bytes of UTF-8 without NUL. */
static int read_name(gguf_source *s, uint64_t index, char **name, tool_error *err) {
  char field[80];
  snprintf(field, sizeof field, "the name of tensor %llu", (unsigned long long)index);
  uint64_t at = s->pos, n;
  int rc = gguf_source_u64(s, &n, field, err);
  if (rc == 0 && (n == 0 || n > GGUF_MAX_NAME)) {
    rc = gguf_fail_at(err, s, at, "%s is %llu bytes long, not 1 to %u (ggml's limit)", field,
                      (unsigned long long)n, GGUF_MAX_NAME);
  }
  char text[GGUF_MAX_NAME + 1];
  if (rc == 0) {
    rc = gguf_source_read(s, text, n, field, err);
  }
  if (rc != 0) {
    return rc;
  }
  text[n] = '\0';
  int64_t bad = gguf_utf8_error((const unsigned char *)text, (size_t)n);
  if (bad >= 0) {
    return gguf_fail_at(err, s, at + 8 + (uint64_t)bad, "%s is not valid UTF-8 (byte 0x%02x)",
                        field, (unsigned char)text[bad]);
  }
  *name = strdup(text);
  return *name == NULL ? tool_oom(err, "reading GGUF tensor infos") : 0;
}

/* The dimensions and type of tensor `t` (named already): shape in NumPy order, dtype, bytes. */
static int read_shape_type(gguf_source *s, ckpt_tensor *t, tool_error *err) {
  char field[120];
  snprintf(field, sizeof field, "n_dims of tensor '%s'", t->name);
  uint64_t at = s->pos;
  uint32_t n_dims;
  int rc = gguf_source_u32(s, &n_dims, field, err);
  if (rc == 0 && n_dims > GGUF_MAX_DIMS) {
    rc = gguf_fail_at(err, s, at, "tensor '%s': n_dims is %u, more than %d", t->name,
                      (unsigned)n_dims, GGUF_MAX_DIMS);
  }
  int64_t ne[GGUF_MAX_DIMS];
  uint64_t elements = 1;
  int overflow = 0;
  for (uint32_t d = 0; d < n_dims && rc == 0; d++) {
    snprintf(field, sizeof field, "ne[%u] of tensor '%s'", (unsigned)d, t->name);
    at = s->pos;
    uint64_t v;
    rc = gguf_source_u64(s, &v, field, err);
    if (rc == 0 && v > INT64_MAX) {
      rc = gguf_fail_at(err, s, at, "tensor '%s': ne[%u] is %lld, negative", t->name, (unsigned)d,
                        (long long)(int64_t)v);
    }
    ne[d] = (int64_t)v;
    overflow |= __builtin_mul_overflow(elements, v, &elements);
  }
  if (rc != 0) {
    return rc;
  }
  t->ndim = (int)n_dims;
  t->shape = malloc((n_dims > 0 ? n_dims : 1) * sizeof *t->shape);
  if (t->shape == NULL) {
    return tool_oom(err, "reading GGUF tensor infos");
  }
  for (uint32_t d = 0; d < n_dims; d++) {
    t->shape[d] = ne[n_dims - 1 - d];
  }
  char shape[SHAPE_TEXT_MAX];
  shape_format(t->shape, n_dims, shape, sizeof shape);
  if (overflow || elements >= INT64_MAX) {
    return gguf_fail_at(err, s, t->entry_pos, "tensor '%s': the element count of %s overflows",
                        t->name, shape);
  }
  snprintf(field, sizeof field, "the type of tensor '%s'", t->name);
  at = s->pos;
  uint32_t raw;
  rc = gguf_source_u32(s, &raw, field, err);
  if (rc != 0) {
    return rc;
  }
  int64_t code = (int32_t)raw;
  t->dtype = gguf_type_find(code);
  if (t->dtype == NULL) {
    const char *gone = gguf_type_removed(code);
    return gone != NULL
               ? gguf_fail_at(err, s, at,
                              "tensor '%s': type %lld (%s) is no longer supported by ggml", t->name,
                              (long long)code, gone)
               : gguf_fail_at(err, s, at, "tensor '%s': type %lld is not a ggml type (0 to %lld)",
                              t->name, (long long)code, (long long)gguf_type_max());
  }
  uint64_t row = n_dims > 0 ? (uint64_t)ne[0] : 1;
  if (row % t->dtype->block_elems != 0) {
    return gguf_fail_at(err, s, t->entry_pos,
                        "tensor '%s' (%s %s): a row (ne[0]) of %llu %s is not a whole number "
                        "of %s blocks (%u elements)",
                        t->name, t->dtype->name, shape, (unsigned long long)row,
                        tool_plural(row, "element", "elements"), t->dtype->name,
                        (unsigned)t->dtype->block_elems);
  }
  uint64_t count;
  if (ckpt_dtype_size(t->dtype, t->shape, t->ndim, &count, &t->bytes) != CKPT_SIZE_OK) {
    return gguf_fail_at(err, s, t->entry_pos, "tensor '%s' (%s %s): its size in bytes overflows",
                        t->name, t->dtype->name, shape);
  }
  return 0;
}

static int by_name(const void *a, const void *b) {
  const ckpt_tensor *const *x = a, *const *y = b;
  int c = strcmp((*x)->name, (*y)->name);
  return c != 0 ? c : (*x)->entry_pos < (*y)->entry_pos ? -1 : 1;
}

/* No two tensors of the file share a name. */
static int unique_names(gguf_source *s, const ckpt_file *f, tool_error *err) {
  const ckpt_tensor **sorted = calloc(f->tensor_count + 1, sizeof *sorted);
  if (sorted == NULL) {
    return tool_oom(err, "reading GGUF tensor infos");
  }
  for (size_t i = 0; i < f->tensor_count; i++) {
    sorted[i] = &f->tensors[i];
  }
  qsort(sorted, f->tensor_count, sizeof *sorted, by_name);
  int rc = 0;
  for (size_t i = 1; i < f->tensor_count && rc == 0; i++) {
    if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0) {
      rc =
          gguf_fail_at(err, s, sorted[i]->entry_pos, "tensor '%s' is given twice", sorted[i]->name);
    }
  }
  free(sorted);
  return rc;
}

/* The tensor infos: each tensor's name, shape, type and data offset (relative for now). */
static int read_infos(gguf_source *s, uint64_t count, ckpt_file *f, tool_error *err) {
  size_t cap = 0;
  int rc = 0;
  for (uint64_t i = 0; i < count && rc == 0; i++) {
    rc = room_for_tensor(f, &cap, err);
    if (rc != 0) {
      break;
    }
    ckpt_tensor *t = &f->tensors[f->tensor_count];
    memset(t, 0, sizeof *t);
    t->entry_pos = s->pos;
    rc = read_name(s, i, &t->name, err);
    if (rc != 0) {
      break;
    }
    f->tensor_count++;
    rc = read_shape_type(s, t, err);
    if (rc == 0) {
      char field[120];
      snprintf(field, sizeof field, "the offset of tensor '%s'", t->name);
      rc = gguf_source_u64(s, &t->offset, field, err);
    }
  }
  return rc == 0 ? unique_names(s, f, err) : rc;
}

/* The data section: after the header padded to the alignment, tiled by the tensors in the order
 * of their infos, each padded to the alignment (the last one's padding may be missing), nothing
 * after it. */
static int check_data(gguf_source *s, ckpt_file *f, uint64_t alignment, tool_error *err) {
  uint64_t header_end = s->pos;
  uint64_t start =
      f->tensor_count > 0 ? (header_end + alignment - 1) / alignment * alignment : header_end;
  if (start > s->size) {
    return gguf_fail_at(err, s, header_end,
                        "the data section would start at byte %llu (the header padded to the "
                        "alignment %llu), past the end of the file (%llu %s)",
                        (unsigned long long)start, (unsigned long long)alignment,
                        (unsigned long long)s->size, tool_plural(s->size, "byte", "bytes"));
  }
  uint64_t next = 0;
  for (size_t i = 0; i < f->tensor_count; i++) {
    ckpt_tensor *t = &f->tensors[i];
    if (t->offset % alignment != 0) {
      return gguf_fail_at(err, s, t->entry_pos,
                          "tensor '%s': data offset %llu is not a multiple of the alignment %llu",
                          t->name, (unsigned long long)t->offset, (unsigned long long)alignment);
    }
    if (t->offset != next) {
      return gguf_fail_at(err, s, t->entry_pos,
                          "tensor '%s': data offset %llu, expected %llu (where the data of the "
                          "tensor before it ends, padded to %llu): %s",
                          t->name, (unsigned long long)t->offset, (unsigned long long)next,
                          (unsigned long long)alignment,
                          t->offset > next ? "a hole" : "an overlap");
    }
    uint64_t room = s->size - start;
    if (t->offset > room || t->bytes > room - t->offset) {
      return gguf_fail_at(err, s, t->entry_pos,
                          "tensor '%s': its %llu %s at data offset %llu end past the end of "
                          "the file (%llu %s): the file is truncated",
                          t->name, (unsigned long long)t->bytes,
                          tool_plural(t->bytes, "byte", "bytes"), (unsigned long long)t->offset,
                          (unsigned long long)s->size, tool_plural(s->size, "byte", "bytes"));
    }
    t->offset += start;
    uint64_t padded = (t->bytes + alignment - 1) / alignment * alignment;
    next += padded;
  }
  uint64_t end =
      f->tensor_count > 0 ? start + next : (header_end + alignment - 1) / alignment * alignment;
  if (s->size > end) {
    return gguf_fail_at(err, s, end, "%llu trailing bytes after the data section",
                        (unsigned long long)(s->size - end));
  }
  f->data_start = start;
  return 0;
}

int gguf_read_fd(int fd, const char *path, uint64_t size, ckpt_file *out, gguf_info *info,
                 tool_error *err) {
  memset(out, 0, sizeof *out);
  memset(info, 0, sizeof *info);
  out->size = size;
  gguf_source s;
  int rc = gguf_source_open(&s, fd, path, size, err);
  uint64_t tensors = 0, kvs = 0;
  if (rc == 0) {
    rc = read_frame(&s, &info->version, err);
  }
  if (rc == 0) {
    rc = read_count(&s, "tensor_count", GGUF_MAX_TENSORS, LEAST_INFO, &tensors, err);
  }
  if (rc == 0) {
    rc = read_count(&s, "metadata_kv_count", GGUF_MAX_KV, LEAST_ENTRY, &kvs, err);
  }
  if (rc == 0) {
    rc = gguf_read_metadata(&s, kvs, out, info, err);
  }
  if (rc == 0) {
    rc = find_alignment(&s, out, info, &info->alignment, err);
  }
  if (rc == 0) {
    rc = read_infos(&s, tensors, out, err);
  }
  if (rc == 0) {
    rc = check_data(&s, out, info->alignment, err);
  }
  gguf_source_close(&s);
  return rc;
}

int gguf_read_file(const char *path, ckpt_file *out, gguf_info *info, tool_error *err) {
  memset(out, 0, sizeof *out);
  memset(info, 0, sizeof *info);
  int fd;
  uint64_t size;
  int rc = io_open_regular(path, NULL, &fd, &size, err);
  if (rc != 0) {
    return rc;
  }
  rc = gguf_read_fd(fd, path, size, out, info, err);
  close(fd);
  const char *slash = strrchr(path, '/');
  out->path = strdup(path);
  out->name = strdup(slash != NULL ? slash + 1 : path);
  if (rc == 0 && (out->path == NULL || out->name == NULL)) {
    rc = tool_oom(err, "reading a GGUF file");
  }
  return rc;
}
