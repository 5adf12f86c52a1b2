/*
 * The parts of one cut, gathered from blocks of their source's rows read once.
 *
 * The parts are gathered by the library (a VariadicSplit-1 plan run on each block of rows, as
 * tools/common/stream.c does for .npy) rather than by a loop of memcpy per row and part.
 * Measured on 2026-11-24 (2 shared cores, RelWithDebInfo, ext4, page cache):
 *   - bench/st_bench.sh -m 512 -r 5 (558 MB, 291 tensors; shard -n 4 gathers o_proj and
 *     down_proj, rows of 1280 and 3456 bytes), three alternating runs of each build, ratio of
 *     the median to cp's in the same run: memcpy loop 1.31x, 1.44x, 1.60x (median 1.44x);
 *     library 1.32x, 1.50x, 1.26x (median 1.32x). The run is I/O-bound and the difference is
 *     below the noise; the syscalls are identical (strace -c: 1356 copy_file_range, 776 pwrite,
 *     196 pread). Task clock, 7 alternating runs each: 219 ms (memcpy) vs 222 ms (library),
 *     medians, within the 215-225 ms spread.
 *   - The gather alone, in cache (1 MiB block, median of 41 x 200 runs): rows of 1280 bytes in
 *     4 parts 42.7 us (library, "avx2 rows") vs 47.8 us (memcpy loop), 0.89x; 3456 bytes in 4
 *     parts 38.6 vs 42.4 us, 0.91x; 12288 bytes in 3 parts 40.3 vs 35.4 us, 1.14x.
 * Neither is measurably faster on the benchmark: the library's is kept, so that one engine
 * copies for every command.
 */
#include <stdlib.h>

#include "ckpt_copier.h"
#include "cli_util.h"
#include "stream.h"

/* A library plan for the gather of one block: `rows` rows of `row_bytes` bytes (`unit`-byte
 * elements) cut along axis 1 into the parts' columns, each output's rows packed. This is
 * VariadicSplit-1 on [rows, row_bytes / unit], run by the library's copy kernels. */
static int block_plan(size_t rows, uint64_t row_bytes, uint64_t unit, const int64_t *lengths,
                      size_t count, cleave_plan **plan) {
  int64_t shape[2] = {(int64_t)rows, (int64_t)(row_bytes / unit)};
  static const int64_t axis = 1;
  cleave_op op = cleave_op_variadic_split(&axis, lengths, count);
  cleave_type type = {CLEAVE_BYTES, (int64_t)unit};
  cleave_plan_options options = cleave_plan_options_default();
  /* write() reads the gathered bytes right after: keep them in the cache. */
  options.nontemporal_bytes = INT64_MAX;
  cleave_error err;
  if (cleave_plan_create_with(&op, type, shape, 2, &options, plan, &err) != CLEAVE_OK) {
    return cli_library_error(&err, "internal error: planning a gather");
  }
  return 0;
}

static int dest_by_col(const void *a, const void *b) {
  uint64_t x = ((const ckpt_dest *)a)->span->src_col, y = ((const ckpt_dest *)b)->span->src_col;
  return x < y ? -1 : x > y;
}

/* The parts must be disjoint columns of the same rows (sorted by column): returns 0 with the
 * largest unit that divides every column boundary and the bytes the parts take of a row, or -1
 * when they are not. */
static int common_unit(const ckpt_dest *dests, size_t count, uint64_t *unit_out, uint64_t *taken) {
  const ckpt_span *lead = dests[0].span;
  uint64_t row = lead->src_stride, pos = 0, unit = row;
  *taken = 0;
  for (size_t i = 0; i < count; i++) {
    const ckpt_span *s = dests[i].span;
    if (s->src_file != lead->src_file || s->src_row != lead->src_row || s->rows != lead->rows ||
        s->src_stride != row || s->src_col < pos || s->take > row - s->src_col ||
        s->dst_offset != 0 || s->dst_stride != s->take) {
      return -1;
    }
    unit = stream_gcd(stream_gcd(unit, s->src_col - pos), s->take);
    pos = s->src_col + s->take;
    *taken += s->take;
  }
  *unit_out = stream_gcd(unit, row - pos);
  return 0;
}

/* Rows longer than half a buffer: each part of each row is large enough for one call. */
static int gather_long_rows(ckpt_copier *c, ckpt_dest *dests, size_t count) {
  const ckpt_span *lead = dests[0].span;
  for (uint64_t r = 0; r < lead->rows; r++) {
    for (size_t i = 0; i < count; i++) {
      const ckpt_span *s = dests[i].span;
      if (s->take == 0) {
        continue;
      }
      int rc = ckpt_stream_copy(c, dests[i].s, s->src_file,
                                s->src_row + r * s->src_stride + s->src_col, s->take, dests[i].at);
      if (rc != 0) {
        return rc;
      }
      dests[i].at += s->take;
    }
  }
  return 0;
}

/*
 * Short rows in blocks of whole rows read once, gathered into every part by one run of a library
 * plan whose outputs are the parts and the columns between them that are no part's (a group of
 * ranks of a lockstep plan holds adjacent parts, so those are at most two), and each part's block
 * written with one call.
 */
static int gather_blocks(ckpt_copier *c, ckpt_dest *dests, size_t count, uint64_t unit) {
  const ckpt_span *lead = dests[0].span;
  uint64_t row = lead->src_stride, pos = 0;
  size_t segs = 2 * count + 1, n = 0;
  int64_t *lengths = calloc(segs, sizeof *lengths);
  uint64_t *cols = calloc(segs, sizeof *cols);
  size_t *part_of = calloc(count, sizeof *part_of);
  void **outs = calloc(segs, sizeof *outs);
  cleave_plan *full = NULL, *tail = NULL;
  int rc = lengths == NULL || cols == NULL || part_of == NULL || outs == NULL
               ? cli_error(CLI_EXIT_SOFTWARE, "out of memory gathering the parts of '%s'",
                           dests[0].tensor->source->name)
               : 0;
  for (size_t i = 0; rc == 0 && i <= count; i++) {
    uint64_t col = i < count ? dests[i].span->src_col : row;
    if (col > pos) {
      cols[n] = pos;
      lengths[n++] = (int64_t)((col - pos) / unit);
    }
    if (i < count) {
      part_of[i] = n;
      cols[n] = col;
      lengths[n++] = (int64_t)(dests[i].span->take / unit);
      pos = col + dests[i].span->take;
    }
  }
  size_t per = c->chunk_bytes / (size_t)row;
  size_t last = (size_t)(lead->rows % per);
  if (rc == 0 && lead->rows >= per) {
    rc = block_plan(per, row, unit, lengths, n, &full);
  }
  if (rc == 0 && last != 0) {
    rc = block_plan(last, row, unit, lengths, n, &tail);
  }
  for (uint64_t r0 = 0; r0 < lead->rows && rc == 0; r0 += per) {
    size_t k = lead->rows - r0 < per ? (size_t)(lead->rows - r0) : per;
    uint64_t from = lead->src_row + r0 * row;
    unsigned char *in = ckpt_read_buffer(c, from);
    rc = ckpt_read_at(c, lead->src_file, in, k * (size_t)row, from);
    /* Output s's k rows land at k times its column offset: the blocks back to back. */
    for (size_t s = 0; s < n; s++) {
      outs[s] = c->staging + k * (size_t)cols[s];
    }
    cleave_error err;
    if (rc == 0 && cleave_plan_run(k == per ? full : tail, in, outs, &err) != CLEAVE_OK) {
      rc = cli_library_error(&err, "internal error: gathering a block of rows");
    }
    for (size_t i = 0; i < count && rc == 0; i++) {
      size_t take = (size_t)dests[i].span->take;
      if (take > 0) {
        rc = ckpt_stream_write(c, dests[i].s, outs[part_of[i]], k * take, dests[i].at);
        dests[i].at += k * take;
      }
    }
  }
  cleave_plan_destroy(full);
  cleave_plan_destroy(tail);
  free(lengths);
  free(cols);
  free(part_of);
  free(outs);
  return rc;
}

int ckpt_gather(ckpt_copier *c, ckpt_dest *dests, size_t count) {
  qsort(dests, count, sizeof *dests, dest_by_col);
  uint64_t unit = 0, taken = 0;
  if (common_unit(dests, count, &unit, &taken) != 0) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: the parts of '%s' overlap",
                     dests[0].tensor->source->name);
  }
  if (taken == 0 || dests[0].span->rows == 0) {
    return 0; /* only empty parts here (a part taking whole rows was copied as a range) */
  }
  if (dests[0].span->src_stride > c->chunk_bytes / 2) {
    return gather_long_rows(c, dests, count);
  }
  return gather_blocks(c, dests, count, unit);
}
