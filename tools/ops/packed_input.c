/* Packed sub-byte inputs: --shape, and the checks of the .npy file that holds the bytes. */
#include "packed_input.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli_util.h"
#include "shape_format.h"
#include "shape_text.h"

int packed_dtype(cleave_dtype dtype) {
  return dtype >= CLEAVE_U1 && dtype <= CLEAVE_FLOAT4E2M1;
}

int packed_parse_shape(const char *shape_text, cleave_type type, const char *type_name,
                       packed_input *p) {
  p->type = type;
  p->type_name = type_name;
  p->shape_text = shape_text;
  p->bits = 0;
  p->rank = 0;
  p->data_bytes = 0;
  cli_shape shape;
  int rc = cli_shape_parse(shape_text, "--shape", &shape);
  if (rc != 0) {
    return rc;
  }
  if (!cli_shape_is_static(&shape)) {
    rc = cli_error(CLI_EXIT_USAGE,
                   "--shape: '%s' is not a static shape: the logical shape of a packed input "
                   "needs every dimension (no ?, -1, L..H or [...])",
                   shape_text);
  } else if (shape.rank > NPY_MAX_RANK) {
    rc = cli_error(CLI_EXIT_USAGE, "--shape: '%s' has rank %zu, above the limit of %d", shape_text,
                   shape.rank, NPY_MAX_RANK);
  } else {
    p->rank = shape.rank;
    for (size_t i = 0; i < p->rank; i++) {
      p->shape[i] = shape.dims[i].lo;
    }
  }
  cli_shape_free(&shape);
  return rc;
}

int packed_check_input(packed_input *p, const npy_header *h, uint64_t file_size, const char *path,
                       tool_error *err) {
  cleave_error lib;
  if (cleave_type_bits(p->type, &p->bits, NULL, &lib) != CLEAVE_OK) {
    return tool_from_library(err, &lib, "--dtype");
  }
  npy_dtype file_type;
  int rc = npy_descr_to_dtype(h->descr, NULL, path, &file_type, err);
  if (rc != 0) {
    return rc;
  }
  if (file_type.type.dtype != CLEAVE_U8) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' has dtype '%s': with --dtype %s the file holds the packed bytes as a "
                     "1-D uint8 array ('|u1')",
                     path, h->descr, p->type_name);
  }
  if (h->rank != 1) {
    char label[SHAPE_TEXT_MAX];
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' has shape %s: with --dtype %s the file holds the packed bytes as a 1-D "
                     "uint8 array (--shape gives the logical shape)",
                     path, shape_format(h->shape, h->rank, label, sizeof label), p->type_name);
  }
  uint64_t file_bytes = 0;
  rc = npy_check_data_size(h, 1, file_size, path, &file_bytes, err);
  if (rc != 0) {
    return rc;
  }
  /* Elements, then bits, checked for overflow: a zero dimension makes the tensor empty. */
  int64_t elements = 1;
  for (size_t i = 0; i < p->rank; i++) {
    if (p->shape[i] == 0) {
      elements = 0;
    }
  }
  int64_t total_bits = 0;
  int overflow = 0;
  for (size_t i = 0; i < p->rank && elements != 0 && !overflow; i++) {
    overflow = __builtin_mul_overflow(elements, p->shape[i], &elements);
  }
  if (overflow || __builtin_mul_overflow(elements, p->bits, &total_bits)) {
    return tool_fail(err, CLI_EXIT_DATA, "--shape %s of %s: the size of the data overflows int64",
                     p->shape_text, p->type_name);
  }
  uint64_t need = ((uint64_t)total_bits + 7) / 8;
  if (need != file_bytes) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' holds %" PRIu64 " %s, but --shape %s of %s takes %" PRIu64
                     " %s (ceil(%" PRId64 " %s x %" PRId64 " %s / 8))",
                     path, file_bytes, tool_plural(file_bytes, "byte", "bytes"), p->shape_text,
                     p->type_name, need, tool_plural(need, "byte", "bytes"), elements,
                     tool_plural((uint64_t)elements, "element", "elements"), p->bits,
                     tool_plural((uint64_t)p->bits, "bit", "bits"));
  }
  p->data_bytes = need;
  return 0;
}
