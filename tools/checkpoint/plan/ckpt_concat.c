/* Joining the ranks' parts of one tensor: Concat-1's rules, the merged shape, the spans. */
#include "ckpt_concat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shape_format.h"

/* "rank R ('FILE')", the place of part r in messages. */
static const char *rank_label(const ckpt_model *m, const ckpt_tensor *t, size_t r, char *buf,
                              size_t size) {
  snprintf(buf, size, "rank %zu ('%.300s')", r, m->files[t->file].path);
  return buf;
}

/* "DTYPE [SHAPE]" of tensor t, for messages. */
static const char *describe(const ckpt_tensor *t, char *buf, size_t size) {
  char shape[SHAPE_TEXT_MAX];
  snprintf(buf, size, "%s %.400s", t->dtype->name,
           shape_format(t->shape, (size_t)t->ndim, shape, sizeof shape));
  return buf;
}

static uint64_t elements_of(const ckpt_tensor *t) {
  uint64_t n = 1;
  for (int d = 0; d < t->ndim; d++) {
    n *= (uint64_t)t->shape[d]; /* the reader checked that this cannot overflow */
  }
  return n;
}

/*
 * Part r's shape seen through the view: the view with its axis entry left to the part (the part
 * says how much of the axis it holds), or, when the view's -1 is on another dimension, with its
 * axis entry shared equally among the `count` ranks (a shard's cut is even).
 */
static int view_part(const ckpt_model *m, const ckpt_cut *view, size_t a, size_t count,
                     const ckpt_tensor *t, size_t r, int64_t *s, tool_error *err) {
  int n = view->view_ndim, u = -1;
  memcpy(s, view->view, (size_t)n * sizeof *s);
  for (int d = 0; d < n; d++) {
    u = view->view[d] < 0 ? d : u;
  }
  char label[400], what[500], text[SHAPE_TEXT_MAX];
  rank_label(m, t, r, label, sizeof label);
  shape_format(view->view, (size_t)n, text, sizeof text);
  size_t unknown = a;
  if (u >= 0 && (size_t)u != a) {
    if (view->view[a] % (int64_t)count != 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "tensor '%.200s': the view %.300s gives axis %zu the size %lld, which %zu "
                       "ranks cannot hold in equal parts",
                       t->name, text, a, (long long)view->view[a], count);
    }
    s[a] = view->view[a] / (int64_t)count;
    unknown = (size_t)u;
  }
  uint64_t elements = elements_of(t), known = 1;
  for (int d = 0; d < n; d++) {
    if ((size_t)d != unknown && __builtin_mul_overflow(known, (uint64_t)s[d], &known)) {
      return tool_fail(err, CLI_EXIT_DATA, "tensor '%.200s': the view %.300s overflows", t->name,
                       text);
    }
  }
  if (known == 0 ? elements != 0 : elements % known != 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' (%s) does not fit the view %.300s: its %llu elements are "
                     "not a multiple of %llu",
                     label, t->name, describe(t, what, sizeof what), text,
                     (unsigned long long)elements, (unsigned long long)known);
  }
  s[unknown] = known == 0 ? 0 : (int64_t)(elements / known);
  return 0;
}

/* Part r's shape (through the view, when there is one), which Concat-1 compares. */
static int part_shape(const ckpt_model *m, const ckpt_tensor *const *parts, size_t r, size_t count,
                      const ckpt_cut *view, size_t a, int64_t *s, tool_error *err) {
  const ckpt_tensor *t = parts[r], *t0 = parts[0];
  char label[400], label0[400], what[500], what0[500];
  if (t->dtype != t0->dtype) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: tensor '%.200s' is %s but %s in %s",
                     rank_label(m, t, r, label, sizeof label), t->name, t->dtype->name,
                     t0->dtype->name, rank_label(m, t0, 0, label0, sizeof label0));
  }
  if (view != NULL) {
    return view_part(m, view, a, count, t, r, s, err);
  }
  if (t->ndim != t0->ndim) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' is %s but %s in %s: the parts of a concatenation have "
                     "one number of dimensions (Concat-1)",
                     rank_label(m, t, r, label, sizeof label), t->name,
                     describe(t, what, sizeof what), describe(t0, what0, sizeof what0),
                     rank_label(m, t0, 0, label0, sizeof label0));
  }
  memcpy(s, t->shape, (size_t)t->ndim * sizeof *s);
  return 0;
}

/* Concat-1: every dimension but the axis equal to rank 0's. */
static int same_dims(const ckpt_model *m, const ckpt_tensor *const *parts, size_t r,
                     const int64_t *s0, const int64_t *s, int ndim, size_t a, int viewed,
                     tool_error *err) {
  for (int d = 0; d < ndim; d++) {
    if ((size_t)d == a || s[d] == s0[d]) {
      continue;
    }
    char label[400], label0[400], text[SHAPE_TEXT_MAX], text0[SHAPE_TEXT_MAX];
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' is %s%.300s but %.300s in %s: dimension %d differs, and "
                     "only the axis (%zu) may (Concat-1)",
                     rank_label(m, parts[r], r, label, sizeof label), parts[r]->name,
                     viewed ? "viewed as " : "", shape_format(s, (size_t)ndim, text, sizeof text),
                     shape_format(s0, (size_t)ndim, text0, sizeof text0),
                     rank_label(m, parts[0], 0, label0, sizeof label0), d, a);
  }
  return 0;
}

/* The bytes each part holds of a row (the rows run over the dimensions before the axis): whole
 * blocks, and whole bytes when there is more than one row. */
static int part_widths(const ckpt_model *m, ckpt_concat *c, const uint64_t *lengths, uint64_t inner,
                       size_t a, tool_error *err) {
  const ckpt_dtype *d = c->parts[0]->dtype;
  uint64_t at = 0;
  for (size_t r = 0; r < c->count; r++) {
    const ckpt_tensor *t = c->parts[r];
    char label[400], what[500];
    uint64_t bits = 0;
    if (ckpt_dtype_bits(d, lengths[r] * inner, &bits) != 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: tensor '%.200s' (%s) holds %llu elements along axis %zu: not a whole "
                       "number of %s blocks (%u elements)",
                       rank_label(m, t, r, label, sizeof label), t->name,
                       describe(t, what, sizeof what), (unsigned long long)lengths[r], a, d->name,
                       (unsigned)d->block_elems);
    }
    if (c->rows > 1 && bits % 8 != 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: tensor '%.200s' (%s): a row of it along axis %zu holds %llu bits, so "
                       "the parts cannot be joined on byte boundaries",
                       rank_label(m, t, r, label, sizeof label), t->name,
                       describe(t, what, sizeof what), a, (unsigned long long)bits);
    }
    c->width[r] = bits / 8;
    c->col[r] = at;
    if (c->rows * c->width[r] != t->bytes) {
      return tool_fail(err, CLI_EXIT_SOFTWARE,
                       "internal error: tensor '%.200s' of rank %zu holds %llu bytes, not %llu",
                       t->name, r, (unsigned long long)t->bytes,
                       (unsigned long long)(c->rows * c->width[r]));
    }
    if (__builtin_add_overflow(at, c->width[r], &at)) {
      return tool_fail(err, CLI_EXIT_DATA, "tensor '%.200s': the merged tensor's size overflows",
                       t->name);
    }
  }
  c->row_bytes = at;
  return 0;
}

/* The merged tensor's shape: the merged (viewed) shape, or after a view, folded back to the
 * parts' trailing dimensions when they divide it, as a cut folds its parts. */
static void merged_shape(ckpt_concat *c, const int64_t *viewed, int ndim, int has_view) {
  const ckpt_tensor *t0 = c->parts[0];
  c->merged.ndim = ndim;
  memcpy(c->shape, viewed, (size_t)ndim * sizeof *viewed);
  if (!has_view || t0->ndim < 1) {
    return;
  }
  uint64_t elements = 1, trailing = 1;
  for (int d = 0; d < ndim; d++) {
    elements *= (uint64_t)viewed[d]; /* checked by ckpt_dtype_size */
  }
  for (int d = 1; d < t0->ndim; d++) {
    trailing *= (uint64_t)t0->shape[d];
  }
  if (trailing != 0 && elements % trailing == 0) {
    c->merged.ndim = t0->ndim;
    memcpy(c->shape, t0->shape, (size_t)t0->ndim * sizeof *c->shape);
    c->shape[0] = (int64_t)(elements / trailing);
  }
}

int ckpt_concat_prepare(const ckpt_model *m, const ckpt_tensor *const *parts, size_t count,
                        const ckpt_cut *view, int64_t axis, ckpt_concat *c, tool_error *err) {
  memset(c, 0, sizeof *c);
  c->count = count;
  c->parts = parts;
  c->col = calloc(count + 1, sizeof *c->col);
  c->width = calloc(count + 1, sizeof *c->width);
  uint64_t *lengths = calloc(count + 1, sizeof *lengths);
  if (c->col == NULL || c->width == NULL || lengths == NULL) {
    free(lengths);
    return tool_oom(err, "joining a tensor");
  }
  const ckpt_tensor *t0 = parts[0];
  int ndim = view != NULL ? view->view_ndim : t0->ndim;
  int rc = 0;
  if (axis < -(int64_t)ndim || axis >= (int64_t)ndim) {
    char what[500];
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "tensor '%.200s' (%s): axis %lld is out of range [%d, %d] for %s of %d "
                   "dimensions",
                   t0->name, describe(t0, what, sizeof what), (long long)axis, -ndim, ndim - 1,
                   view != NULL ? "its view" : "tensors", ndim);
  }
  size_t a = (size_t)(axis < 0 ? axis + ndim : axis);
  int64_t s0[CKPT_MAX_RANK], s[CKPT_MAX_RANK];
  uint64_t sum = 0;
  for (size_t r = 0; r < count && rc == 0; r++) {
    rc = part_shape(m, parts, r, count, view, a, r == 0 ? s0 : s, err);
    if (rc == 0 && r > 0) {
      rc = same_dims(m, parts, r, s0, s, ndim, a, view != NULL, err);
    }
    if (rc == 0) {
      lengths[r] = (uint64_t)(r == 0 ? s0 : s)[a];
      if (__builtin_add_overflow(sum, lengths[r], &sum) || sum > INT64_MAX) {
        rc = tool_fail(err, CLI_EXIT_DATA,
                       "tensor '%.200s': the parts' sizes along axis %zu sum above 2^63-1",
                       t0->name, a);
      }
    }
  }
  int unknown = 0;
  for (int d = 0; view != NULL && d < ndim; d++) {
    unknown |= view->view[d] < 0;
  }
  if (rc == 0 && view != NULL && !unknown && (uint64_t)view->view[a] != sum) {
    char text[SHAPE_TEXT_MAX];
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "tensor '%.200s': the view %.300s gives axis %zu the size %lld, but the %zu "
                   "ranks' parts hold %llu along it",
                   t0->name, shape_format(view->view, (size_t)ndim, text, sizeof text), a,
                   (long long)view->view[a], count, (unsigned long long)sum);
  }
  uint32_t block = t0->dtype->block_elems;
  if (rc == 0 && view != NULL && block > 1 && ndim > 0 && (uint64_t)s0[ndim - 1] % block != 0) {
    /* A block lies along the innermost dimension: the view must not make one straddle two of
     * its rows (as for a cut). */
    char text[SHAPE_TEXT_MAX];
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "tensor '%.200s': the view %.300s's innermost dimension %lld is not a whole "
                   "number of %s blocks (%u elements)",
                   t0->name, shape_format(s0, (size_t)ndim, text, sizeof text),
                   (long long)s0[ndim - 1], t0->dtype->name, (unsigned)block);
  }
  uint64_t inner = 1, elements = 0, bytes = 0;
  c->rows = 1;
  for (int d = 0; rc == 0 && d < ndim; d++) {
    if ((size_t)d < a) {
      c->rows *= (uint64_t)s0[d];
    } else if ((size_t)d > a) {
      inner *= (uint64_t)s0[d];
    }
  }
  if (rc == 0) {
    s0[a] = (int64_t)sum;
    if (ckpt_dtype_size(t0->dtype, s0, ndim, &elements, &bytes) == CKPT_SIZE_OVERFLOW) {
      rc = tool_fail(err, CLI_EXIT_DATA, "tensor '%.200s': the merged tensor's size overflows",
                     t0->name);
    }
  }
  if (rc == 0) {
    rc = part_widths(m, c, lengths, inner, a, err);
  }
  free(lengths);
  if (rc != 0) {
    return rc;
  }
  c->merged = *t0;
  c->merged.shape = c->shape;
  c->merged.offset = 0;
  c->merged.bytes = c->rows * c->row_bytes;
  merged_shape(c, s0, ndim, view != NULL);
  return 0;
}

size_t ckpt_concat_spans(const ckpt_concat *c, uint64_t col, uint64_t take, ckpt_span *spans) {
  size_t n = 0;
  for (size_t r = 0; r < c->count && c->rows > 0; r++) {
    uint64_t lo = col > c->col[r] ? col : c->col[r];
    uint64_t end = c->col[r] + c->width[r], hi = col + take < end ? col + take : end;
    if (lo >= hi) {
      continue;
    }
    ckpt_span *s = &spans[n++];
    memset(s, 0, sizeof *s);
    s->src_file = c->parts[r]->file;
    s->src_row = c->parts[r]->offset;
    s->src_stride = c->width[r];
    s->src_col = lo - c->col[r];
    s->take = hi - lo;
    s->dst_offset = lo - col;
    s->dst_stride = take;
    s->rows = c->rows;
    if (c->rows == 1 || (s->take == s->src_stride && s->take == s->dst_stride)) {
      /* One contiguous range on both sides. */
      s->src_row += s->src_col;
      s->src_col = 0;
      s->dst_offset *= c->rows;
      s->take *= c->rows;
      s->src_stride = s->dst_stride = s->take;
      s->rows = 1;
    }
  }
  return n;
}

void ckpt_concat_free(ckpt_concat *c) {
  free(c->col);
  free(c->width);
  memset(c, 0, sizeof *c);
}
