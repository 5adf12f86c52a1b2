/*
 * Output tensors assembled from several spans (several input files, or a strided destination):
 * what merge (the ranks' columns side by side) and reshard need; split and shard never get here.
 * When the spans share their rows and together fill each output row, blocks of output rows are
 * assembled in the staging buffer and written with one call each, so that memory stays two
 * buffers and each input byte is read once; otherwise every span is copied row by row.
 */
#include <stdlib.h>
#include <string.h>

#include "ckpt_copier.h"
#include "cli_util.h"

/* The bytes of a source row that a block read takes: the piece alone when the source rows hold
 * nothing else, else the whole source row. */
static uint64_t source_row(const ckpt_span *s) {
  return s->src_stride == s->take ? s->take : s->src_stride;
}

static int by_dst_offset(const void *a, const void *b) {
  uint64_t x = (*(const ckpt_span *const *)a)->dst_offset;
  uint64_t y = (*(const ckpt_span *const *)b)->dst_offset;
  return x < y ? -1 : x > y;
}

/* Whether the spans (sorted by dst_offset) share their rows (2 or more) and output row stride,
 * and tile every output row and the whole tensor: then blocks of output rows can be assembled. */
static int tiles_rows(const ckpt_span *const *spans, size_t n, uint64_t bytes) {
  uint64_t rows = spans[0]->rows, stride = spans[0]->dst_stride, at = 0;
  for (size_t i = 0; i < n; i++) {
    if (spans[i]->rows != rows || spans[i]->dst_stride != stride || spans[i]->dst_offset != at) {
      return 0;
    }
    at += spans[i]->take;
  }
  return rows >= 2 && at == stride && rows * stride == bytes;
}

/* Each span by itself, in one call or row by row (spans that do not tile the output rows). */
static int span_by_span(ckpt_copier *c, ckpt_member *m, const ckpt_span *spans, size_t n,
                        uint64_t start) {
  for (size_t i = 0; i < n; i++) {
    const ckpt_span *s = &spans[i];
    for (uint64_t r = 0; r < s->rows && s->take > 0; r++) {
      int rc = ckpt_copy_at(c, m, s->src_file, s->src_row + r * s->src_stride + s->src_col, s->take,
                            start + s->dst_offset + r * s->dst_stride);
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

/* Spans that tile the output rows, rows too long for a block: row by row, each row's pieces in
 * output order, so that the output is written front to back (through its window). */
static int row_by_row(ckpt_copier *c, ckpt_member *m, const ckpt_span *const *spans, size_t n,
                      uint64_t start) {
  uint64_t rows = spans[0]->rows, stride = spans[0]->dst_stride;
  for (uint64_t r = 0; r < rows; r++) {
    for (size_t i = 0; i < n; i++) {
      const ckpt_span *s = spans[i];
      if (s->take == 0) {
        continue;
      }
      int rc = ckpt_copy_at(c, m, s->src_file, s->src_row + r * s->src_stride + s->src_col, s->take,
                            start + r * stride + s->dst_offset);
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

/* Blocks of `per` output rows: each span's rows read into the chunk and put in place in the
 * staging buffer, then the block written. */
static int by_blocks(ckpt_copier *c, ckpt_member *m, const ckpt_span *const *spans, size_t n,
                     uint64_t start, size_t per) {
  uint64_t rows = spans[0]->rows, stride = spans[0]->dst_stride;
  for (uint64_t r0 = 0; r0 < rows; r0 += per) {
    size_t k = rows - r0 < per ? (size_t)(rows - r0) : per;
    for (size_t i = 0; i < n; i++) {
      const ckpt_span *s = spans[i];
      uint64_t src_row = source_row(s);
      uint64_t skip = s->src_stride == s->take ? s->src_col : 0;
      uint64_t from = s->src_row + skip + r0 * s->src_stride;
      unsigned char *in = ckpt_read_buffer(c, from);
      int rc = ckpt_read_at(c, s->src_file, in, k * (size_t)src_row, from);
      if (rc != 0) {
        return rc;
      }
      uint64_t col = s->src_stride == s->take ? 0 : s->src_col;
      for (size_t r = 0; r < k; r++) {
        memcpy(c->staging + r * stride + s->dst_offset, in + r * src_row + col, (size_t)s->take);
      }
    }
    int rc = ckpt_write_at(c, m, c->staging, k * (size_t)stride, start + r0 * stride);
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

int ckpt_assemble(ckpt_copier *c, ckpt_member *m, const ckpt_out_tensor *t) {
  if (t->bytes == 0) {
    return 0;
  }
  const ckpt_out_file *f = &c->plan->files[m->file];
  const ckpt_span *spans = ckpt_out_spans(f, t);
  size_t n = t->span_count;
  uint64_t start = ckpt_tensor_start(c, m, t);
  const ckpt_span **sorted = calloc(n + 1, sizeof *sorted);
  if (sorted == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory assembling tensor '%s'", t->name);
  }
  uint64_t widest = 0;
  for (size_t i = 0; i < n; i++) {
    sorted[i] = &spans[i];
    uint64_t w = source_row(&spans[i]);
    widest = w > widest ? w : widest;
  }
  qsort(sorted, n, sizeof *sorted, by_dst_offset);
  int rc;
  if (n > 0 && tiles_rows(sorted, n, t->bytes)) {
    uint64_t stride = sorted[0]->dst_stride;
    widest = stride > widest ? stride : widest;
    /* Rows longer than half a buffer are large enough to be copied one by one. */
    rc = widest > c->chunk_bytes / 2 ? row_by_row(c, m, sorted, n, start)
                                     : by_blocks(c, m, sorted, n, start, c->chunk_bytes / widest);
  } else {
    rc = span_by_span(c, m, spans, n, start);
  }
  free(sorted);
  return rc;
}
