/* The strict safetensors header reader: the file framing, sizes and tiling, on top of the
 * header's JSON parser (st_json.c). */
#include "st_header.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "st_json.h"

int st_fail(st_error *err, int status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(err->message, sizeof err->message, format, args);
  va_end(args);
  /* One line, and nothing a terminal would act on, whatever the names in it hold. */
  for (char *c = err->message; *c != '\0'; c++) {
    if ((unsigned char)*c < 0x20 || *c == 0x7f) {
      *c = '?';
    }
  }
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

/* Each tensor's data_offsets must hold shape x bits / 8 bytes exactly. */
static int check_sizes(const char *path, const st_file *f, st_error *err) {
  for (size_t i = 0; i < f->count; i++) {
    const st_tensor *t = &f->tensors[i];
    uint64_t elements = 1, bits = 0;
    int overflow = 0;
    for (int d = 0; d < t->ndim; d++) {
      overflow |= __builtin_mul_overflow(elements, (uint64_t)t->shape[d], &elements);
    }
    overflow |= __builtin_mul_overflow(elements, (uint64_t)t->dtype->bits, &bits);
    const char *problem = NULL;
    char text[128], what[400];
    st_shape_text(t->shape, t->ndim, text, sizeof text);
    if (overflow || bits / 8 > INT64_MAX) {
      problem = "the size of the shape overflows";
    } else if (bits % 8 != 0) {
      snprintf(what, sizeof what, "%llu elements of %s (%u bits) do not fill whole bytes",
               (unsigned long long)elements, t->dtype->name, t->dtype->bits);
      problem = what;
    } else if (t->end - t->begin != bits / 8) {
      snprintf(what, sizeof what, "data_offsets [%llu,%llu] hold %llu bytes, but %s %s needs %llu",
               (unsigned long long)t->begin, (unsigned long long)t->end,
               (unsigned long long)(t->end - t->begin), t->dtype->name, text,
               (unsigned long long)(bits / 8));
      problem = what;
    }
    if (problem != NULL) {
      return st_fail(err, CLI_EXIT_DATA, "%s: byte %llu: tensor '%.200s': %s", path,
                     (unsigned long long)t->key_pos, t->name, problem);
    }
  }
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
  if (f->count > 1) {
    qsort(f->tensors, f->count, sizeof *f->tensors, by_offset);
  }
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
  int rc = st_json_header(path, text, size, out, err);
  if (rc == 0) {
    rc = check_sizes(path, out, err);
  }
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
