/* The streaming writer: output files in one pass each, lockstep groups of files together. */
#include "ckpt_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_cast.h"
#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "ckpt_sums.h"
#include "ckpt_writeq.h"
#include "cli_util.h"
#include "io.h"
#include "io_copy.h"
#include "io_source.h"
#include "outputs.h"
#include "progress.h"
#include "stream.h"

/* ---- the writer's state and primitives ---------------------------------------------------- */

/*
 * The state and the primitives of the streaming writer, shared by its two ways of moving strided
 * spans: the gather of one source's parts and the assembly of a tensor from several sources.
 *
 * Every write is positioned (each tensor's offset is known from the plan), and every failure is
 * printed where it happens ("cleave: error: ...") and returned as an exit status, as the output
 * machinery of tools/common does.
 */

/** Reads go to the chunk at the source's offset modulo this (ckpt_read_buffer): the kernel's
 * copy into it is then aligned on both sides (ckpt_read_buffer). */
#define CKPT_READ_ALIGN 64

/** One run of the writer: the plan, its inputs (open), two buffers of chunk_bytes (the chunk
 * CKPT_READ_ALIGN bytes longer), and where the outputs' checksums go (NULL: not computed). */
typedef struct ckpt_copier {
  const ckpt_plan *plan;
  const ckpt_model *model;
  const out_set *out;
  ckpt_file_sums *sums;
  io_source *in;
  unsigned char *chunk, *staging;
  size_t chunk_bytes;
  io_copier io;
  progress *progress;
  ckpt_writeq *wq;
  /* The scale of the FP8 weight last dequantized (ckpt_convert_piece), read once per weight. */
  const ckpt_tensor *scaled, *scale_of;
  unsigned char *scale;
} ckpt_copier;

struct ckpt_member;

/**
 * A sequence of writes into one output file through a window of `span` bytes (a power of two):
 * bytes written one after another gather in `wbuf` (the destination range [wstart, wstart +
 * wlen)) and are passed on when they reach a multiple of `span`; a write elsewhere passes on
 * what is pending first. So the file is written in writes that end on window boundaries
 * (ckpt_read_buffer). A file written in several places at once (the parts of a cut) has
 * a stream per place.
 */
typedef struct ckpt_stream {
  struct ckpt_member *m;
  unsigned char *wbuf;
  uint64_t span, wstart;
  size_t wlen;
} ckpt_stream;

/** An output file being written; `written` counts its bytes, checked against the plan at the
 * end; `out` is its stream; with `hashing`, every byte written is fed to `flight` (its
 * checksums, ckpt_sums.h); its writes go through `wq` (ckpt_writeq.h) unless NULL. */
typedef struct ckpt_member {
  size_t file;
  int fd;
  ckpt_writeq *wq;
  uint64_t written;
  const char *path;
  char path_buf[OUT_PATH_BUF];
  ckpt_stream out;
  int hashing;
  ckpt_flight flight;
} ckpt_member;

/** Makes `s` a stream into member m with a window of `span` bytes. Returns 0, or prints the
 * error and returns CLI_EXIT_SOFTWARE (out of memory). Release with ckpt_stream_free. */
static int ckpt_stream_init(ckpt_stream *s, ckpt_member *m, uint64_t span);

/** Releases the window of `s` (what is pending is lost: flush first). */
static void ckpt_stream_free(ckpt_stream *s);

/** Writes `size` bytes of `buf` at offset `at` of the stream's file. Returns 0 or prints the
 * error and returns CLI_EXIT_IOERR. */
static int ckpt_stream_write(ckpt_copier *c, ckpt_stream *s, const void *buf, size_t size,
                             uint64_t at);

/** Writes the stream's pending bytes. Returns 0 or prints the error and returns
 * CLI_EXIT_IOERR. */
static int ckpt_stream_flush(ckpt_stream *s);

/** Copies `size` bytes at offset `from` of input file `src` to offset `at` of the stream's file:
 * inside the kernel when the offsets agree modulo 64 KiB and the file is not hashed in flight,
 * else read into the chunk and written through the stream. Returns 0 or prints the error and
 * returns CLI_EXIT_IOERR. */
static int ckpt_stream_copy(ckpt_copier *c, ckpt_stream *s, size_t src, uint64_t from,
                            uint64_t size, uint64_t at);

/** ckpt_stream_write and ckpt_stream_copy on member m's stream. */
static int ckpt_write_at(ckpt_copier *c, ckpt_member *m, const void *buf, size_t size, uint64_t at);
static int ckpt_copy_at(ckpt_copier *c, ckpt_member *m, size_t src, uint64_t from, uint64_t size,
                        uint64_t at);

/** Reads `size` bytes at offset `from` of input file `src` into `buf`. Returns 0 or prints the
 * error and returns CLI_EXIT_IOERR (a failed read, or the input shrank since it was read). */
static int ckpt_read_at(ckpt_copier *c, size_t src, void *buf, size_t size, uint64_t from);

/** Where a read of up to chunk_bytes from offset `from` goes: the chunk, at `from` modulo
 * CKPT_READ_ALIGN. */
static unsigned char *ckpt_read_buffer(const ckpt_copier *c, uint64_t from);

/** The file offset where tensor `t` of member m's file starts. */
static uint64_t ckpt_tensor_start(const ckpt_copier *c, const ckpt_member *m,
                                  const ckpt_out_tensor *t);

/** One output tensor of a gather: its one span, written through stream `s` from offset `at`
 * on. */
typedef struct ckpt_dest {
  ckpt_stream *s;
  const ckpt_out_tensor *tensor;
  const ckpt_span *span;
  uint64_t at;
} ckpt_dest;

/**
 * Writes the `count` parts of one cut (spans of one group: columns of the same source rows, each
 * packed into its own output tensor). Long rows go piece by piece; short rows in blocks of whole
 * rows read once, gathered into every part by one run of a library plan. Reorders `dests`.
 * Returns 0 or prints the error and returns an exit status.
 */
static int ckpt_gather(ckpt_copier *c, ckpt_dest *dests, size_t count);

/**
 * Writes tensor `t` of member m's file from its spans, whatever they are (several sources, a
 * strided destination): blocks of output rows assembled in the staging buffer when the spans
 * share their rows, else span by span. Returns 0 or prints the error and returns an exit status.
 */
static int ckpt_assemble(ckpt_copier *c, ckpt_member *m, const ckpt_out_tensor *t);

/*
 * The writer's primitives: positioned reads, writes through each output's window, and range
 * copies, reporting their errors.
 *
 * Why the windows and the two ways of copying a range (measured on 2026-11-28, Linux 6.18 in a
 * 2-vCPU KVM guest, ext4, inputs in the page cache; CPU time of copying a 2.4 GB file, three
 * runs each):
 *   - copy_file_range with the destination at the source's offset, as cp does: 0.66-0.73 s;
 *     shifted by 64 bytes to 4 KiB: 1.02-1.09 s; by 8 bytes (safetensors' headers are padded to
 *     8): 1.59-1.79 s. The kernel moves whole source folios: unless both offsets agree modulo
 *     the folio size, each is written across small destination folios, and a copy whose two
 *     sides disagree modulo 16 runs at half speed.
 *   - pread into a buffer at the source's offset modulo 64, then pwrite from it, in writes that
 *     end on 256 KiB boundaries of the destination: 0.78-0.83 s whatever the shift. Writes that
 *     start anywhere (256 KiB each, not aligned): 1.57-1.69 s: each write's start is built of
 *     small folios. Reading into a buffer not at the source's offset modulo 64: 1.35-1.42 s.
 *     Writes of 1 MiB on 1 MiB boundaries: 0.69-4.6 s, of 512 KiB on 512 KiB boundaries:
 *     0.70-1.76 s (large folios, from memory the host may have taken back).
 * So a range is copied in the kernel when its offsets agree modulo 64 KiB (and its file is not
 * hashed in flight: ckpt_sums.h), and otherwise read and written; every write goes through the
 * output's window, which passes on only writes that end on a window boundary (or the output's last
 * bytes).
 */
/* The windows' alignment in memory: their writes start on window boundaries of the file, and a
 * write from an address that disagrees with its file offset modulo 64 costs about 10% more
 * system time (measured 2026-11-28, 512 MiB in 256 KiB writes: 0.100 s aligned, 0.110-0.114 s
 * shifted by 8 or 16 bytes). Whole windows are written from where the read put them, at the
 * source's offset modulo 64: a copy to realign them costs as much as it saves. */
#define WINDOW_ALIGN 64

/* Source and destination offsets that agree modulo this are copied by the kernel. */
#define KERNEL_ALIGN ((uint64_t)64 << 10)

static int ckpt_stream_init(ckpt_stream *s, ckpt_member *m, uint64_t span) {
  memset(s, 0, sizeof *s);
  s->m = m;
  s->span = span;
  void *wbuf = NULL;
  s->wbuf = posix_memalign(&wbuf, WINDOW_ALIGN, (size_t)span) == 0 ? wbuf : NULL;
  return s->wbuf == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs") : 0;
}

static void ckpt_stream_free(ckpt_stream *s) {
  free(s->wbuf);
  memset(s, 0, sizeof *s);
}

/* Writes `size` bytes of `buf` at `at` of member m's file: through its queue when it has one. */
static int member_write(ckpt_member *m, const void *buf, size_t size, uint64_t at) {
  if (m->wq != NULL) {
    return ckpt_writeq_put(m->wq, m->fd, m->path, buf, size, at);
  }
  tool_error err;
  return io_write_full(m->fd, m->path, buf, size, at, &err) != 0 ? tool_report(&err) : 0;
}

static int ckpt_stream_flush(ckpt_stream *s) {
  int rc = s->wlen > 0 ? member_write(s->m, s->wbuf, s->wlen, s->wstart) : 0;
  s->wlen = 0;
  return rc;
}

static int ckpt_stream_write(ckpt_copier *c, ckpt_stream *s, const void *buf, size_t size,
                             uint64_t at) {
  const unsigned char *p = buf;
  uint64_t span = s->span;
  if (s->m->hashing) {
    ckpt_flight_feed(&s->m->flight, buf, size, at);
  }
  s->m->written += size;
  progress_add(c->progress, size);
  while (size > 0) {
    if (s->wlen > 0 && at != s->wstart + s->wlen) {
      int rc = ckpt_stream_flush(s);
      if (rc != 0) {
        return rc;
      }
    }
    if (s->wlen == 0 && at % span == 0 && size >= span) {
      /* A whole window from a window boundary: written as it is, one window per call (a longer
       * write would make larger folios). */
      int rc = member_write(s->m, p, (size_t)span, at);
      if (rc != 0) {
        return rc;
      }
      p += span;
      at += span;
      size -= (size_t)span;
      continue;
    }
    if (s->wlen == 0) {
      s->wstart = at;
    }
    uint64_t end = (s->wstart / span + 1) * span;
    size_t room = (size_t)(end - s->wstart) - s->wlen;
    size_t n = size < room ? size : room;
    memcpy(s->wbuf + s->wlen, p, n);
    s->wlen += n;
    p += n;
    at += n;
    size -= n;
    if (s->wstart + s->wlen == end) {
      int rc = ckpt_stream_flush(s);
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

static int ckpt_write_at(ckpt_copier *c, ckpt_member *m, const void *buf, size_t size,
                         uint64_t at) {
  return ckpt_stream_write(c, &m->out, buf, size, at);
}

static int ckpt_read_at(ckpt_copier *c, size_t src, void *buf, size_t size, uint64_t from) {
  tool_error err;
  if (io_source_read(&c->in[src], buf, size, from, CLI_EXIT_IOERR, &err) != 0) {
    return tool_report(&err);
  }
  return 0;
}

static unsigned char *ckpt_read_buffer(const ckpt_copier *c, uint64_t from) {
  return c->chunk + from % CKPT_READ_ALIGN;
}

static int ckpt_stream_copy(ckpt_copier *c, ckpt_stream *s, size_t src, uint64_t from,
                            uint64_t size, uint64_t at) {
  if ((at - from) % KERNEL_ALIGN == 0 && !s->m->hashing && c->in[src].http == NULL) {
    tool_error err;
    if (io_copy_range(&c->io, c->in[src].fd, c->model->files[src].path, from, s->m->fd, s->m->path,
                      at, size, &err) != 0) {
      return tool_report(&err);
    }
    s->m->written += size;
    return 0;
  }
  while (size > 0) {
    size_t n = size < c->chunk_bytes ? (size_t)size : c->chunk_bytes;
    /* A full read ends on a window boundary of the destination: the next read then starts a
     * window and is written from where it was read, whole windows without a copy into the
     * stream's window (only a range's first partial window is copied there). */
    n -= n == c->chunk_bytes ? (size_t)((at + n) % s->span) : 0;
    unsigned char *in = ckpt_read_buffer(c, from);
    int rc = ckpt_read_at(c, src, in, n, from);
    rc = rc == 0 ? ckpt_stream_write(c, s, in, n, at) : rc;
    if (rc != 0) {
      return rc;
    }
    from += n;
    at += n;
    size -= n;
  }
  return 0;
}

static int ckpt_copy_at(ckpt_copier *c, ckpt_member *m, size_t src, uint64_t from, uint64_t size,
                        uint64_t at) {
  return ckpt_stream_copy(c, &m->out, src, from, size, at);
}

static uint64_t ckpt_tensor_start(const ckpt_copier *c, const ckpt_member *m,
                                  const ckpt_out_tensor *t) {
  return c->plan->files[m->file].prefix_size + t->begin;
}

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

/* A run of one rank (ckpt_plan.one_rank) reads a column of source rows alone, row by row, when
 * each row holds at least this much of other ranks' columns: a page the storage need not read.
 * Narrower gaps are read with their rows (their pages would be read all the same). */
#define ONE_RANK_SKIP ((uint64_t)4096)

/* Whether span `s` of a run of one rank is read as its columns alone. */
static int columns_alone(const ckpt_copier *c, const ckpt_span *s) {
  return c->plan->one_rank && s->rows > 1 && s->src_stride > s->take &&
         s->src_stride - s->take >= ONE_RANK_SKIP;
}

static int ckpt_gather(ckpt_copier *c, ckpt_dest *dests, size_t count) {
  qsort(dests, count, sizeof *dests, dest_by_col);
  uint64_t unit = 0, taken = 0;
  if (common_unit(dests, count, &unit, &taken) != 0) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: the parts of '%s' overlap",
                     dests[0].tensor->source->name);
  }
  if (taken == 0 || dests[0].span->rows == 0) {
    return 0; /* only empty parts here (a part taking whole rows was copied as a range) */
  }
  if (dests[0].span->src_stride > c->chunk_bytes / 2 ||
      (count == 1 && columns_alone(c, dests[0].span))) {
    return gather_long_rows(c, dests, count);
  }
  return gather_blocks(c, dests, count, unit);
}

/*
 * Output tensors assembled from several spans (several input files, or a strided destination):
 * what merge (the ranks' columns side by side) and reshard need; split and shard never get here.
 * When the spans share their rows and together fill each output row, blocks of output rows are
 * assembled in the staging buffer and written with one call each, so that memory stays two
 * buffers and each input byte is read once; otherwise every span is copied row by row.
 */
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

/* The most spans of one band by_bands assembles (convert's have 2). */
#define BAND_MAX_SPANS 64

/* The spans from `sorted[0]` on that tile one band of the output (rows of one stride starting
 * at the first span's dst_offset, each row the spans' takes in order): how many, or 0 when they
 * tile none. */
static size_t band_spans(const ckpt_span *const *sorted, size_t n) {
  uint64_t rows = sorted[0]->rows, stride = sorted[0]->dst_stride, base = sorted[0]->dst_offset;
  uint64_t at = base;
  for (size_t i = 0; i < n; i++) {
    const ckpt_span *s = sorted[i];
    if (s->rows != rows || s->dst_stride != stride || s->dst_offset != at) {
      return 0;
    }
    at += s->take;
    if (at - base == stride) {
      return rows >= 2 ? i + 1 : 0;
    }
  }
  return 0;
}

typedef struct ckpt_conversion ckpt_conversion;
static int by_bands(ckpt_copier *c, ckpt_member *m, const ckpt_span *const *sorted, size_t n,
                    uint64_t bytes, uint64_t start, const ckpt_conversion *v);

static int ckpt_assemble(ckpt_copier *c, ckpt_member *m, const ckpt_out_tensor *t) {
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
  int alone = 0;
  for (size_t i = 0; i < n; i++) {
    alone = alone || columns_alone(c, sorted[i]);
  }
  if (n > 0 && tiles_rows(sorted, n, t->bytes)) {
    uint64_t stride = sorted[0]->dst_stride;
    widest = stride > widest ? stride : widest;
    /* Rows longer than half a buffer are large enough to be copied one by one; so are the
     * columns a run of one rank reads alone. */
    rc = alone || widest > c->chunk_bytes / 2
             ? row_by_row(c, m, sorted, n, start)
             : by_blocks(c, m, sorted, n, start, c->chunk_bytes / widest);
  } else {
    rc = n > 0 ? by_bands(c, m, sorted, n, t->bytes, start, NULL) : -1;
    rc = rc < 0 ? span_by_span(c, m, spans, n, start) : rc;
  }
  free(sorted);
  return rc;
}

/*
 * Converted tensors (--outtype, ckpt_cast.h): their spans count input bytes on both sides, and
 * every piece read is converted by the library (cleave_cast, cleave_dequantize_fp8_blocks) into
 * the staging buffer, then written at the output's offset (the span's, scaled by the element
 * sizes). Memory stays the two buffers (and a dequantized weight's scale): whole tensors and
 * long rows go in pieces of at most a buffer of output; short rows in blocks of rows, of a
 * source (a span) or of the output (spans that tile its rows, a merge along an inner axis). A
 * cut converted this way reads its source rows once per part, not once for all parts.
 */
typedef struct ckpt_conversion {
  const ckpt_out_tensor *t;
  uint64_t in_size, out_size;
} ckpt_conversion;

/* An output offset of the tensor from a span's (input) one. */
static uint64_t out_bytes(const ckpt_conversion *v, uint64_t in) {
  return in / v->in_size * v->out_size;
}

/* Dequantizes the `bytes` bytes of ggml blocks at `in` (whole blocks) into `out` as the output's
 * type: a few blocks at a time into float32 on the stack, then cast. */
static int ggml_piece(const ckpt_conversion *v, const unsigned char *in, uint64_t bytes,
                      unsigned char *out) {
  const ckpt_out_tensor *t = v->t;
  float f32[4096];
  uint64_t per = sizeof f32 / sizeof *f32 / t->cast_from->block_elems; /* blocks per step */
  cleave_error err;
  for (uint64_t done = 0; done < bytes;) {
    uint64_t n = (bytes - done) / v->in_size < per ? (bytes - done) / v->in_size : per;
    if (n == 0) {
      return cli_error(CLI_EXIT_SOFTWARE, "internal error: tensor '%s' cut inside a %s block",
                       t->name, t->cast_from->name);
    }
    size_t elems = (size_t)(n * t->cast_from->block_elems);
    if (cleave_ggml_dequantize((cleave_ggml_type)t->cast_from->code, in + done,
                               (int64_t)(n * v->in_size), f32, (int64_t)sizeof f32,
                               &err) != CLEAVE_OK) {
      return cli_library_error(&err, "dequantizing a tensor");
    }
    if (cleave_cast(f32, CLEAVE_F32, out + done / v->in_size * v->out_size, t->dtype->lib, elems,
                    &err) != CLEAVE_OK) {
      return cli_library_error(&err, "internal error: casting a tensor");
    }
    done += n * v->in_size;
  }
  return 0;
}

/* Converts the `bytes` input bytes at `in`, which were read from offset `from` of input file
 * `src`, into `out`. */
static int ckpt_convert_piece(ckpt_copier *c, const ckpt_conversion *v, const unsigned char *in,
                              size_t src, uint64_t from, uint64_t bytes, unsigned char *out) {
  const ckpt_out_tensor *t = v->t;
  size_t count = (size_t)(bytes / v->in_size);
  cleave_error err;
  if (t->dequantize == CKPT_DEQUANTIZE_GGML) {
    return ggml_piece(v, in, bytes, out);
  }
  if (!t->dequantize) {
    if (cleave_cast(in, t->cast_from->lib, out, t->dtype->lib, count, &err) != CLEAVE_OK) {
      return cli_library_error(&err, "internal error: casting a tensor");
    }
    return 0;
  }
  const ckpt_tensor *w = c->scaled, *s = c->scale_of;
  /* The weight of the piece before, most often (the rows of one tensor). */
  if ((w == NULL || w->file != src || from < w->offset || from - w->offset >= w->bytes) &&
      ckpt_cast_weight_at(c->model, src, from, &w, &s) != 0) {
    return cli_error(CLI_EXIT_SOFTWARE,
                     "internal error: no FP8 weight with a scale at offset %llu of '%s'",
                     (unsigned long long)from, c->model->files[src].path);
  }
  if (c->scaled != w) {
    /* The scale: small (one number per block), read whole once per weight. */
    free(c->scale);
    c->scaled = NULL;
    c->scale = malloc(s->bytes > 0 ? (size_t)s->bytes : 1);
    if (c->scale == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory reading the scale '%s'", s->name);
    }
    int rc = ckpt_read_at(c, s->file, c->scale, (size_t)s->bytes, s->offset);
    if (rc != 0) {
      return rc;
    }
    c->scaled = w;
    c->scale_of = s;
  }
  const ckpt_quant *q = &c->model->quant;
  int64_t rows = w->shape[w->ndim - 2], cols = w->shape[w->ndim - 1];
  int64_t need = 1;
  for (int i = 0; i < w->ndim - 2; i++) {
    need *= w->shape[i];
  }
  need *= (rows + q->block[0] - 1) / q->block[0] * ((cols + q->block[1] - 1) / q->block[1]);
  if (!s->dtype->movable || (s->dtype->lib != CLEAVE_F32 && s->dtype->lib != CLEAVE_BF16) ||
      (uint64_t)need * (s->dtype->block_bits / 8) != s->bytes) {
    return cli_error(CLI_EXIT_DATA,
                     "'%s': the scale '%s' (%s, %llu bytes) of the FP8 weight '%s' is not one "
                     "F32 or BF16 number per block of [%lld, %lld]",
                     c->model->files[src].path, s->name, s->dtype->name,
                     (unsigned long long)s->bytes, w->name, (long long)q->block[0],
                     (long long)q->block[1]);
  }
  if (cleave_dequantize_fp8_blocks(in, rows, cols, c->scale, s->dtype->lib, q->block[0],
                                   q->block[1], (int64_t)(from - w->offset), count, out,
                                   t->dtype->lib, &err) != CLEAVE_OK) {
    return cli_library_error(&err, "internal error: dequantizing a tensor");
  }
  return 0;
}

/* `bytes` input bytes from offset `from` of input `src`, converted and written at `at` of the
 * member's file, in pieces of at most a buffer on either side. */
static int convert_range(ckpt_copier *c, ckpt_member *m, const ckpt_conversion *v, size_t src,
                         uint64_t from, uint64_t bytes, uint64_t at) {
  uint64_t wider = v->in_size > v->out_size ? v->in_size : v->out_size;
  uint64_t step = c->chunk_bytes / wider * v->in_size; /* input bytes per piece */
  while (bytes > 0) {
    uint64_t n = bytes < step ? bytes : step;
    unsigned char *in = ckpt_read_buffer(c, from);
    int rc = ckpt_read_at(c, src, in, (size_t)n, from);
    rc = rc == 0 ? ckpt_convert_piece(c, v, in, src, from, n, c->staging) : rc;
    rc = rc == 0 ? ckpt_write_at(c, m, c->staging, (size_t)out_bytes(v, n), at) : rc;
    if (rc != 0) {
      return rc;
    }
    from += n;
    at += out_bytes(v, n);
    bytes -= n;
  }
  return 0;
}

/* One span: its rows one by one when they are long (or one), else in blocks of source rows. */
static int convert_span(ckpt_copier *c, ckpt_member *m, const ckpt_conversion *v,
                        const ckpt_span *s, uint64_t start) {
  uint64_t out_take = out_bytes(v, s->take);
  if (s->take == 0 || s->rows == 0) {
    return 0;
  }
  if (s->rows == 1 || s->src_stride > c->chunk_bytes / 2 || out_take > c->chunk_bytes / 2) {
    for (uint64_t r = 0; r < s->rows; r++) {
      int rc = convert_range(c, m, v, s->src_file, s->src_row + r * s->src_stride + s->src_col,
                             s->take, start + out_bytes(v, s->dst_offset + r * s->dst_stride));
      if (rc != 0) {
        return rc;
      }
    }
    return 0;
  }
  uint64_t per = c->chunk_bytes / (s->src_stride > out_take ? s->src_stride : out_take);
  for (uint64_t r0 = 0; r0 < s->rows; r0 += per) {
    uint64_t k = s->rows - r0 < per ? s->rows - r0 : per;
    uint64_t from = s->src_row + r0 * s->src_stride;
    unsigned char *in = ckpt_read_buffer(c, from);
    int rc = ckpt_read_at(c, s->src_file, in,
                          (size_t)((k - 1) * s->src_stride + s->src_col + s->take), from);
    for (uint64_t r = 0; r < k && rc == 0; r++) {
      uint64_t at = r * s->src_stride + s->src_col;
      rc = ckpt_convert_piece(c, v, in + at, s->src_file, from + at, s->take,
                              c->staging + r * out_take);
    }
    if (rc == 0 && s->dst_stride == s->take) {
      rc = ckpt_write_at(c, m, c->staging, (size_t)(k * out_take),
                         start + out_bytes(v, s->dst_offset + r0 * s->take));
    }
    for (uint64_t r = 0; r < k && rc == 0 && s->dst_stride != s->take; r++) {
      rc = ckpt_write_at(c, m, c->staging + r * out_take, (size_t)out_take,
                         start + out_bytes(v, s->dst_offset + (r0 + r) * s->dst_stride));
    }
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

/* Spans that tile the output rows (sorted by dst_offset), short rows: blocks of output rows
 * assembled converted in the staging buffer. */
static int convert_blocks(ckpt_copier *c, ckpt_member *m, const ckpt_conversion *v,
                          const ckpt_span *const *spans, size_t n, uint64_t start, uint64_t per) {
  uint64_t rows = spans[0]->rows, out_stride = out_bytes(v, spans[0]->dst_stride);
  for (uint64_t r0 = 0; r0 < rows; r0 += per) {
    uint64_t k = rows - r0 < per ? rows - r0 : per;
    for (size_t i = 0; i < n; i++) {
      const ckpt_span *s = spans[i];
      uint64_t from = s->src_row + r0 * s->src_stride;
      unsigned char *in = ckpt_read_buffer(c, from);
      int rc = ckpt_read_at(c, s->src_file, in,
                            (size_t)((k - 1) * s->src_stride + s->src_col + s->take), from);
      for (uint64_t r = 0; r < k && rc == 0; r++) {
        uint64_t at = r * s->src_stride + s->src_col;
        rc = ckpt_convert_piece(c, v, in + at, s->src_file, from + at, s->take,
                                c->staging + r * out_stride + out_bytes(v, s->dst_offset));
      }
      if (rc != 0) {
        return rc;
      }
    }
    int rc = ckpt_write_at(c, m, c->staging, (size_t)(k * out_stride), start + r0 * out_stride);
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

/* Spans that tile consecutive bands of the output, each band its own rows (the Q/K rows convert
 * moves: per head, its first half of rows to the even rows and its second half to the odd ones):
 * each band assembled in blocks of its rows as a tensor of its own, converted on the way when `v`
 * is not NULL (the spans then count input bytes). Every band is checked before anything is
 * written: returns -1 when the spans are not such bands (nothing written), else 0 or an exit
 * status. */
static int by_bands(ckpt_copier *c, ckpt_member *m, const ckpt_span *const *sorted, size_t n,
                    uint64_t bytes, uint64_t start, const ckpt_conversion *v) {
  uint64_t at = 0, widest = 0;
  for (size_t i = 0; i < n;) {
    size_t k = sorted[i]->dst_offset == at ? band_spans(sorted + i, n - i) : 0;
    if (k == 0 || k > BAND_MAX_SPANS) {
      return -1;
    }
    uint64_t stride = sorted[i]->dst_stride;
    uint64_t out_stride = v != NULL ? out_bytes(v, stride) : stride;
    widest = out_stride > widest ? out_stride : widest;
    for (size_t j = i; j < i + k; j++) {
      uint64_t w = v != NULL ? sorted[j]->src_stride : source_row(sorted[j]);
      widest = w > widest ? w : widest;
    }
    at += sorted[i]->rows * stride;
    i += k;
  }
  if (at != bytes || n < 2 || widest == 0 || widest > c->chunk_bytes / 2) {
    return -1;
  }
  ckpt_span band[BAND_MAX_SPANS];
  const ckpt_span *band_sorted[BAND_MAX_SPANS];
  for (size_t i = 0; i < n;) {
    size_t k = band_spans(sorted + i, n - i);
    uint64_t base = sorted[i]->dst_offset;
    for (size_t j = 0; j < k; j++) {
      band[j] = *sorted[i + j];
      band[j].dst_offset -= base;
      band_sorted[j] = &band[j];
    }
    size_t per = (size_t)(c->chunk_bytes / widest);
    int rc = v != NULL ? convert_blocks(c, m, v, band_sorted, k, start + out_bytes(v, base), per)
                       : by_blocks(c, m, band_sorted, k, start + base, per);
    if (rc != 0) {
      return rc;
    }
    i += k;
  }
  return 0;
}

static int convert_tensor(ckpt_copier *c, ckpt_member *m, const ckpt_out_tensor *t) {
  /* Per block of the input: a float cast's blocks are single elements. */
  ckpt_conversion v = {t, t->cast_from->block_bits / 8,
                       t->dtype->block_bits / 8 * t->cast_from->block_elems};
  if (t->bytes == 0) {
    return 0;
  }
  const ckpt_out_file *f = &c->plan->files[m->file];
  const ckpt_span *spans = ckpt_out_spans(f, t);
  size_t n = t->span_count;
  uint64_t start = ckpt_tensor_start(c, m, t);
  const ckpt_span **sorted = calloc(n + 1, sizeof *sorted);
  if (sorted == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory converting tensor '%s'", t->name);
  }
  uint64_t widest = 0;
  for (size_t i = 0; i < n; i++) {
    sorted[i] = &spans[i];
    widest = spans[i].src_stride > widest ? spans[i].src_stride : widest;
  }
  qsort(sorted, n, sizeof *sorted, by_dst_offset);
  int rc = 0;
  uint64_t in_bytes = t->bytes / v.out_size * v.in_size;
  if (n > 1 && tiles_rows(sorted, n, in_bytes)) {
    uint64_t out_stride = out_bytes(&v, sorted[0]->dst_stride);
    widest = out_stride > widest ? out_stride : widest;
    if (widest <= c->chunk_bytes / 2) {
      rc = convert_blocks(c, m, &v, sorted, n, start, c->chunk_bytes / widest);
      free(sorted);
      return rc;
    }
  }
  rc = n > 1 ? by_bands(c, m, sorted, n, in_bytes, start, &v) : -1;
  if (rc < 0) {
    rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
      rc = convert_span(c, m, &v, sorted[i], start);
    }
  }
  free(sorted);
  return rc;
}

/* The streaming writer: output files in one pass each, lockstep groups of files together. */
/* The window of each of `count` files written together (ckpt_copier.h): 256 KiB, less when
 * many files are written together (16 MiB of windows at most) or the chunk is smaller (tests),
 * a power of two of at least 64 bytes. */
static uint64_t window_span(size_t chunk_bytes, size_t count) {
  uint64_t span = (uint64_t)256 << 10;
  while (span > 64 && (span > chunk_bytes || span * count > ((uint64_t)16 << 20))) {
    span /= 2;
  }
  return span;
}

/* The write queue (ckpt_writeq.h): slots of the largest window, a few of them (measured in
 * bench/RESULTS.md, "Writes on a second thread"). */
#define WRITEQ_SLOT_BYTES ((size_t)256 << 10)
#define WRITEQ_SLOTS 4

/* A tensor whose one span is a column of its source's rows, packed: a part of a cut. */
static int gathered(const ckpt_out_file *f, const ckpt_out_tensor *t) {
  const ckpt_span *s = ckpt_out_spans(f, t);
  return t->span_count == 1 && s->rows != 1 && s->dst_offset == 0 && s->dst_stride == s->take;
}

/* A tensor that is not gathered: one range, or assembled from its spans; converted when it is
 * (whatever its spans). */
static int copy_tensor(ckpt_copier *c, ckpt_member *m, const ckpt_out_tensor *t) {
  if (t->cast_from != NULL) {
    return convert_tensor(c, m, t);
  }
  const ckpt_span *s = ckpt_out_spans(&c->plan->files[m->file], t);
  if (t->span_count == 1 && s->rows == 1) {
    return s->take == 0 ? 0
                        : ckpt_copy_at(c, m, s->src_file, s->src_row + s->src_col, s->take,
                                       ckpt_tensor_start(c, m, t) + s->dst_offset);
  }
  return ckpt_assemble(c, m, t);
}

static ckpt_dest dest_of(const ckpt_copier *c, ckpt_member *m, const ckpt_out_tensor *t) {
  ckpt_dest d = {&m->out, t, ckpt_out_spans(&c->plan->files[m->file], t), 0};
  d.at = ckpt_tensor_start(c, m, t);
  return d;
}

static int by_source(const void *a, const void *b) {
  const ckpt_span *x = ((const ckpt_dest *)a)->span, *y = ((const ckpt_dest *)b)->span;
  if (x->src_file != y->src_file) {
    return x->src_file < y->src_file ? -1 : 1;
  }
  return x->src_row < y->src_row ? -1 : x->src_row > y->src_row;
}

/* The gathered parts of one position of a lockstep group, gathered together per source: a shard
 * cuts one tensor for every file, a reshard may take each file's part from another rank. */
static int gather_by_source(ckpt_copier *c, ckpt_dest *dests, size_t n) {
  qsort(dests, n, sizeof *dests, by_source);
  int rc = 0;
  for (size_t i = 0, j; i < n && rc == 0; i = j) {
    for (j = i + 1; j < n && by_source(&dests[i], &dests[j]) == 0; j++) {
    }
    rc = ckpt_gather(c, dests + i, j - i);
  }
  return rc;
}

/* Writes the data of a lockstep group of files (shard's ranks): position j is the same source
 * tensor in every file, whole (copied to each) or cut (one part per file, gathered from one read
 * of its rows). */
static int copy_lockstep(ckpt_copier *c, ckpt_member *members, size_t count) {
  size_t steps = c->plan->files[members[0].file].tensor_count;
  for (size_t i = 1; i < count; i++) {
    if (c->plan->files[members[i].file].tensor_count != steps) {
      return cli_error(CLI_EXIT_SOFTWARE, "internal error: the files of a lockstep plan differ");
    }
  }
  ckpt_dest *dests = calloc(count, sizeof *dests);
  if (dests == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs");
  }
  int rc = 0;
  for (size_t j = 0; j < steps && rc == 0; j++) {
    size_t n = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
      const ckpt_out_file *f = &c->plan->files[members[i].file];
      const ckpt_out_tensor *t = &f->tensors[j];
      if (gathered(f, t) && t->cast_from == NULL) {
        dests[n++] = dest_of(c, &members[i], t);
      } else {
        rc = copy_tensor(c, &members[i], t);
      }
    }
    rc = rc == 0 ? gather_by_source(c, dests, n) : rc;
  }
  free(dests);
  return rc;
}

static int by_group(const void *a, const void *b) {
  uint64_t x = (*(const ckpt_span *const *)a)->group, y = (*(const ckpt_span *const *)b)->group;
  return x < y ? -1 : x > y;
}

/* The parts of a cut that are all in member m's file, each written through a stream of its own
 * (they are written side by side, block by block). */
static int gather_in_one_file(ckpt_copier *c, ckpt_member *m, ckpt_dest *dests, size_t n) {
  if (n == 1) {
    return ckpt_gather(c, dests, 1);
  }
  ckpt_stream *streams = calloc(n, sizeof *streams);
  int rc = streams == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs") : 0;
  uint64_t span = window_span(c->chunk_bytes, n);
  size_t made = 0;
  for (; made < n && rc == 0; made++) {
    rc = ckpt_stream_init(&streams[made], m, span);
    dests[made].s = &streams[made];
  }
  rc = rc == 0 ? ckpt_gather(c, dests, n) : rc;
  for (size_t i = 0; i < made; i++) {
    int flushed = ckpt_stream_flush(&streams[i]);
    rc = rc == 0 ? flushed : rc;
    ckpt_stream_free(&streams[i]);
  }
  free(streams);
  return rc;
}

/* Writes the data of one file: its tensors in file order; the parts of a cut all at once, when
 * the first of them comes. */
static int copy_single(ckpt_copier *c, ckpt_member *m) {
  const ckpt_out_file *f = &c->plan->files[m->file];
  const ckpt_span **cuts = calloc(f->tensor_count + 1, sizeof *cuts);
  unsigned char *done = calloc(f->tensor_count + 1, 1);
  ckpt_dest *dests = calloc(f->tensor_count + 1, sizeof *dests);
  int rc = cuts == NULL || done == NULL || dests == NULL
               ? cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs")
               : 0;
  /* The gathered spans of a group, found by binary search on the spans sorted by group (a
   * gathered tensor's one span: its index in f->spans is the tensor's first_span). */
  size_t ncuts = 0;
  for (size_t j = 0; j < f->tensor_count && rc == 0; j++) {
    const ckpt_out_tensor *t = &f->tensors[j];
    if (gathered(f, t) && t->cast_from == NULL && ckpt_out_spans(f, t)->group != 0) {
      cuts[ncuts++] = ckpt_out_spans(f, t);
    }
  }
  if (rc == 0) {
    qsort(cuts, ncuts, sizeof *cuts, by_group);
  }
  size_t *tensor_of = rc == 0 ? calloc(f->span_count + 1, sizeof *tensor_of) : NULL;
  if (rc == 0 && tensor_of == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs");
  }
  for (size_t j = 0; j < f->tensor_count && rc == 0; j++) {
    tensor_of[f->tensors[j].first_span] = j;
  }
  for (size_t j = 0; j < f->tensor_count && rc == 0; j++) {
    const ckpt_out_tensor *t = &f->tensors[j];
    if (!gathered(f, t) || t->cast_from != NULL) {
      rc = copy_tensor(c, m, t);
      continue;
    }
    uint64_t group = ckpt_out_spans(f, t)->group;
    if (done[j]) {
      continue;
    }
    if (group == 0) {
      dests[0] = dest_of(c, m, t);
      rc = ckpt_gather(c, dests, 1);
      continue;
    }
    size_t lo = 0, hi = ncuts;
    while (lo < hi) { /* the first span of t's group */
      size_t mid = lo + (hi - lo) / 2;
      if (cuts[mid]->group < group) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    size_t n = 0;
    for (size_t k = lo; k < ncuts && cuts[k]->group == group; k++) {
      size_t owner = tensor_of[cuts[k] - f->spans];
      dests[n++] = dest_of(c, m, &f->tensors[owner]);
      done[owner] = 1;
    }
    rc = gather_in_one_file(c, m, dests, n);
  }
  free(tensor_of);
  free(cuts);
  free(done);
  free(dests);
  return rc;
}

/* The bytes the copy writes into file f: its prefix and every tensor (not the padding). */
static uint64_t bytes_written(const ckpt_out_file *f, uint64_t *tensors) {
  *tensors = 0;
  for (size_t k = 0; k < f->tensor_count; k++) {
    *tensors += f->tensors[k].bytes;
  }
  return f->prefix_size + *tensors;
}

/* After the data: the count of bytes written checked against the plan, and a file whose format
 * pads after its last tensor extended to its size (the padding reads as zeros). */
static int finish_member(ckpt_copier *c, ckpt_member *m) {
  const ckpt_out_file *f = &c->plan->files[m->file];
  uint64_t tensors = 0, want = bytes_written(f, &tensors);
  int rc = ckpt_stream_flush(&m->out);
  if (rc != 0) {
    return rc;
  }
  if (m->written != want) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: output '%s' got %llu bytes, not %llu",
                     m->path, (unsigned long long)m->written, (unsigned long long)want);
  }
  if (tensors != f->data_size && ftruncate(m->fd, (off_t)ckpt_out_file_size(f)) != 0) {
    return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", m->path, strerror(errno));
  }
  if (m->hashing) {
    ckpt_flight_end(&m->flight, f, &c->sums[m->file]);
  }
  return 0;
}

/* Writes files first .. first + count - 1: together when lockstep, else the one file. */
static int copy_group(ckpt_copier *c, size_t first, size_t count, int lockstep) {
  ckpt_member *members = calloc(count, sizeof *members);
  if (members == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs");
  }
  size_t opened = 0;
  uint64_t span = window_span(c->chunk_bytes, count);
  int rc = 0;
  for (size_t i = 0; i < count && rc == 0; i++) {
    const ckpt_out_file *f = &c->plan->files[first + i];
    ckpt_member *m = &members[i];
    m->file = first + i;
    m->wq = c->wq;
    rc = ckpt_stream_init(&m->out, m, span);
    if (rc != 0) {
      break;
    }
    if (c->sums != NULL) {
      rc = ckpt_flight_start(&m->flight, f);
      if (rc != 0) {
        break;
      }
      m->hashing = 1;
    }
    m->path = out_set_final(c->out, first + i, m->path_buf, sizeof m->path_buf);
    rc = out_set_open(c->out, first + i, &m->fd);
    if (rc != 0) {
      break;
    }
    opened++;
    rc = ckpt_write_at(c, m, f->prefix, (size_t)f->prefix_size, 0);
  }
  if (rc == 0) {
    rc = lockstep ? copy_lockstep(c, members, count) : copy_single(c, &members[0]);
  }
  for (size_t i = 0; i < count && rc == 0; i++) {
    rc = finish_member(c, &members[i]);
  }
  if (c->wq != NULL) { /* before the descriptors close */
    int drained = ckpt_writeq_drain(c->wq);
    rc = rc == 0 ? drained : rc;
  }
  for (size_t i = 0; i < opened; i++) {
    int close_rc = out_set_close(c->out, first + i, members[i].fd);
    if (rc == 0) {
      rc = close_rc;
    }
  }
  for (size_t i = 0; i < count; i++) {
    ckpt_stream_free(&members[i].out);
    if (members[i].hashing) {
      ckpt_flight_free(&members[i].flight);
    }
  }
  free(members);
  return rc;
}

static int open_inputs(ckpt_copier *c, size_t *opened) {
  for (size_t i = 0; i < c->model->file_count; i++) {
    tool_error err;
    if (io_source_open(&c->in[i], c->model->files[i].path, NULL, &err) != 0) {
      tool_scrub(&err);
      return tool_report(&err);
    }
    (*opened)++;
    if (c->in[i].fd >= 0) {
      posix_fadvise(c->in[i].fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
  }
  return 0;
}

/* The buffers' size: `chunk`, or more when a converted tensor's block (a ggml block of 256
 * elements dequantized is 1 KiB of float32) would not fit twice on either side. */
static size_t conversion_chunk_bytes(const ckpt_plan *plan, size_t chunk) {
  for (size_t f = 0; f < plan->file_count; f++) {
    for (size_t k = 0; k < plan->files[f].tensor_count; k++) {
      const ckpt_out_tensor *t = &plan->files[f].tensors[k];
      if (t->cast_from == NULL) {
        continue;
      }
      size_t in = t->cast_from->block_bits / 8;
      size_t out = (size_t)(t->dtype->block_bits / 8) * t->cast_from->block_elems;
      size_t need = 2 * (in > out ? in : out);
      chunk = chunk < need ? need : chunk;
    }
  }
  return chunk;
}

int ckpt_copy_plan(const ckpt_plan *plan, const ckpt_model *model, const out_set *out,
                   progress *report, ckpt_file_sums *sums) {
  ckpt_copier c;
  memset(&c, 0, sizeof c);
  c.plan = plan;
  c.model = model;
  c.out = out;
  c.progress = report;
  c.sums = sums;
  c.chunk_bytes = conversion_chunk_bytes(plan, stream_chunk_bytes());
  void *chunk = NULL;
  /* Reads land at their offset modulo CKPT_READ_ALIGN from an aligned start. */
  c.chunk =
      posix_memalign(&chunk, CKPT_READ_ALIGN, c.chunk_bytes + CKPT_READ_ALIGN) == 0 ? chunk : NULL;
  c.staging = malloc(c.chunk_bytes);
  c.in = calloc(model->file_count + 1, sizeof *c.in);
  c.io = (io_copier){1, c.chunk, c.chunk_bytes, report};
  int rc = 0;
  size_t opened = 0;
  if (c.chunk == NULL || c.staging == NULL || c.in == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing the copy");
  }
  if (rc == 0) {
    /* Every input file and a group of outputs are open at once (a merge of many ranks). */
    size_t group =
        plan->lockstep && plan->file_count > 1
            ? (plan->file_count < STREAM_GROUP_SIZE ? plan->file_count : STREAM_GROUP_SIZE)
            : 1;
    io_raise_open_limit(model->file_count + group + 64);
    rc = open_inputs(&c, &opened);
  }
  if (rc == 0) {
    rc = ckpt_writeq_start(&c.wq, WRITEQ_SLOT_BYTES, WRITEQ_SLOTS);
  }
  if (rc == 0 && plan->lockstep) {
    /* At most STREAM_GROUP_SIZE files open at once (the descriptor limit); more files are
     * written in groups, each reading the input once. */
    for (size_t g = 0; g < plan->file_count && rc == 0; g += STREAM_GROUP_SIZE) {
      size_t n =
          plan->file_count - g < STREAM_GROUP_SIZE ? plan->file_count - g : STREAM_GROUP_SIZE;
      rc = copy_group(&c, g, n, 1);
    }
  } else {
    for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
      rc = copy_group(&c, i, 1, 0);
    }
  }
  ckpt_writeq_stop(c.wq);
  for (size_t i = 0; i < opened; i++) {
    io_source_close(&c.in[i]);
  }
  free(c.in);
  free(c.chunk);
  free(c.staging);
  free(c.scale);
  return rc;
}
