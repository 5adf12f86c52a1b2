/* Quantization companions: a block scale cut with its weight, at the weight's block boundaries. */
#include "ckpt_companion.h"

#include <stdlib.h>
#include <string.h>

#include "shape_format.h"

const ckpt_tensor *ckpt_companion_weight(const ckpt_model *m, const ckpt_tensor *t, size_t *index) {
  size_t n = strlen(t->name), k = strlen(CKPT_SCALE_SUFFIX);
  if (n <= k || strcmp(t->name + n - k, CKPT_SCALE_SUFFIX) != 0) {
    return NULL;
  }
  /* The first tensor whose name is t's without the suffix: by_name is sorted byte-wise. */
  size_t lo = 0, hi = m->tensor_count, len = n - k;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    /* A name that starts with the weight's is not before it. */
    if (strncmp(m->by_name[mid]->name, t->name, len) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  /* The weight itself (no byte after its name) comes first of the names that start with it. */
  if (lo < m->tensor_count && strncmp(m->by_name[lo]->name, t->name, len) == 0 &&
      m->by_name[lo]->name[len] == '\0') {
    *index = lo;
    return m->by_name[lo];
  }
  return NULL;
}

/* The scale's shape in blocks of q->block that weight `w` (2 dimensions at least) needs. */
static void needed_shape(const ckpt_quant *q, const ckpt_tensor *w, int64_t *shape) {
  int n = w->ndim;
  memcpy(shape, w->shape, (size_t)n * sizeof *shape);
  shape[n - 2] = (w->shape[n - 2] + q->block[0] - 1) / q->block[0];
  shape[n - 1] = (w->shape[n - 1] + q->block[1] - 1) / q->block[1];
}

int ckpt_companion_check(const ckpt_quant *q, const ckpt_tensor *w, const ckpt_tensor *s,
                         const char *where, tool_error *err) {
  if (!q->has_block) {
    return 0;
  }
  char ws[SHAPE_TEXT_MAX], ss[SHAPE_TEXT_MAX], need[SHAPE_TEXT_MAX];
  shape_format(w->shape, (size_t)w->ndim, ws, sizeof ws);
  shape_format(s->shape, (size_t)s->ndim, ss, sizeof ss);
  if (w->ndim < 2) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' (%s %.300s) is the scale of '%.200s' (%s %.300s), which "
                     "has fewer than 2 dimensions and so no quantization blocks of [%lld, %lld]",
                     where, s->name, s->dtype->name, ss, w->name, w->dtype->name, ws,
                     (long long)q->block[0], (long long)q->block[1]);
  }
  int64_t shape[CKPT_MAX_RANK];
  needed_shape(q, w, shape);
  if (s->ndim == w->ndim && memcmp(s->shape, shape, (size_t)w->ndim * sizeof *shape) == 0) {
    return 0;
  }
  return tool_fail(err, CLI_EXIT_DATA,
                   "%s: tensor '%.200s' (%s %.300s) is the scale of '%.200s' (%s %.300s), which "
                   "in quantization blocks of [%lld, %lld] needs a scale of shape %.300s",
                   where, s->name, s->dtype->name, ss, w->name, w->dtype->name, ws,
                   (long long)q->block[0], (long long)q->block[1],
                   shape_format(shape, (size_t)w->ndim, need, sizeof need));
}

/* The shape `cut` sees `t` as: its view with the -1 resolved, or t's own shape. Returns -1 when
 * the view does not hold t's elements (a cut that was accepted always does). */
static int seen_shape(const ckpt_cut *cut, const ckpt_tensor *t, int64_t *shape, int *ndim) {
  uint64_t elements = 1;
  for (int d = 0; d < t->ndim; d++) {
    elements *= (uint64_t)t->shape[d]; /* the reader checked that this cannot overflow */
  }
  if (!cut->has_view) {
    *ndim = t->ndim;
    memcpy(shape, t->shape, (size_t)t->ndim * sizeof *shape);
    return 0;
  }
  *ndim = cut->view_ndim;
  uint64_t known = 1;
  int unknown = -1;
  for (int d = 0; d < cut->view_ndim; d++) {
    shape[d] = cut->view[d];
    if (cut->view[d] < 0) {
      unknown = d;
    } else if (__builtin_mul_overflow(known, (uint64_t)cut->view[d], &known)) {
      return -1;
    }
  }
  if (unknown >= 0) {
    if (known == 0 || elements % known != 0) {
      return -1;
    }
    shape[unknown] = (int64_t)(elements / known);
    return 0;
  }
  return known == elements ? 0 : -1;
}

/* The lengths of the parts of a cut of a dimension of `dim` (malloc'd, `*count` of them). */
static int64_t *cut_lengths(const ckpt_cut *cut, int64_t dim, size_t *count) {
  *count = cut->has_parts ? (size_t)cut->parts : (size_t)cut->length_count;
  int64_t *len = calloc(*count + 1, sizeof *len);
  if (len == NULL) {
    return NULL;
  }
  int64_t rest = dim;
  size_t unknown = *count;
  for (size_t i = 0; i < *count; i++) {
    len[i] = cut->has_parts ? dim / cut->parts : cut->lengths[i];
    if (len[i] < 0) {
      unknown = i;
    } else {
      rest -= len[i];
    }
  }
  if (unknown < *count) {
    len[unknown] = rest;
  }
  return len;
}

/* The view of the scale when the weight's cut has one: the weight's view with its last two
 * dimensions counted in blocks, which it can only be when they hold whole blocks. */
static int scale_view(const ckpt_quant *q, const ckpt_tensor *w, const ckpt_tensor *s,
                      const int64_t *shape, int k, const char *where, ckpt_cut *scut,
                      tool_error *err) {
  int64_t out = w->shape[w->ndim - 2], in = w->shape[w->ndim - 1];
  int64_t b0 = q->block[0], b1 = q->block[1];
  if (k < 2 || shape[k - 1] != in || shape[k - 2] % b0 != 0 || out % b0 != 0) {
    char view[SHAPE_TEXT_MAX], ws[SHAPE_TEXT_MAX];
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' (%s %.300s) viewed as %.300s: the view does not keep "
                     "whole quantization blocks of [%lld, %lld], so its scale '%.200s' cannot "
                     "be cut with it (a view of a block-quantized weight keeps its %lld columns "
                     "innermost and whole blocks of %lld rows in the dimension before)",
                     where, w->name, w->dtype->name,
                     shape_format(w->shape, (size_t)w->ndim, ws, sizeof ws),
                     shape_format(shape, (size_t)k, view, sizeof view), (long long)b0,
                     (long long)b1, s->name, (long long)in, (long long)b0);
  }
  scut->has_view = 1;
  scut->view_ndim = k;
  memcpy(scut->view, shape, (size_t)k * sizeof *shape);
  scut->view[k - 2] = shape[k - 2] / b0;
  scut->view[k - 1] = (in + b1 - 1) / b1;
  return 0;
}

int ckpt_companion_cut(const ckpt_quant *q, const ckpt_tensor *w, const ckpt_tensor *s,
                       const ckpt_cut *wcut, const char *where, ckpt_cut *scut, tool_error *err) {
  memset(scut, 0, sizeof *scut);
  int rc = 0;
  int64_t shape[CKPT_MAX_RANK];
  int k = 0;
  if (seen_shape(wcut, w, shape, &k) != 0 || k < 1) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "internal error: tensor '%.200s' cannot be viewed",
                     w->name);
  }
  int64_t axis = wcut->axis < 0 ? wcut->axis + k : wcut->axis;
  /* A cut of the leading dimensions (stacked experts) leaves the blocks whole, whatever size. */
  if (!q->has_block && (wcut->has_view || axis >= k - 2)) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' is cut, and its scale '%.200s' must be cut with it at "
                     "the boundaries of its quantization blocks, whose size is not known: give "
                     "--quant-block B0,B1 (quantization_config.weight_block_size in the "
                     "config.json of a model folder)",
                     where, w->name, s->name);
  }
  if (wcut->has_view) {
    rc = scale_view(q, w, s, shape, k, where, scut, err);
    if (rc != 0) {
      return rc;
    }
  }
  int64_t block = axis == k - 1 ? q->block[1] : axis == k - 2 ? q->block[0] : 1;
  size_t count = 0;
  int64_t dim = shape[axis];
  int64_t *len = cut_lengths(wcut, dim, &count);
  if (len == NULL) {
    return tool_oom(err, "cutting a scale");
  }
  int64_t start = 0;
  for (size_t i = 0; i < count; i++) {
    int64_t end = start + len[i];
    if (start % block != 0 && start != dim) {
      char ws[SHAPE_TEXT_MAX];
      rc = tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%.200s' (%s %.300s): part %zu would start at %s %lld of axis "
                     "%lld, inside a quantization block of %lld %s (weight_block_size [%lld, "
                     "%lld]): its scale '%.200s' cannot be cut with it",
                     where, w->name, w->dtype->name,
                     shape_format(w->shape, (size_t)w->ndim, ws, sizeof ws), i,
                     axis == k - 1 ? "column" : "row", (long long)start, (long long)axis,
                     (long long)block, axis == k - 1 ? "columns" : "rows", (long long)q->block[0],
                     (long long)q->block[1], s->name);
      free(len);
      return rc;
    }
    /* Counted in blocks; the last part of the axis takes the last block, whole or not. */
    len[i] = (end + block - 1) / block - (start + block - 1) / block;
    start = end;
  }
  scut->axis = axis;
  scut->has_parts = 0;
  scut->lengths = len;
  scut->length_count = (int64_t)count;
  return 0;
}

int ckpt_companion_join_cut(const ckpt_tensor *merged, const ckpt_tensor *const *parts,
                            size_t count, const ckpt_cut *view, int64_t axis, ckpt_cut *wcut,
                            tool_error *err) {
  memset(wcut, 0, sizeof *wcut);
  if (view != NULL) {
    wcut->has_view = view->has_view;
    wcut->view_ndim = view->view_ndim;
    memcpy(wcut->view, view->view, sizeof wcut->view);
  }
  int64_t shape[CKPT_MAX_RANK];
  int k = 0;
  if (seen_shape(wcut, merged, shape, &k) != 0 || k < 1) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "internal error: tensor '%.200s' cannot be viewed",
                     merged->name);
  }
  int64_t a = axis < 0 ? axis + k : axis;
  /* A part's extent on the axis: its elements over those of one step of the axis. */
  uint64_t step = 1;
  for (int d = 0; d < k; d++) {
    step *= d == a ? 1 : (uint64_t)shape[d];
  }
  wcut->lengths = calloc(count + 1, sizeof *wcut->lengths);
  if (wcut->lengths == NULL) {
    return tool_oom(err, "joining a scale");
  }
  for (size_t r = 0; r < count; r++) {
    uint64_t elements = 1;
    for (int d = 0; d < parts[r]->ndim; d++) {
      elements *= (uint64_t)parts[r]->shape[d];
    }
    /* No elements in a step (a zero dimension): the first part holds the whole axis. */
    wcut->lengths[r] = step != 0 ? (int64_t)(elements / step) : r == 0 ? shape[a] : 0;
  }
  wcut->axis = a;
  wcut->length_count = (int64_t)count;
  return 0;
}

void ckpt_companion_cut_free(ckpt_cut *cut) {
  free(cut->lengths);
  cut->lengths = NULL;
  cut->length_count = 0;
}
