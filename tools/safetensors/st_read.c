/* The safetensors file reader: the framing, sizes and tiling, on top of the header's JSON parser
 * (st_json.c); departures from the canonical form reported through st_lenient.h. */
#include "st_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_source.h"
#include "shape_format.h"
#include "st_json.h"

/* Each tensor's data_offsets must hold shape x bits / 8 bytes exactly. */
static int check_sizes(const char *path, const ckpt_file *f, tool_error *err) {
  for (size_t i = 0; i < f->tensor_count; i++) {
    const ckpt_tensor *t = &f->tensors[i];
    uint64_t elements = 0, bytes = 0;
    ckpt_size_status size = ckpt_dtype_size(t->dtype, t->shape, t->ndim, &elements, &bytes);
    char what[SHAPE_TEXT_MAX + 200], text[SHAPE_TEXT_MAX];
    if (size == CKPT_SIZE_OVERFLOW) {
      snprintf(what, sizeof what, "the size of the shape overflows");
    } else if (size != CKPT_SIZE_OK) {
      snprintf(what, sizeof what, "%llu %s of %s (%u bits) %s not fill whole bytes",
               (unsigned long long)elements, tool_plural(elements, "element", "elements"),
               t->dtype->name, (unsigned)t->dtype->block_bits, elements == 1 ? "does" : "do");
    } else if (t->bytes == bytes) {
      continue;
    } else {
      snprintf(what, sizeof what, "data_offsets [%llu,%llu] hold %llu %s, but %s %s needs %llu",
               (unsigned long long)t->offset, (unsigned long long)(t->offset + t->bytes),
               (unsigned long long)t->bytes, tool_plural(t->bytes, "byte", "bytes"), t->dtype->name,
               shape_format(t->shape, (size_t)t->ndim, text, sizeof text),
               (unsigned long long)bytes);
    }
    return tool_fail(err, CLI_EXIT_DATA, "%s: byte %llu: tensor '%.200s': %s", path,
                     (unsigned long long)t->entry_pos, t->name, what);
  }
  return 0;
}

static int by_offset(const void *a, const void *b) {
  const ckpt_tensor *x = a, *y = b;
  if (x->offset != y->offset) {
    return x->offset < y->offset ? -1 : 1;
  }
  if (x->bytes != y->bytes) {
    return x->bytes < y->bytes ? -1 : 1;
  }
  return x->entry_pos < y->entry_pos ? -1 : x->entry_pos > y->entry_pos;
}

/* Data offsets must tile [0, data_size) exactly: sorted by begin, each starts where the previous
 * ended and the last ends at data_size. */
static int check_tiling(const char *path, ckpt_file *f, uint64_t header_size, uint64_t data_size,
                        tool_error *err) {
  if (f->tensor_count > 1) {
    qsort(f->tensors, f->tensor_count, sizeof *f->tensors, by_offset);
  }
  uint64_t at = 0;
  for (size_t i = 0; i < f->tensor_count; i++) {
    const ckpt_tensor *t = &f->tensors[i];
    if (t->offset != at) {
      const char *what = t->offset > at ? "leaves a hole" : "overlaps the previous tensor";
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: byte %llu: tensor '%.200s': data_offsets [%llu,%llu] %s (data "
                       "offset %llu expected%s%.200s%s)",
                       path, (unsigned long long)t->entry_pos, t->name,
                       (unsigned long long)t->offset, (unsigned long long)(t->offset + t->bytes),
                       what, (unsigned long long)at, i > 0 ? ", after tensor '" : "",
                       i > 0 ? f->tensors[i - 1].name : "", i > 0 ? "'" : "");
    }
    at = t->offset + t->bytes;
  }
  if (at != data_size) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: byte %llu: the tensors' data ends at data offset %llu but the data "
                     "section holds %llu %s (%s)",
                     path, (unsigned long long)(8 + header_size + at), (unsigned long long)at,
                     (unsigned long long)data_size, tool_plural(data_size, "byte", "bytes"),
                     at < data_size ? "trailing bytes" : "the file is truncated");
  }
  return 0;
}

int st_parse_header(const char *path, const char *text, size_t size, uint64_t data_size,
                    st_leniency *lenient, ckpt_file *out, tool_error *err) {
  memset(out, 0, sizeof *out);
  out->data_start = 8 + (uint64_t)size;
  st_header_notes notes;
  int rc = st_json_header(path, text, size, out, &notes, err);
  if (rc == 0) {
    rc = check_sizes(path, out, err);
  }
  if (rc == 0) {
    rc = check_tiling(path, out, size, data_size, err);
  }
  /* Departures are reported only for a file whose data is intact: a faulty file gets one error. */
  if (rc == 0) {
    rc = st_json_report_notes(path, &notes, lenient, err);
  }
  return rc;
}

/* The 8-byte header size N of the file open as `in` (of `file_size` bytes), checked against
 * the limit and the file. */
static int read_header_size(io_source *in, const char *path, uint64_t file_size, uint64_t *n,
                            tool_error *err) {
  unsigned char len[8];
  if (file_size < 8) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: byte 0: the file holds %llu %s, fewer than the 8 of the header size",
                     path, (unsigned long long)file_size, tool_plural(file_size, "byte", "bytes"));
  }
  int rc = io_source_read(in, len, 8, 0, CLI_EXIT_IOERR, err);
  if (rc != 0) {
    return rc;
  }
  *n = 0;
  for (int i = 7; i >= 0; i--) {
    *n = *n << 8 | len[i];
  }
  if (*n > ST_MAX_HEADER) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: byte 0: the header size %llu is larger than the limit of %u bytes", path,
                     (unsigned long long)*n, ST_MAX_HEADER);
  }
  if (*n > file_size - 8) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: byte 0: the header size %llu is larger than the %llu %s after it "
                     "(truncated file or lying size)",
                     path, (unsigned long long)*n, (unsigned long long)(file_size - 8),
                     tool_plural(file_size - 8, "byte", "bytes"));
  }
  return 0;
}

/* Sets the path and name of a file read from `path`. */
static int name_file(ckpt_file *out, const char *path, tool_error *err) {
  const char *slash = strrchr(path, '/');
  out->path = strdup(path);
  out->name = strdup(slash != NULL ? slash + 1 : path);
  return out->path == NULL || out->name == NULL ? tool_oom(err, "reading a file name") : 0;
}

int st_read_file(const char *path, ckpt_file *out, tool_error *err) {
  return st_read_file_with(path, NULL, out, err);
}

int st_read_file_with(const char *path, st_leniency *lenient, ckpt_file *out, tool_error *err) {
  memset(out, 0, sizeof *out);
  io_source in;
  int rc = io_source_open(&in, path, NULL, err);
  if (rc != 0) {
    /* A directory or another kind of file: as before, "not a regular file". */
    return rc == CLI_EXIT_NOINPUT && strstr(err->message, "': it is ") != NULL
               ? tool_fail(err, CLI_EXIT_NOINPUT, "'%s' is not a regular file", path)
               : rc;
  }
  uint64_t file_size = in.size, n = 0;
  char *text = NULL;
  rc = read_header_size(&in, path, file_size, &n, err);
  if (rc == 0) {
    text = malloc(n == 0 ? 1 : (size_t)n);
    if (text == NULL) {
      rc = tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading the header of '%s'", path);
    }
  }
  if (rc == 0) {
    /* The size was checked against the file: a short read means it shrank meanwhile. */
    rc = io_source_read(&in, text, (size_t)n, 8, CLI_EXIT_IOERR, err);
  }
  io_source_close(&in);
  if (rc == 0) {
    rc = st_parse_header(path, text, (size_t)n, file_size - 8 - n, lenient, out, err);
  }
  free(text);
  if (rc == 0) {
    out->size = file_size;
    for (size_t i = 0; i < out->tensor_count; i++) {
      out->tensors[i].offset += out->data_start;
    }
  }
  int named = name_file(out, path, err);
  return rc != 0 ? rc : named;
}
