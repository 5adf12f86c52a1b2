/* Fused [q; k; v] tensors (a preset's segments on axis 0): each rank takes its share of every
 * segment, so its part is [q_r; k_r; v_r], what an engine that loads fused QKV per rank expects.
 * Every piece is a contiguous range of rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_planner.h"
#include "shape_format.h"

/* The segments in rows: their sizes and where each starts in the whole tensor. */
typedef struct segments {
  int count;
  int64_t rows[3], start[3];
} segments;

static segments layout_of(const ckpt_shard_rule *rule) {
  segments s;
  memset(&s, 0, sizeof s);
  s.count = rule->segment_count;
  int64_t at = 0;
  for (int i = 0; i < s.count; i++) {
    s.rows[i] = rule->segment_heads[i] * rule->head_size;
    s.start[i] = at;
    at += s.rows[i];
  }
  return s;
}

/* The rows before segment i in a part of `ranks` ranks. */
static int64_t part_start(const segments *s, int i, int64_t ranks) {
  int64_t at = 0;
  for (int k = 0; k < i; k++) {
    at += s->rows[k] / ranks;
  }
  return at;
}

/* A span of `rows` whole rows of `row_bytes`, from byte `src` of input file `file` to row
 * `dst_row` of the output. */
static ckpt_span rows_span(size_t file, uint64_t src, int64_t rows, int64_t dst_row,
                           uint64_t row_bytes) {
  ckpt_span span;
  memset(&span, 0, sizeof span);
  span.src_file = file;
  span.src_row = src;
  span.take = span.src_stride = span.dst_stride = (uint64_t)rows * row_bytes;
  span.dst_offset = (uint64_t)dst_row * row_bytes;
  span.rows = 1;
  return span;
}

/* Where rank r of `ranks` lies in the whole fused tensor of `dim` rows: its share of each
 * segment. */
static ckpt_slice share_of(const segments *s, int64_t r, int64_t ranks, int64_t dim) {
  ckpt_slice slice;
  memset(&slice, 0, sizeof slice);
  slice.count = s->count;
  slice.dim = dim;
  for (int i = 0; i < s->count; i++) {
    int64_t share = s->rows[i] / ranks;
    slice.begin[i] = s->start[i] + r * share;
    slice.end[i] = slice.begin[i] + share;
  }
  return slice;
}

/* Adds tensor `like` with its first dimension `rows` to `f`, assembled from `spans`; `slice`
 * says where it lies in the whole tensor. */
static int add_part(ckpt_out_file *f, const ckpt_tensor *like, int64_t rows, uint64_t row_bytes,
                    const ckpt_slice *slice, const ckpt_span *spans, size_t count,
                    tool_error *err) {
  int64_t shape[CKPT_MAX_RANK];
  memcpy(shape, like->shape, (size_t)like->ndim * sizeof *shape);
  shape[0] = rows;
  ckpt_out_tensor o = ckpt_out_whole(like);
  o.shape = shape;
  o.bytes = (uint64_t)rows * row_bytes;
  if (slice != NULL) {
    o.slice = *slice;
  }
  return ckpt_out_file_add(f, &o, spans, count) != 0 ? tool_oom(err, "planning a fused tensor") : 0;
}

int ckpt_fused_shard(const ckpt_model *m, const ckpt_shard_rule *rule, const ckpt_tensor *t,
                     ckpt_plan *plan, tool_error *err) {
  int64_t ranks = (int64_t)plan->file_count;
  int rc = ckpt_rules_check_heads(rule, t, m->files[t->file].path, ranks, err);
  if (rc != 0) {
    return rc;
  }
  segments s = layout_of(rule);
  uint64_t row_bytes = t->bytes / (uint64_t)t->shape[0];
  for (int64_t r = 0; r < ranks && rc == 0; r++) {
    ckpt_span spans[3];
    int64_t at = 0;
    for (int i = 0; i < s.count; i++) {
      int64_t share = s.rows[i] / ranks;
      uint64_t src = t->offset + (uint64_t)(s.start[i] + r * share) * row_bytes;
      spans[i] = rows_span(t->file, src, share, at, row_bytes);
      at += share;
    }
    ckpt_slice slice = share_of(&s, r, ranks, t->shape[0]);
    rc = add_part(&plan->files[r], t, at, row_bytes, &slice, spans, (size_t)s.count, err);
  }
  return rc;
}

/* The parts must be alike: one dtype and one shape (each rank holds an equal share). */
static int parts_alike(const ckpt_model *m, const ckpt_tensor *const *parts, size_t count,
                       tool_error *err) {
  const ckpt_tensor *t0 = parts[0];
  for (size_t r = 1; r < count; r++) {
    const ckpt_tensor *t = parts[r];
    if (t->dtype != t0->dtype || t->ndim != t0->ndim ||
        memcmp(t->shape, t0->shape, (size_t)t->ndim * sizeof *t->shape) != 0) {
      char a[SHAPE_TEXT_MAX], b[SHAPE_TEXT_MAX];
      return tool_fail(err, CLI_EXIT_DATA,
                       "rank %zu ('%.300s'): fused tensor '%.200s' is %s %.300s but %s %.300s in "
                       "rank 0; every rank holds an equal share of its q, k and v",
                       r, m->files[r].path, t->name, t->dtype->name,
                       shape_format(t->shape, (size_t)t->ndim, a, sizeof a), t0->dtype->name,
                       shape_format(t0->shape, (size_t)t0->ndim, b, sizeof b));
    }
  }
  if (t0->ndim < 1 || t0->shape[0] == 0) {
    return tool_fail(err, CLI_EXIT_DATA, "fused tensor '%.200s' has no rows to join", t0->name);
  }
  return 0;
}

/* The spans that copy rows [a, b) of segment i of the joined tensor, held by `count` input
 * ranks, to output row dst_row on: one span per rank that holds some of them. */
static size_t map_rows(const segments *s, int i, int64_t a, int64_t b, int64_t dst_row,
                       const ckpt_tensor *const *parts, size_t count, uint64_t row_bytes,
                       ckpt_span *spans) {
  int64_t share = s->rows[i] / (int64_t)count, local = part_start(s, i, (int64_t)count);
  size_t n = 0;
  for (size_t r = 0; r < count; r++) {
    int64_t from = s->start[i] + (int64_t)r * share;
    int64_t lo = a > from ? a : from, hi = b < from + share ? b : from + share;
    if (lo < hi) {
      uint64_t src = parts[r]->offset + (uint64_t)(local + lo - from) * row_bytes;
      spans[n++] = rows_span(parts[r]->file, src, hi - lo, dst_row + lo - a, row_bytes);
    }
  }
  return n;
}

int ckpt_fused_join(const ckpt_model *m, const ckpt_shard_rule *rule,
                    const ckpt_tensor *const *parts, size_t count, ckpt_out_file *all,
                    ckpt_plan *plan, tool_error *err) {
  int rc = parts_alike(m, parts, count, err);
  if (rc != 0) {
    return rc;
  }
  /* The joined tensor, as its heads are checked: the input ranks must hold whole heads. */
  ckpt_tensor joined = *parts[0];
  int64_t shape[CKPT_MAX_RANK];
  memcpy(shape, joined.shape, (size_t)joined.ndim * sizeof *shape);
  shape[0] *= (int64_t)count;
  joined.shape = shape;
  joined.bytes *= count;
  char place[64];
  snprintf(place, sizeof place, "the merge of %zu ranks", count);
  rc = ckpt_rules_check_heads(rule, &joined, place, (int64_t)count, err);
  int64_t out_ranks = all != NULL ? 1 : (int64_t)plan->file_count;
  if (rc == 0 && all == NULL) {
    rc = ckpt_rules_check_heads(rule, &joined, place, out_ranks, err);
  }
  segments s = layout_of(rule);
  uint64_t row_bytes = joined.bytes / (uint64_t)shape[0];
  ckpt_span *spans = rc == 0 ? calloc(3 * (count + 1), sizeof *spans) : NULL;
  if (rc == 0 && spans == NULL) {
    rc = tool_oom(err, "planning a fused tensor");
  }
  for (int64_t j = 0; j < out_ranks && rc == 0; j++) {
    size_t n = 0;
    int64_t at = 0;
    for (int i = 0; i < s.count; i++) {
      int64_t share = s.rows[i] / out_ranks, a = s.start[i] + j * share;
      n += map_rows(&s, i, a, a + share, at, parts, count, row_bytes, spans + n);
      at += share;
    }
    ckpt_slice slice = share_of(&s, j, out_ranks, shape[0]);
    ckpt_out_file *f = all != NULL ? all : &plan->files[j];
    rc = add_part(f, parts[0], at, row_bytes, all != NULL ? NULL : &slice, spans, n, err);
  }
  free(spans);
  return rc;
}
