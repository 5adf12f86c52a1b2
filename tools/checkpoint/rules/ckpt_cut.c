/* Cutting one tensor: the view, the library's split rule, the byte and block boundaries. */
#include "ckpt_cut.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_format.h"

int ckpt_parse_view(const char *text, ckpt_cut *cut) {
  cut->view_ndim = 0;
  const char *p = text;
  int unknown = 0;
  if (*p == '[') {
    p++;
  }
  while (*p != '\0' && *p != ']') {
    char *end = NULL;
    long long v = strtoll(p, &end, 10);
    if (end == p || cut->view_ndim >= CKPT_MAX_RANK || v < -1 || (v == -1 && unknown++)) {
      return -1;
    }
    cut->view[cut->view_ndim++] = v;
    p = end;
    if (*p == ',') {
      p++;
      if (*p == '\0' || *p == ']') {
        return -1;
      }
    } else if (*p != '\0' && *p != ']') {
      return -1;
    }
  }
  if (*p == ']' && (text[0] != '[' || p[1] != '\0')) {
    return -1;
  }
  if (*p == '\0' && text[0] == '[') {
    return -1;
  }
  cut->has_view = cut->view_ndim > 0;
  return cut->has_view ? 0 : -1;
}

/* "FILE: tensor 'NAME' (DTYPE [SHAPE], viewed as [VIEW])", in front of every message of a cut. */
static void cut_prefix(const char *path, const ckpt_tensor *t, const int64_t *view, int view_ndim,
                       char *buf, size_t size) {
  char shape[SHAPE_TEXT_MAX], viewed[SHAPE_TEXT_MAX + 16] = "";
  shape_format(t->shape, (size_t)t->ndim, shape, sizeof shape);
  if (view != NULL) {
    char text[SHAPE_TEXT_MAX];
    snprintf(viewed, sizeof viewed, ", viewed as %s",
             shape_format(view, (size_t)view_ndim, text, sizeof text));
  }
  snprintf(buf, size, "%s: tensor '%.200s' (%s %.400s%.420s)", path, t->name, t->dtype->name, shape,
           viewed);
}

static int cut_fail(tool_error *err, const char *prefix, const char *format, ...) TOOL_PRINTF(3, 4);
static int cut_fail(tool_error *err, const char *prefix, const char *format, ...) {
  char text[400];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return tool_fail(err, CLI_EXIT_DATA, "%s: %s", prefix, text);
}

/* The view's shape with its -1 resolved (a reshape: the element count must not change). */
static int resolve_view(const ckpt_cut *cut, const ckpt_tensor *t, const char *prefix,
                        int64_t *shape, tool_error *err) {
  uint64_t elements = 1;
  for (int d = 0; d < t->ndim; d++) {
    elements *= (uint64_t)t->shape[d]; /* the reader checked that this cannot overflow */
  }
  uint64_t known = 1;
  int unknown = -1;
  for (int d = 0; d < cut->view_ndim; d++) {
    if (cut->view[d] < 0) {
      unknown = d;
    } else if (__builtin_mul_overflow(known, (uint64_t)cut->view[d], &known)) {
      return cut_fail(err, prefix, "the view's size overflows");
    }
    shape[d] = cut->view[d];
  }
  if (unknown >= 0) {
    if (known == 0 || elements % known != 0) {
      return cut_fail(err, prefix, "%lld %s cannot be viewed with a -1 beside %lld",
                      (long long)elements, tool_plural(elements, "element", "elements"),
                      (long long)known);
    }
    shape[unknown] = (int64_t)(elements / known);
  } else if (known != elements) {
    return cut_fail(err, prefix, "the view holds %lld %s, the tensor %lld", (long long)known,
                    tool_plural((uint64_t)known, "element", "elements"), (long long)elements);
  }
  return 0;
}

/* The split rule itself is the library's: OpenVINO Split-1 for a number of parts,
 * VariadicSplit-1 for lengths (its -1 resolved there), on the tensor's (or view's) shape, through
 * cleave_infer. Returns the lengths of the parts (malloc'd, `*count` of them) and the axis. */
static int library_rule(const ckpt_cut *cut, const ckpt_tensor *t, const int64_t *shape, int ndim,
                        const char *prefix, int64_t **len, size_t *count, size_t *axis,
                        tool_error *err) {
  cleave_op op = cut->has_parts ? cleave_op_split(&cut->axis, cut->parts)
                                : cleave_op_variadic_split(&cut->axis, cut->lengths,
                                                           (size_t)cut->length_count);
  cleave_type type = cleave_type_of(t->dtype->movable ? t->dtype->lib : CLEAVE_U8);
  cleave_split_info info;
  cleave_error e;
  /* First every rule (nothing allocated for a count the rule refuses), then the lengths. */
  cleave_status st = cleave_infer(&op, type, shape, (size_t)ndim, &info, NULL, 0, &e);
  if (st == CLEAVE_OK) {
    *len = calloc(info.num_outputs + 1, sizeof **len);
    if (*len == NULL) {
      return tool_oom(err, "cutting a tensor");
    }
    st = cleave_infer(&op, type, shape, (size_t)ndim, &info, *len, info.num_outputs, &e);
  }
  if (st != CLEAVE_OK) {
    free(*len);
    *len = NULL;
    return tool_fail(err, cli_exit_for_status(st), "%s: %s", prefix, e.message);
  }
  *count = info.num_outputs;
  *axis = info.axis;
  return 0;
}

/* Whether element `e` of a row (C order) starts a byte and a block; its byte offset in `*at`. */
static int boundary(const ckpt_dtype *d, uint64_t e, uint64_t *at) {
  uint64_t bits = 0;
  if (ckpt_dtype_bits(d, e, &bits) != 0 || bits % 8 != 0) {
    return 0;
  }
  *at = bits / 8;
  return 1;
}

/* Every part starts and ends on a byte (and block) boundary in every row: safetensors stores
 * whole bytes, and a block cannot be divided. (With the innermost dimension of a block type made
 * of whole blocks, only a part's length can break the block rule.) */
static int check_boundaries(const ckpt_dtype *d, uint64_t outer, uint64_t dim, uint64_t inner,
                            size_t axis, const int64_t *len, size_t n, const char *prefix,
                            tool_error *err) {
  uint64_t at = 0, ignored;
  if (outer > 1 && !boundary(d, dim * inner, &ignored)) {
    return cut_fail(err, prefix,
                    "a row along axis %lld holds %lld bits: the parts would not start on byte "
                    "boundaries",
                    (long long)axis, (long long)(dim * inner * d->block_bits));
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t take = (uint64_t)len[i] * inner;
    if (!boundary(d, at * inner, &ignored)) {
      return cut_fail(err, prefix,
                      "part %lld starts at element %lld of the axis, which is not on a byte "
                      "boundary",
                      (long long)i, (long long)at);
    }
    if (!boundary(d, take, &ignored) && d->block_elems > 1) {
      return cut_fail(err, prefix,
                      "part %lld holds %lld %s of the axis: not a whole number of %s "
                      "blocks (%u elements)",
                      (long long)i, (long long)len[i],
                      tool_plural((uint64_t)len[i], "element", "elements"), d->name,
                      (unsigned)d->block_elems);
    }
    if (!boundary(d, take, &ignored)) {
      return cut_fail(err, prefix, "part %lld holds %lld bits: it does not end on a byte boundary",
                      (long long)i, (long long)(take * d->block_bits));
    }
    at += (uint64_t)len[i];
  }
  return 0;
}

/* Part i's shape: the viewed shape with the axis cut; after a view, folded back to the
 * tensor's trailing dimensions when they divide the part. */
static void part_shape(const ckpt_cut *cut, const ckpt_tensor *t, const int64_t *shape, int ndim,
                       size_t axis, uint64_t outer, uint64_t inner, int64_t len, ckpt_part *p) {
  p->ndim = ndim;
  memcpy(p->shape, shape, (size_t)ndim * sizeof *shape);
  p->shape[axis] = len;
  if (cut->has_view && t->ndim >= 1) {
    uint64_t part_elems = outer * (uint64_t)len * inner, trailing = 1;
    for (int d = 1; d < t->ndim; d++) {
      trailing *= (uint64_t)t->shape[d];
    }
    if (trailing != 0 && part_elems % trailing == 0) {
      p->ndim = t->ndim;
      memcpy(p->shape, t->shape, (size_t)t->ndim * sizeof *t->shape);
      p->shape[0] = (int64_t)(part_elems / trailing);
    }
  }
}

int ckpt_cut_tensor(const ckpt_cut *cut, const ckpt_tensor *t, const char *path, ckpt_part **parts,
                    size_t *count, tool_error *err) {
  *parts = NULL;
  *count = 0;
  int64_t shape[CKPT_MAX_RANK];
  int ndim = cut->has_view ? cut->view_ndim : t->ndim;
  char prefix[1200];
  cut_prefix(path, t, NULL, 0, prefix, sizeof prefix);
  if (cut->has_view) {
    int rc = resolve_view(cut, t, prefix, shape, err);
    if (rc != 0) {
      return rc;
    }
    cut_prefix(path, t, shape, ndim, prefix, sizeof prefix);
    /* A block lies along the innermost dimension: the view must not make one straddle two of
     * its rows. */
    uint32_t block = t->dtype->block_elems;
    if (block > 1 && (uint64_t)shape[ndim - 1] % block != 0) {
      return cut_fail(err, prefix,
                      "the view's innermost dimension %lld is not a whole number of %s blocks "
                      "(%u elements)",
                      (long long)shape[ndim - 1], t->dtype->name, (unsigned)block);
    }
  } else if (t->ndim > 0) {
    memcpy(shape, t->shape, (size_t)t->ndim * sizeof *shape);
  }
  int64_t *len = NULL;
  size_t n = 0, axis = 0;
  int rc = library_rule(cut, t, shape, ndim, prefix, &len, &n, &axis, err);
  if (rc != 0) {
    return rc;
  }
  uint64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; d++) {
    outer *= (uint64_t)shape[d];
  }
  for (size_t d = axis + 1; d < (size_t)ndim; d++) {
    inner *= (uint64_t)shape[d];
  }
  uint64_t dim = (uint64_t)shape[axis];
  rc = check_boundaries(t->dtype, outer, dim, inner, axis, len, n, prefix, err);
  *parts = rc == 0 ? calloc(n + 1, sizeof **parts) : NULL;
  if (rc == 0 && *parts == NULL) {
    rc = tool_oom(err, "cutting a tensor");
  }
  uint64_t at = 0, row_bytes = 0;
  if (rc == 0) {
    /* The checks above made every offset below a whole number of bytes. */
    boundary(t->dtype, dim * inner, &row_bytes);
  }
  for (size_t i = 0; i < n && rc == 0; i++) {
    ckpt_part *p = &(*parts)[i];
    p->rows = outer;
    p->row_bytes = row_bytes;
    boundary(t->dtype, at * inner, &p->col);
    boundary(t->dtype, (uint64_t)len[i] * inner, &p->take);
    part_shape(cut, t, shape, ndim, axis, outer, inner, len[i], p);
    p->slice.count = 1;
    p->slice.axis = (int)axis;
    p->slice.dim = (int64_t)dim;
    p->slice.begin[0] = (int64_t)at;
    p->slice.end[0] = (int64_t)(at + (uint64_t)len[i]);
    if (cut->has_view) {
      p->slice.view_ndim = ndim;
      memcpy(p->slice.view, shape, (size_t)ndim * sizeof *shape);
    }
    at += (uint64_t)len[i];
  }
  free(len);
  if (rc != 0) {
    free(*parts);
    *parts = NULL;
    return rc;
  }
  *count = n;
  return 0;
}
