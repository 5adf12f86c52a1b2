/* The strict safetensors header reader. JSON parsing: jansson (Debian libjansson-dev), with
 * duplicate keys rejected; this file adds the format's rules on top. */
#include "st_header.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"

int st_fail(st_error *err, int status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(err->message, sizeof err->message, format, args);
  va_end(args);
  err->status = status;
  return status;
}

void st_file_free(st_file *f) {
  for (size_t i = 0; i < f->count; i++) {
    free(f->tensors[i].name);
    free(f->tensors[i].shape);
  }
  for (size_t i = 0; i < f->meta_count; i++) {
    free(f->meta[i].key);
    free(f->meta[i].value);
  }
  free(f->tensors);
  free(f->meta);
  free(f->path);
  memset(f, 0, sizeof *f);
}

uint64_t st_tensor_bytes(const st_tensor *t) {
  return t->end - t->begin;
}

void st_shape_text(const int64_t *shape, int ndim, char *buf, size_t size) {
  size_t pos = 0;
  if (size == 0) {
    return;
  }
  buf[0] = '\0';
  pos += (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < ndim && pos < size; i++) {
    pos += (size_t)snprintf(buf + pos, size - pos, "%s%lld", i ? "," : "", (long long)shape[i]);
  }
  if (pos < size) {
    snprintf(buf + pos, size - pos, "]");
  }
}

/* The header's top-level keys in order, with their positions: jansson keeps an object's keys in
 * insertion order but does not say where they were, and the messages must. The text is valid
 * JSON (jansson accepted it), so this scanner only has to skip values; it stays bounds-checked. */
static size_t skip_string(const char *t, size_t n, size_t i) {
  /* t[i] == '"' */
  for (i++; i < n && t[i] != '"'; i++) {
    if (t[i] == '\\') {
      i++;
    }
  }
  return i < n ? i + 1 : n;
}

static size_t skip_ws(const char *t, size_t n, size_t i) {
  while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) {
    i++;
  }
  return i;
}

static size_t skip_value(const char *t, size_t n, size_t i) {
  int depth = 0;
  while (i < n) {
    char c = t[i];
    if (c == '"') {
      i = skip_string(t, n, i);
      if (depth == 0) {
        return i;
      }
      continue;
    }
    if (c == '{' || c == '[') {
      depth++;
    } else if (c == '}' || c == ']') {
      if (depth == 0) {
        return i;
      }
      depth--;
      if (depth == 0) {
        return i + 1;
      }
    } else if (depth == 0 && c == ',') {
      return i;
    }
    i++;
  }
  return n;
}

/* Stores the header offset of each top-level key in pos[0..count). */
static void key_positions(const char *t, size_t n, uint64_t *pos, size_t count) {
  size_t i = skip_ws(t, n, 0) + 1; /* past '{' */
  for (size_t k = 0; k < count; k++) {
    i = skip_ws(t, n, i);
    if (i < n && t[i] == ',') {
      i = skip_ws(t, n, i + 1);
    }
    pos[k] = i;
    i = skip_string(t, n, i < n ? i : n - 1);
    i = skip_ws(t, n, i);
    i = skip_ws(t, n, i + 1); /* past ':' */
    i = skip_value(t, n, i);
  }
}

/* A JSON integer from 0 to 2^63-1 (jansson refuses larger ones while parsing). */
static int plain_integer(const json_t *v, int64_t *out) {
  if (!json_is_integer(v) || json_integer_value(v) < 0) {
    return 0;
  }
  *out = (int64_t)json_integer_value(v);
  return 1;
}

typedef struct parse_ctx {
  const char *path;
  st_error *err;
  uint64_t pos; /* file offset of the current key */
  const char *name;
} parse_ctx;

static int tensor_fail(parse_ctx *c, const char *format, ...) __attribute__((format(printf, 2, 3)));
static int tensor_fail(parse_ctx *c, const char *format, ...) {
  char what[600];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  return st_fail(c->err, CLI_EXIT_DATA, "%s: byte %llu: tensor '%.200s': %s", c->path,
                 (unsigned long long)c->pos, c->name, what);
}

static int parse_tensor(parse_ctx *c, json_t *entry, st_tensor *t) {
  if (!json_is_object(entry)) {
    return tensor_fail(c, "the entry is not an object");
  }
  const char *key;
  json_t *value;
  json_object_foreach(entry, key, value) {
    if (strcmp(key, "dtype") != 0 && strcmp(key, "shape") != 0 &&
        strcmp(key, "data_offsets") != 0) {
      return tensor_fail(c, "unknown field '%.100s' (allowed: dtype, shape, data_offsets)", key);
    }
  }
  json_t *dtype = json_object_get(entry, "dtype");
  json_t *shape = json_object_get(entry, "shape");
  json_t *offsets = json_object_get(entry, "data_offsets");
  if (dtype == NULL || shape == NULL || offsets == NULL) {
    return tensor_fail(c, "the field '%s' is missing",
                       dtype == NULL   ? "dtype"
                       : shape == NULL ? "shape"
                                       : "data_offsets");
  }
  if (!json_is_string(dtype)) {
    return tensor_fail(c, "dtype is not a string");
  }
  t->dtype = st_dtype_find(json_string_value(dtype));
  if (t->dtype == NULL) {
    return tensor_fail(c, "unknown dtype '%.40s'", json_string_value(dtype));
  }
  if (!json_is_array(shape)) {
    return tensor_fail(c, "shape is not an array");
  }
  size_t rank = json_array_size(shape);
  if (rank > ST_MAX_RANK) {
    return tensor_fail(c, "the shape has %zu dimensions (at most %d)", rank, ST_MAX_RANK);
  }
  t->ndim = (int)rank;
  if (rank > 0) {
    t->shape = malloc(rank * sizeof *t->shape);
    if (t->shape == NULL) {
      return st_fail(c->err, CLI_EXIT_SOFTWARE, "out of memory reading '%s'", c->path);
    }
  }
  uint64_t elements = 1;
  int overflow = 0;
  for (size_t d = 0; d < rank; d++) {
    if (!plain_integer(json_array_get(shape, d), &t->shape[d])) {
      return tensor_fail(c, "shape[%zu] is not an integer from 0 to 2^63-1", d);
    }
    overflow |= __builtin_mul_overflow(elements, (uint64_t)t->shape[d], &elements);
  }
  uint64_t bits = 0;
  overflow |= __builtin_mul_overflow(elements, (uint64_t)t->dtype->bits, &bits);
  if (overflow || bits / 8 > INT64_MAX) {
    return tensor_fail(c, "the size of the shape overflows");
  }
  if (bits % 8 != 0) {
    return tensor_fail(c, "%llu elements of %s (%u bits) do not fill whole bytes",
                       (unsigned long long)elements, t->dtype->name, t->dtype->bits);
  }
  if (!json_is_array(offsets) || json_array_size(offsets) != 2) {
    return tensor_fail(c, "data_offsets is not an array of two integers");
  }
  int64_t b, e;
  if (!plain_integer(json_array_get(offsets, 0), &b) ||
      !plain_integer(json_array_get(offsets, 1), &e)) {
    return tensor_fail(c, "data_offsets holds a value that is not an integer from 0 to 2^63-1");
  }
  if (e < b) {
    return tensor_fail(c, "data_offsets [%lld,%lld] ends before it begins", (long long)b,
                       (long long)e);
  }
  t->begin = (uint64_t)b;
  t->end = (uint64_t)e;
  if (t->end - t->begin != bits / 8) {
    char text[64];
    st_shape_text(t->shape, t->ndim, text, sizeof text);
    return tensor_fail(c, "data_offsets [%lld,%lld] hold %llu bytes, but %s %s needs %llu",
                       (long long)b, (long long)e, (unsigned long long)(t->end - t->begin),
                       t->dtype->name, text, (unsigned long long)(bits / 8));
  }
  return 0;
}

static int meta_cmp(const void *a, const void *b) {
  return strcmp(((const st_meta *)a)->key, ((const st_meta *)b)->key);
}

static int parse_metadata(parse_ctx *c, json_t *meta, st_file *out) {
  if (!json_is_object(meta)) {
    return st_fail(c->err, CLI_EXIT_DATA, "%s: byte %llu: __metadata__ is not an object", c->path,
                   (unsigned long long)c->pos);
  }
  out->has_meta = 1;
  size_t n = json_object_size(meta);
  out->meta = calloc(n == 0 ? 1 : n, sizeof *out->meta);
  if (out->meta == NULL) {
    return st_fail(c->err, CLI_EXIT_SOFTWARE, "out of memory reading '%s'", c->path);
  }
  const char *key;
  json_t *value;
  json_object_foreach(meta, key, value) {
    if (!json_is_string(value)) {
      return st_fail(c->err, CLI_EXIT_DATA,
                     "%s: byte %llu: __metadata__ '%.200s' is not a string (metadata maps "
                     "strings to strings)",
                     c->path, (unsigned long long)c->pos, key);
    }
    st_meta *m = &out->meta[out->meta_count];
    m->key = strdup(key);
    m->value = strdup(json_string_value(value));
    out->meta_count++;
    if (m->key == NULL || m->value == NULL) {
      return st_fail(c->err, CLI_EXIT_SOFTWARE, "out of memory reading '%s'", c->path);
    }
  }
  qsort(out->meta, out->meta_count, sizeof *out->meta, meta_cmp);
  return 0;
}

static int by_offset(const void *a, const void *b) {
  const st_tensor *x = a, *y = b;
  if (x->begin != y->begin) {
    return x->begin < y->begin ? -1 : 1;
  }
  if (x->end != y->end) {
    return x->end < y->end ? -1 : 1;
  }
  return x->key_pos < y->key_pos ? -1 : x->key_pos > y->key_pos;
}

/* Data offsets must tile [0, data_size) exactly: sorted by begin, each starts where the previous
 * ended and the last ends at data_size. */
static int check_tiling(const char *path, st_file *f, uint64_t data_size, st_error *err) {
  qsort(f->tensors, f->count, sizeof *f->tensors, by_offset);
  uint64_t at = 0;
  for (size_t i = 0; i < f->count; i++) {
    const st_tensor *t = &f->tensors[i];
    if (t->begin != at) {
      const char *what = t->begin > at ? "leaves a hole" : "overlaps the previous tensor";
      return st_fail(err, CLI_EXIT_DATA,
                     "%s: byte %llu: tensor '%.200s': data_offsets [%llu,%llu] %s (data "
                     "offset %llu expected%s%.200s%s)",
                     path, (unsigned long long)t->key_pos, t->name, (unsigned long long)t->begin,
                     (unsigned long long)t->end, what, (unsigned long long)at,
                     i > 0 ? ", after tensor '" : "", i > 0 ? f->tensors[i - 1].name : "",
                     i > 0 ? "'" : "");
    }
    at = t->end;
  }
  if (at != data_size) {
    return st_fail(err, CLI_EXIT_DATA,
                   "%s: byte %llu: the tensors' data ends at data offset %llu but the data "
                   "section holds %llu bytes (%s)",
                   path, (unsigned long long)(8 + f->header_size + at), (unsigned long long)at,
                   (unsigned long long)data_size,
                   at < data_size ? "trailing bytes" : "the file is truncated");
  }
  return 0;
}

int st_header_parse(const char *path, const char *text, size_t size, uint64_t data_size,
                    st_file *out, st_error *err) {
  memset(out, 0, sizeof *out);
  out->header_size = size;
  if (size == 0 || text[0] != '{') {
    return st_fail(err, CLI_EXIT_DATA,
                   "%s: byte 8: the header does not start with '{' (is this a safetensors "
                   "file?)",
                   path);
  }
  size_t json_size = size;
  while (json_size > 0 && text[json_size - 1] == ' ') {
    json_size--;
  }
  if (text[json_size - 1] != '}') {
    return st_fail(err, CLI_EXIT_DATA,
                   "%s: byte %llu: the header's JSON must end with '}' followed only by space "
                   "padding",
                   path, (unsigned long long)(8 + json_size - 1));
  }
  json_error_t jerr;
  json_t *root = json_loadb(text, json_size, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL) {
    return st_fail(err, CLI_EXIT_DATA, "%s: byte %llu: invalid header JSON: %s", path,
                   (unsigned long long)(8 + (uint64_t)jerr.position), jerr.text);
  }
  int rc = 0;
  if (!json_is_object(root)) {
    rc = st_fail(err, CLI_EXIT_DATA, "%s: byte 8: the header is not a JSON object", path);
  }
  size_t keys = rc == 0 ? json_object_size(root) : 0;
  uint64_t *pos = calloc(keys + 1, sizeof *pos);
  out->tensors = calloc(keys + 1, sizeof *out->tensors);
  if (rc == 0 && (pos == NULL || out->tensors == NULL)) {
    rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading the header of '%s'", path);
  }
  if (rc == 0) {
    key_positions(text, json_size, pos, keys);
    parse_ctx c = {path, err, 0, ""};
    size_t k = 0;
    const char *key;
    json_t *value;
    void *iter = json_object_iter(root);
    for (; iter != NULL && rc == 0; iter = json_object_iter_next(root, iter), k++) {
      key = json_object_iter_key(iter);
      value = json_object_iter_value(iter);
      c.pos = 8 + pos[k];
      c.name = key;
      if (strcmp(key, "__metadata__") == 0) {
        rc = parse_metadata(&c, value, out);
        continue;
      }
      st_tensor *t = &out->tensors[out->count++];
      t->key_pos = c.pos;
      t->name = strdup(key);
      if (t->name == NULL) {
        rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading '%s'", path);
        break;
      }
      rc = parse_tensor(&c, value, t);
    }
  }
  free(pos);
  json_decref(root);
  if (rc == 0) {
    rc = check_tiling(path, out, data_size, err);
  }
  return rc;
}

int st_file_read(const char *path, st_file *out, st_error *err) {
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return st_fail(err, CLI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return st_fail(err, CLI_EXIT_NOINPUT, "'%s' is not a regular file", path);
  }
  uint64_t file_size = (uint64_t)st.st_size;
  unsigned char len[8];
  if (file_size < 8) {
    close(fd);
    return st_fail(err, CLI_EXIT_DATA,
                   "%s: byte 0: the file holds %llu bytes, fewer than the 8 of the header size",
                   path, (unsigned long long)file_size);
  }
  int rc = 0;
  char *text = NULL;
  if (pread(fd, len, 8, 0) != 8) {
    rc = st_fail(err, CLI_EXIT_IOERR, "cannot read '%s': %s", path, strerror(errno));
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0 && rc == 0; i--) {
    n = n << 8 | len[i];
  }
  if (rc == 0 && n > ST_MAX_HEADER) {
    rc = st_fail(err, CLI_EXIT_DATA,
                 "%s: byte 0: the header size %llu is larger than the limit of %u bytes", path,
                 (unsigned long long)n, ST_MAX_HEADER);
  } else if (rc == 0 && n > file_size - 8) {
    rc = st_fail(err, CLI_EXIT_DATA,
                 "%s: byte 0: the header size %llu is larger than the %llu bytes after it "
                 "(truncated file or lying size)",
                 path, (unsigned long long)n, (unsigned long long)(file_size - 8));
  }
  if (rc == 0) {
    text = malloc(n == 0 ? 1 : (size_t)n);
    if (text == NULL) {
      rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading the header of '%s'", path);
    }
  }
  size_t done = 0;
  while (rc == 0 && done < n) {
    ssize_t got = pread(fd, text + done, (size_t)n - done, (off_t)(8 + done));
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      rc = st_fail(err, CLI_EXIT_IOERR, "cannot read the header of '%s': %s", path,
                   got == 0 ? "the file ended early" : strerror(errno));
    } else {
      done += (size_t)got;
    }
  }
  close(fd);
  if (rc == 0) {
    rc = st_header_parse(path, text, (size_t)n, file_size - 8 - n, out, err);
    out->file_size = file_size;
  }
  free(text);
  if (rc == 0 || out->path == NULL) {
    out->path = strdup(path);
    if (out->path == NULL && rc == 0) {
      rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  return rc;
}
