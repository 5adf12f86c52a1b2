/* Parameter layers' data from .npy files. */
#include "ir_parameter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_strings.h"
#include "ir_types.h"
#include "shape_format.h"

/* A packed or string Parameter: its input is a 1-D uint8 .npy of the bytes, and the Parameter's
 * shape must be static. */
static int read_raw(const ir_model *m, const ir_layer *l, const char *label, const ir_input *in,
                    cleave_type want, const cleave_dim *dims, size_t rank, ir_tensor *t,
                    void *owned[2], tool_error *err) {
  int64_t bits = 0;
  if (want.dtype != CLEAVE_STRING && cleave_type_bits(want, &bits, NULL, NULL) != CLEAVE_OK) {
    return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: a %s Parameter is not supported",
                     m->path, l->line, label, ir_type_name(want));
  }
  /* A dynamic rank is SIZE_MAX: tested before `rank` bounds a loop over `dims`. */
  int is_static = rank != CLEAVE_RANK_DYNAMIC;
  __int128 elements = 1;
  for (size_t i = 0; is_static && i < rank && elements <= INT64_MAX; i++) {
    is_static = dims[i].lo == dims[i].hi;
    elements *= dims[i].lo; /* at most 2^63 * 2^63: no overflow of __int128 */
  }
  is_static = is_static && elements <= INT64_MAX;
  if (!is_static) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' line %lu: %s: a %s Parameter needs a static shape (its input is a 1-D "
                     "uint8 .npy of its bytes)",
                     m->path, l->line, label, ir_type_name(want));
  }
  npy_header h;
  int rc = npy_read_header(in->fd, in->size, in->path, &h, err);
  if (rc != 0) {
    return rc;
  }
  if (strcmp(h.descr, "|u1") != 0 || h.rank != 1) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' must hold a 1-D uint8 array of the %s bytes %s takes (it holds '%s' "
                     "data of rank %zu)",
                     in->path, ir_type_name(want), label, h.descr, h.rank);
  }
  uint64_t bytes = 0;
  rc = npy_check_data_size(&h, 1, in->size, in->path, &bytes, err);
  if (rc != 0) {
    return rc;
  }
  if (want.dtype != CLEAVE_STRING && (__int128)bytes != (elements * bits + 7) / 8) {
    return tool_fail(err, CLI_EXIT_DATA, "'%s' holds %llu %s but %lld %s %s %s %lld", in->path,
                     (unsigned long long)bytes, tool_plural(bytes, "byte", "bytes"),
                     (long long)elements, ir_type_name(want),
                     tool_plural((uint64_t)elements, "element", "elements"),
                     elements == 1 ? "takes" : "take", (long long)((elements * bits + 7) / 8));
  }
  rc = npy_read_data(in->fd, in->path, &h, bytes, &owned[0], err);
  if (rc != 0) {
    return rc;
  }
  t->type = want;
  t->rank = rank;
  for (size_t i = 0; i < rank; i++) {
    t->shape[i] = dims[i].lo;
  }
  t->data = owned[0];
  t->bytes = (int64_t)bytes;
  t->descr[0] = '\0';
  if (want.dtype == CLEAVE_STRING) {
    cleave_string *handles = calloc((size_t)elements + 1, sizeof *handles);
    owned[1] = handles;
    if (handles == NULL) {
      return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
    rc = ir_strings_unpack(owned[0], bytes, (int64_t)elements, handles, label, in->path, err);
    if (rc != 0) {
      return rc;
    }
    t->data = handles;
    t->bytes = (int64_t)elements * (int64_t)sizeof *handles;
  }
  t->set = 1;
  return 0;
}

int ir_parameter_read(const ir_model *m, const ir_layer *l, const ir_input *in, ir_tensor *t,
                      void *owned[2], tool_error *err) {
  owned[0] = owned[1] = NULL;
  char label[400];
  ir_layer_label(l, label, sizeof label);
  /* What the Parameter accepts. */
  cleave_type want = cleave_type_of(CLEAVE_U8);
  const char *type_name = ir_layer_attr(l, "element_type");
  ir_type_kind kind = type_name != NULL ? ir_type_from_name(type_name, &want) : IR_TYPE_DYNAMIC;
  if (kind == IR_TYPE_UNKNOWN_NAME) {
    return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: unknown element_type '%s'", m->path,
                     l->line, label, type_name);
  }
  cleave_dim dims[IR_MAX_RANK];
  size_t rank = CLEAVE_RANK_DYNAMIC;
  const ir_port *out = ir_layer_output(l, 0);
  const char *shape_attr = ir_layer_attr(l, "shape");
  char why[200];
  if (shape_attr != NULL) {
    if (ir_shape_parse(shape_attr, dims, IR_MAX_RANK, &rank, why, sizeof why) != 0) {
      return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s: %s", m->path, l->line, label, why);
    }
  } else if (out != NULL) {
    rank = out->rank;
    memcpy(dims, out->dims, rank * sizeof *dims);
  }
  if (out == NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "'%s' line %lu: %s has no output port", m->path, l->line,
                     label);
  }
  if (kind == IR_TYPE_KNOWN && (ir_type_is_packed(want) || want.dtype == CLEAVE_STRING)) {
    return read_raw(m, l, label, in, want, dims, rank, t, owned, err);
  }
  npy_header h;
  int rc = npy_read_header(in->fd, in->size, in->path, &h, err);
  if (rc != 0) {
    return rc;
  }
  npy_dtype dt;
  rc = npy_descr_to_dtype(h.descr, h.descr[1] == 'V' && kind == IR_TYPE_KNOWN ? &want : NULL,
                          in->path, &dt, err);
  if (rc != 0) {
    return rc;
  }
  if (h.fortran_order && h.rank > 1) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' is in Fortran order, which ir-run does not take (save it in C order)",
                     in->path);
  }
  if (kind == IR_TYPE_KNOWN && (dt.type.dtype != want.dtype || dt.type.width != want.width)) {
    return tool_fail(err, CLI_EXIT_DATA, "'%s' holds '%s' data but %s takes %s", in->path, h.descr,
                     label, ir_type_name(want));
  }
  if (dt.type.dtype == CLEAVE_BYTES || dt.type.dtype == CLEAVE_UNICODE) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' holds '%s' strings, which no IR element type describes", in->path,
                     h.descr);
  }
  if (h.rank > IR_MAX_RANK || !ir_dims_fit(dims, rank, h.shape, h.rank)) {
    char have[SHAPE_TEXT_MAX];
    shape_format(h.shape, h.rank > IR_MAX_RANK ? IR_MAX_RANK : h.rank, have, sizeof have);
    return tool_fail(err, CLI_EXIT_DATA, "'%s' has shape %s, which %s does not take (shape '%s')",
                     in->path, have, label, shape_attr != NULL ? shape_attr : "of its port");
  }
  uint64_t bytes = 0;
  rc = npy_check_data_size(&h, dt.item_size, in->size, in->path, &bytes, err);
  if (rc == 0) {
    rc = npy_read_data(in->fd, in->path, &h, bytes, &owned[0], err);
  }
  if (rc != 0) {
    return rc;
  }
  t->set = 1;
  t->type = dt.type;
  t->rank = h.rank;
  memcpy(t->shape, h.shape, h.rank * sizeof *h.shape);
  t->data = owned[0];
  t->bytes = (int64_t)bytes;
  snprintf(t->descr, sizeof t->descr, "%s", h.descr);
  return 0;
}
