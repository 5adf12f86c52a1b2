/* Reading one GGUF file: the header's frame, the tensor infos and the data section. */
#include "gguf_read.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "gguf_types.h"
#include "gguf_value.h"
#include "io.h"
#include "io_source.h"
#include "shape_format.h"

/* ---- the source: a forward reader of one file ---------------------------------------------- */

/*
 * Reading a GGUF header from a file, hostile input: one buffered reader that moves forward
 * through the file, refuses to read past its end or past the header limit, and names the file,
 * the byte offset and the field in every error ("m.gguf: byte 24: the file ends inside the key of
 * metadata entry 0 (8 bytes needed, 3 left)").
 */
/** A forward reader of one file. Fields are private to gguf_source.c but for `pos` (the offset
 * of the next byte) and `size` (the file's size). */
typedef struct gguf_source {
  io_source *in;
  const char *path;
  uint64_t size, pos, limit;
  unsigned char *buf;
  uint64_t buf_at;
  size_t buf_len;
} gguf_source;

/** Starts reading `in` (`size` bytes, named `path` in messages; both borrowed) at offset 0.
 * Returns 0 or CLI_EXIT_SOFTWARE (out of memory). Call gguf_source_close in either case. */
static int gguf_source_open(gguf_source *s, io_source *in, const char *path, uint64_t size,
                            tool_error *err);

/** Releases the buffer. */
static void gguf_source_close(gguf_source *s);

/**
 * Checks that `n` more bytes can be read for `field`: within the file (else CLI_EXIT_DATA, "the
 * file ends inside FIELD") and within the header limit (else CLI_EXIT_DATA). Returns 0 or the
 * status with the message in `err`. Call it before allocating for a size read from the file.
 */
static int gguf_source_need(const gguf_source *s, uint64_t n, const char *field, tool_error *err);

/** Reads the next `n` bytes into `dst` (after gguf_source_need's checks). Returns 0 or an exit
 * status (CLI_EXIT_DATA, CLI_EXIT_IOERR) with the message in `err`. */
static int gguf_source_read(gguf_source *s, void *dst, uint64_t n, const char *field,
                            tool_error *err);

/** Reads a little-endian u32 / u64. */
static int gguf_source_u32(gguf_source *s, uint32_t *v, const char *field, tool_error *err);
static int gguf_source_u64(gguf_source *s, uint64_t *v, const char *field, tool_error *err);

/** Records CLI_EXIT_DATA with "PATH: byte AT: " and the formatted message. */
static int gguf_fail_at(tool_error *err, const gguf_source *s, uint64_t at, const char *format, ...)
    TOOL_PRINTF(4, 5);

/* Headers are read in pieces of this size (most headers fit in one). */
#define SOURCE_BUF (256u << 10)

static int gguf_source_open(gguf_source *s, io_source *in, const char *path, uint64_t size,
                            tool_error *err) {
  memset(s, 0, sizeof *s);
  s->in = in;
  s->path = path;
  s->size = size;
  s->limit = GGUF_MAX_HEADER;
  s->buf = malloc(SOURCE_BUF);
  return s->buf == NULL ? tool_oom(err, "reading a GGUF header") : 0;
}

static void gguf_source_close(gguf_source *s) {
  free(s->buf);
  s->buf = NULL;
}

static int gguf_fail_at(tool_error *err, const gguf_source *s, uint64_t at, const char *format,
                        ...) {
  char text[TOOL_MESSAGE_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return tool_fail(err, CLI_EXIT_DATA, "%s: byte %llu: %s", s->path, (unsigned long long)at, text);
}

static int gguf_source_need(const gguf_source *s, uint64_t n, const char *field, tool_error *err) {
  uint64_t left = s->size - s->pos;
  if (n > left) {
    return gguf_fail_at(err, s, s->pos, "the file ends inside %s (%llu %s needed, %llu left)",
                        field, (unsigned long long)n, tool_plural(n, "byte", "bytes"),
                        (unsigned long long)left);
  }
  if (n > s->limit - s->pos) {
    return gguf_fail_at(err, s, s->pos,
                        "%s (%llu bytes) reaches past byte %llu: cleave reads GGUF headers of at "
                        "most %u bytes",
                        field, (unsigned long long)n, (unsigned long long)s->limit,
                        GGUF_MAX_HEADER);
  }
  return 0;
}

static int gguf_source_read(gguf_source *s, void *dst, uint64_t n, const char *field,
                            tool_error *err) {
  int rc = gguf_source_need(s, n, field, err);
  unsigned char *out = dst;
  while (rc == 0 && n > 0) {
    if (s->pos < s->buf_at || s->pos >= s->buf_at + s->buf_len) {
      uint64_t left = s->size - s->pos;
      size_t want = left < SOURCE_BUF ? (size_t)left : SOURCE_BUF;
      size_t got = 0;
      rc = io_source_read_upto(s->in, s->buf, want, s->pos, &got, err);
      if (rc == 0 && got < want) {
        /* The file shrank since its size was taken. */
        rc = gguf_fail_at(err, s, s->pos + got, "the file ends inside %s (it got shorter)", field);
      }
      s->buf_at = s->pos;
      s->buf_len = rc == 0 ? got : 0;
      if (rc != 0) {
        break;
      }
    }
    size_t at = (size_t)(s->pos - s->buf_at);
    size_t take = s->buf_len - at < n ? s->buf_len - at : (size_t)n;
    if (out != NULL) {
      memcpy(out, s->buf + at, take);
      out += take;
    }
    s->pos += take;
    n -= take;
  }
  return rc;
}

static int gguf_source_u32(gguf_source *s, uint32_t *v, const char *field, tool_error *err) {
  unsigned char b[4];
  int rc = gguf_source_read(s, b, 4, field, err);
  *v = rc == 0 ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
               : 0;
  return rc;
}

static int gguf_source_u64(gguf_source *s, uint64_t *v, const char *field, tool_error *err) {
  unsigned char b[8];
  int rc = gguf_source_read(s, b, 8, field, err);
  *v = 0;
  for (int i = 7; rc == 0 && i >= 0; i--) {
    *v = *v << 8 | b[i];
  }
  return rc;
}

int64_t gguf_utf8_error(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    if (c == 0) {
      return (int64_t)i;
    }
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len = c >= 0xc2 && c <= 0xdf   ? 2
                 : c >= 0xe0 && c <= 0xef ? 3
                 : c >= 0xf0 && c <= 0xf4 ? 4
                                          : 0;
    if (len == 0 || n - i < len) {
      return (int64_t)i;
    }
    unsigned c1 = s[i + 1];
    /* The second byte's range excludes overlong forms, surrogates and code points > U+10FFFF. */
    unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (c1 < lo || c1 > hi) {
      return (int64_t)i;
    }
    for (size_t k = 2; k < len; k++) {
      if ((s[i + k] & 0xc0) != 0x80) {
        return (int64_t)i;
      }
    }
    i += len;
  }
  return -1;
}

/* ---- the metadata -------------------------------------------------------------------------- */

/* Reading the metadata entries of a GGUF header: keys, value types, values, duplicates. */
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

static int gguf_read_metadata(gguf_source *s, uint64_t count, ckpt_file *out, gguf_info *info,
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

/* ---- the header ---------------------------------------------------------------------------- */

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

static int read_source(io_source *in, ckpt_file *out, gguf_info *info, tool_error *err);

int gguf_read_fd(int fd, const char *path, uint64_t size, ckpt_file *out, gguf_info *info,
                 tool_error *err) {
  io_source in = {fd, NULL, path, size};
  return read_source(&in, out, info, err);
}

static int read_source(io_source *in, ckpt_file *out, gguf_info *info, tool_error *err) {
  memset(out, 0, sizeof *out);
  memset(info, 0, sizeof *info);
  out->size = in->size;
  gguf_source s;
  int rc = gguf_source_open(&s, in, in->path, in->size, err);
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
  io_source in;
  int rc = io_source_open(&in, path, NULL, err);
  if (rc != 0) {
    return rc;
  }
  rc = read_source(&in, out, info, err);
  io_source_close(&in);
  const char *slash = strrchr(path, '/');
  out->path = strdup(path);
  out->name = strdup(slash != NULL ? slash + 1 : path);
  if (rc == 0 && (out->path == NULL || out->name == NULL)) {
    rc = tool_oom(err, "reading a GGUF file");
  }
  return rc;
}
