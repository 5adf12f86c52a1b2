/* Const layers: attributes, bounds in the .bin, reading, packed strings. */
#include "ir_const.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "ir_types.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the IR reader assumes a little-endian host (the .bin file is little-endian)"
#endif

int ir_bin_open(const char *xml_path, const char *bin_path, ir_bin *bin, ir_error *err) {
  memset(bin, 0, sizeof *bin);
  bin->fd = -1;
  if (bin_path != NULL) {
    bin->path = strdup(bin_path);
  } else {
    size_t len = strlen(xml_path);
    if (len >= 4 && strcmp(xml_path + len - 4, ".xml") == 0) {
      len -= 4;
    }
    bin->path = malloc(len + 5);
    if (bin->path != NULL) {
      memcpy(bin->path, xml_path, len);
      memcpy(bin->path + len, ".bin", 5);
    }
  }
  if (bin->path == NULL) {
    return ir_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  bin->fd = open(bin->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (bin->fd < 0 || fstat(bin->fd, &st) != 0) {
    int rc = ir_fail(err, CLI_EXIT_NOINPUT, "cannot open the weights '%s': %s%s", bin->path,
                     strerror(errno), bin_path == NULL ? " (name another with --bin)" : "");
    ir_bin_close(bin);
    return rc;
  }
  if (!S_ISREG(st.st_mode)) {
    int rc = ir_fail(err, CLI_EXIT_NOINPUT,
                     "cannot open the weights '%s': it is not a regular file", bin->path);
    ir_bin_close(bin);
    return rc;
  }
  bin->size = (uint64_t)st.st_size;
  return 0;
}

void ir_bin_close(ir_bin *bin) {
  if (bin->fd >= 0) {
    close(bin->fd);
  }
  free(bin->path);
  bin->path = NULL;
  bin->fd = -1;
}

__attribute__((format(printf, 4, 5))) static int
const_fail(const ir_model *m, const ir_layer *l, ir_error *err, const char *format, ...) {
  char text[700], label[400];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  ir_layer_label(l, label, sizeof label);
  return ir_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: %s", m->path, l->line, label, text);
}

/* Reads a required non-negative integer attribute of <data>. */
static int index_attr(const ir_model *m, const ir_layer *l, const char *key, uint64_t *value,
                      ir_error *err) {
  const char *text = ir_layer_attr(l, key);
  int64_t v = 0;
  if (text == NULL) {
    return const_fail(m, l, err, "<data> has no %s attribute", key);
  }
  if (ir_parse_index(text, &v) != 0) {
    return const_fail(m, l, err, "%s '%.64s' is not an integer in [0, 2^63-1]", key, text);
  }
  *value = (uint64_t)v;
  return 0;
}

int ir_const_info(const ir_model *m, const ir_layer *l, const ir_bin *bin, ir_const *c,
                  ir_error *err) {
  memset(c, 0, sizeof *c);
  const char *type_name = ir_layer_attr(l, "element_type");
  const char *shape_text = ir_layer_attr(l, "shape");
  if (type_name == NULL) {
    return const_fail(m, l, err, "<data> has no element_type attribute");
  }
  ir_type_kind kind = ir_type_from_name(type_name, &c->type);
  if (kind != IR_TYPE_KNOWN) {
    return const_fail(m, l, err, "element_type '%.64s' is %s", type_name,
                      kind == IR_TYPE_DYNAMIC ? "not a concrete type" : "unknown");
  }
  if (shape_text == NULL) {
    return const_fail(m, l, err, "<data> has no shape attribute");
  }
  cleave_dim dims[IR_MAX_RANK];
  char why[200];
  if (ir_shape_parse(shape_text, dims, IR_MAX_RANK, &c->rank, why, sizeof why) != 0) {
    return const_fail(m, l, err, "%s", why);
  }
  if (c->rank == CLEAVE_RANK_DYNAMIC) {
    return const_fail(m, l, err, "a Const needs a static shape, not '%.64s'", shape_text);
  }
  __int128 elements = 1;
  for (size_t i = 0; i < c->rank; i++) {
    if (dims[i].lo != dims[i].hi) {
      return const_fail(m, l, err, "a Const needs a static shape, not '%.64s'", shape_text);
    }
    c->shape[i] = dims[i].lo;
    elements *= dims[i].lo;
    if (elements > INT64_MAX) {
      return const_fail(m, l, err, "shape '%.64s' has more than 2^63-1 elements", shape_text);
    }
  }
  c->elements = (int64_t)elements;
  if (index_attr(m, l, "offset", &c->offset, err) != 0 ||
      index_attr(m, l, "size", &c->size, err) != 0) {
    return CLI_EXIT_DATA;
  }
  if (c->type.dtype == CLEAVE_STRING) {
    c->bits = 0;
    if (c->size < 4) {
      return const_fail(m, l, err, "a string Const of %llu bytes cannot hold its 4-byte count",
                        (unsigned long long)c->size);
    }
  } else {
    cleave_error cerr;
    if (cleave_type_bits(c->type, &c->bits, NULL, &cerr) != CLEAVE_OK) {
      /* u3 and u6: sized by their 3-byte groups of 8 elements. */
      if (c->type.dtype != CLEAVE_U3 && c->type.dtype != CLEAVE_U6) {
        return const_fail(m, l, err, "%s", cerr.message);
      }
      c->bits = c->type.dtype == CLEAVE_U3 ? 3 : 6;
    }
    __int128 bytes = (elements * c->bits + 7) / 8;
    if (bytes != (__int128)c->size) {
      return const_fail(m, l, err, "size is %llu bytes but %lld elements of %s take %lld bytes",
                        (unsigned long long)c->size, (long long)c->elements, ir_type_name(c->type),
                        (long long)bytes);
    }
  }
  if (bin != NULL && (c->offset > bin->size || c->size > bin->size - c->offset)) {
    return const_fail(m, l, err,
                      "bytes %llu..%llu (offset %llu, size %llu) lie past the end of '%s' "
                      "(%llu bytes)",
                      (unsigned long long)c->offset,
                      (unsigned long long)(c->offset + (c->size > 0 ? c->size - 1 : 0)),
                      (unsigned long long)c->offset, (unsigned long long)c->size, bin->path,
                      (unsigned long long)bin->size);
  }
  const ir_port *out = ir_layer_output(l, 0);
  if (out == NULL || ir_layer_count(l, 1) != 1) {
    return const_fail(m, l, err, "a Const has exactly one output port");
  }
  if (out->rank != c->rank && !(out->rank == 0 && c->rank == 0)) {
    return const_fail(m, l, err,
                      "output port %lld declares rank %zu but shape '%.64s' has rank %zu",
                      (long long)out->id, out->rank, shape_text, c->rank);
  }
  for (size_t i = 0; i < c->rank; i++) {
    if (out->dims[i].lo != c->shape[i] || out->dims[i].hi != c->shape[i]) {
      return const_fail(m, l, err, "output port %lld dim %zu does not match shape '%.64s'",
                        (long long)out->id, i, shape_text);
    }
  }
  return 0;
}

int ir_const_check_all(const ir_model *m, const ir_bin *bin, ir_error *err) {
  for (size_t i = 0; i < m->num_layers; i++) {
    if (strcmp(m->layers[i].type, "Const") == 0) {
      ir_const c;
      int rc = ir_const_info(m, &m->layers[i], bin, &c, err);
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

int ir_const_read(const ir_bin *bin, const ir_const *c, void **data, ir_error *err) {
  unsigned char *buf = malloc(c->size > 0 ? (size_t)c->size : 1);
  if (buf == NULL) {
    return ir_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading %llu bytes of '%s'",
                   (unsigned long long)c->size, bin->path);
  }
  uint64_t done = 0;
  while (done < c->size) {
    ssize_t n = pread(bin->fd, buf + done, (size_t)(c->size - done), (off_t)(c->offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      int e = n == 0 ? EIO : errno;
      free(buf);
      return ir_fail(err, CLI_EXIT_IOERR, "reading '%s' at offset %llu failed: %s", bin->path,
                     (unsigned long long)(c->offset + done),
                     n == 0 ? "the file shrank" : strerror(e));
    }
    done += (uint64_t)n;
  }
  *data = buf;
  return 0;
}

static int32_t read_i32(const unsigned char *p) {
  uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  return (int32_t)v;
}

int ir_const_unpack_strings(const unsigned char *data, uint64_t size, int64_t expected,
                            cleave_string *out, const char *label, const char *path,
                            ir_error *err) {
  if (size < 4) {
    return ir_fail(err, CLI_EXIT_DATA, "'%s': %s: the packed strings have no count", path, label);
  }
  int32_t count = read_i32(data);
  if (count < 0 || (int64_t)count != expected) {
    return ir_fail(err, CLI_EXIT_DATA,
                   "'%s': %s: the packed strings count %d strings but the shape holds %lld", path,
                   label, (int)count, (long long)expected);
  }
  uint64_t header = count == 0 ? 4 : 4 * ((uint64_t)count + 2);
  if (header > size) {
    return ir_fail(err, CLI_EXIT_DATA,
                   "'%s': %s: the packed strings' offsets (%llu bytes) do not fit in %llu bytes",
                   path, label, (unsigned long long)header, (unsigned long long)size);
  }
  uint64_t region = size - header;
  const unsigned char *offsets = data + 4;
  for (int32_t i = 0; i < count; i++) {
    int32_t begin = read_i32(offsets + 4 * (size_t)i), end = read_i32(offsets + 4 * (size_t)i + 4);
    if (begin < 0 || end < begin || (uint64_t)end > region) {
      return ir_fail(err, CLI_EXIT_DATA,
                     "'%s': %s: string %d spans bytes [%d, %d) of a %llu-byte region", path, label,
                     (int)i, (int)begin, (int)end, (unsigned long long)region);
    }
    out[i].data = (const char *)data + header + (uint64_t)begin;
    out[i].size = (size_t)(end - begin);
  }
  return 0;
}
