/* Const layers: attributes, bounds in the .bin, reading. */
#include "ir_const.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "ir_types.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the IR reader assumes a little-endian host (the .bin file is little-endian)"
#endif

int ir_bin_open(const char *xml_path, const char *bin_path, ir_bin *bin, tool_error *err) {
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
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = io_open_regular(bin->path, "the weights", &bin->fd, &bin->size, err);
  if (rc != 0 && bin_path == NULL) {
    size_t used = strlen(err->message);
    snprintf(err->message + used, sizeof err->message - used, " (name another with --bin)");
  }
  if (rc != 0) {
    ir_bin_close(bin);
  }
  return rc;
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
const_fail(const ir_model *m, const ir_layer *l, tool_error *err, const char *format, ...) {
  char text[700], label[400];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  ir_layer_label(l, label, sizeof label);
  return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: %s", m->path, l->line, label, text);
}

/* Reads a required non-negative integer attribute of <data>. */
static int index_attr(const ir_model *m, const ir_layer *l, const char *key, uint64_t *value,
                      tool_error *err) {
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
                  tool_error *err) {
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
      return const_fail(m, l, err, "a string Const of %llu %s cannot hold its 4-byte count",
                        (unsigned long long)c->size, tool_plural(c->size, "byte", "bytes"));
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
      return const_fail(m, l, err, "size is %llu %s but %lld %s of %s %s %lld %s",
                        (unsigned long long)c->size, tool_plural(c->size, "byte", "bytes"),
                        (long long)c->elements,
                        tool_plural((uint64_t)c->elements, "element", "elements"),
                        ir_type_name(c->type), c->elements == 1 ? "takes" : "take",
                        (long long)bytes, tool_plural((uint64_t)bytes, "byte", "bytes"));
    }
  }
  if (bin != NULL && (c->offset > bin->size || c->size > bin->size - c->offset)) {
    return const_fail(m, l, err,
                      "bytes %llu..%llu (offset %llu, size %llu) lie past the end of '%s' "
                      "(%llu %s)",
                      (unsigned long long)c->offset,
                      (unsigned long long)(c->offset + (c->size > 0 ? c->size - 1 : 0)),
                      (unsigned long long)c->offset, (unsigned long long)c->size, bin->path,
                      (unsigned long long)bin->size, tool_plural(bin->size, "byte", "bytes"));
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

int ir_const_check_all(const ir_model *m, const ir_bin *bin, tool_error *err) {
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

int ir_const_read(const ir_bin *bin, const ir_const *c, void **data, tool_error *err) {
  unsigned char *buf = malloc(c->size > 0 ? (size_t)c->size : 1);
  if (buf == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading %llu bytes of '%s'",
                     (unsigned long long)c->size, bin->path);
  }
  /* The range was checked against the .bin's size: a short read means the file shrank. */
  int rc = io_read_full(bin->fd, bin->path, buf, (size_t)c->size, c->offset, CLI_EXIT_IOERR, err);
  if (rc != 0) {
    free(buf);
    return rc;
  }
  *data = buf;
  return 0;
}
