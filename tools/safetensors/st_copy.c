/*
 * Moving the data of a plan: bounded memory, one pass per output file.
 *
 * Inner-axis parts are gathered by the library (a cleave plan run on blocks of rows read once,
 * as tools/common/stream.c does for .npy) rather than by a loop of memcpy per row and part, which
 * this file had before. Measured on 2026-11-24 (2 shared cores, RelWithDebInfo, ext4, page cache):
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
#include "st_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "stream.h"

/* Upper bound of one copy_file_range call, so that signals are seen regularly. */
#define COPY_CALL_MAX ((size_t)64 << 20)

typedef struct copier {
  const st_plan *plan;
  const st_model *model;
  const out_set *out;
  int *in_fds;
  unsigned char *chunk, *staging;
  size_t chunk_bytes;
  int use_cfr;
  progress *progress;
} copier;

/* An output file being written: every write is positioned (its pieces' offsets are known from
 * the plan), and `written` counts the bytes, checked against the file's size at the end. */
typedef struct member {
  size_t file;
  int fd;
  uint64_t written;
} member;

/* One output tensor of a gather: piece `piece` of member `m`, written from `at` on. */
typedef struct dest {
  member *m;
  const st_piece *piece;
  uint64_t at;
} dest;

static int write_at(const copier *c, member *m, const void *buf, size_t size, uint64_t *at) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(m->fd, (const char *)buf + done, size - done, (off_t)*at);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      int e = n == 0 ? ENOSPC : errno;
      char pbuf[OUT_PATH_BUF];
      const char *path = out_set_final(c->out, m->file, pbuf, sizeof pbuf);
      return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", path, strerror(e));
    }
    done += (size_t)n;
    *at += (uint64_t)n;
    m->written += (uint64_t)n;
  }
  progress_add(c->progress, size);
  return 0;
}

static int read_at(const copier *c, size_t src, void *buf, size_t size, uint64_t offset) {
  return stream_read(c->in_fds[src], c->model->files[src].path, buf, size, offset);
}

/* Copies `size` bytes at `from` of input `src` to offset `*at` of member m. */
static int copy_range(copier *c, member *m, size_t src, uint64_t from, uint64_t size,
                      uint64_t *at) {
  while (size > 0 && c->use_cfr) {
    loff_t in_off = (loff_t)from, out_off = (loff_t)*at;
    size_t want = size < COPY_CALL_MAX ? (size_t)size : COPY_CALL_MAX;
    ssize_t n = copy_file_range(c->in_fds[src], &in_off, m->fd, &out_off, want, 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
                  errno == EBADF || errno == ETXTBSY || errno == EPERM)) {
      c->use_cfr = 0; /* not between these files: read and write from here on */
      break;
    }
    if (n < 0) {
      int e = errno;
      char pbuf[OUT_PATH_BUF];
      const char *path = out_set_final(c->out, m->file, pbuf, sizeof pbuf);
      return cli_error(CLI_EXIT_IOERR, "copying from '%s' to output '%s' failed: %s",
                       c->model->files[src].path, path, strerror(e));
    }
    if (n == 0) {
      return cli_error(CLI_EXIT_IOERR,
                       "'%s' ended before its data did (was it truncated while "
                       "being read?)",
                       c->model->files[src].path);
    }
    from += (uint64_t)n;
    size -= (uint64_t)n;
    *at += (uint64_t)n;
    m->written += (uint64_t)n;
    progress_add(c->progress, (uint64_t)n);
  }
  while (size > 0) {
    size_t want = size < c->chunk_bytes ? (size_t)size : c->chunk_bytes;
    int rc = read_at(c, src, c->chunk, want, from);
    if (rc == 0) {
      rc = write_at(c, m, c->chunk, want, at);
    }
    if (rc != 0) {
      return rc;
    }
    from += want;
    size -= want;
  }
  return 0;
}

/* The file offset where piece p of member m's file starts. */
static uint64_t piece_start(const copier *c, const member *m, const st_piece *p) {
  return 8 + c->plan->files[m->file].header_size + p->begin;
}

/* A library plan for the gather of one batch: `rows` rows of `row_bytes` bytes (`unit`-byte
 * elements) cut along axis 1 into the destinations' columns, each output's rows packed. This is
 * VariadicSplit-1 on [rows, row_bytes / unit], run by the library's copy kernels. */
static int batch_plan(size_t rows, uint64_t row_bytes, uint64_t unit, const int64_t *lengths,
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
  uint64_t x = ((const dest *)a)->piece->col, y = ((const dest *)b)->piece->col;
  return x < y ? -1 : x > y;
}

/*
 * The parts of one cut tensor (`count` destinations, columns of the same rows of the same
 * source: every part for split, a group's ranks for shard): long rows piece by piece with
 * copy_range; short rows in blocks of whole rows read once, gathered into every part by one run
 * of a library plan (VariadicSplit-1 of the block along its rows, with the columns of parts not
 * in this group as extra outputs that are not written), and each part's block written with one
 * call. The parts of a group of ranks are adjacent, so the extra outputs are at most two.
 */
static int gather(copier *c, dest *dests, size_t count) {
  qsort(dests, count, sizeof *dests, dest_by_col);
  const st_piece *lead = dests[0].piece;
  uint64_t row = lead->row_bytes, pos = 0, unit = row, taken = 0;
  for (size_t i = 0; i < count; i++) {
    const st_piece *p = dests[i].piece;
    if (p->src_file != lead->src_file || p->src_offset != lead->src_offset ||
        p->rows != lead->rows || p->row_bytes != row || p->col < pos || p->take > row - p->col) {
      return cli_error(CLI_EXIT_SOFTWARE, "internal error: the parts of '%s' overlap",
                       lead->source);
    }
    unit = stream_gcd(stream_gcd(unit, p->col - pos), p->take);
    pos = p->col + p->take;
    taken += p->take;
  }
  unit = stream_gcd(unit, row - pos);
  if (taken == 0 || lead->rows == 0) {
    return 0; /* only empty parts here (a part taking whole rows was copied as a range) */
  }
  if (row > c->chunk_bytes / 2) {
    /* Long rows: each part of each row is large enough for one call. */
    for (uint64_t r = 0; r < lead->rows; r++) {
      for (size_t i = 0; i < count; i++) {
        const st_piece *p = dests[i].piece;
        int rc = p->take == 0 ? 0
                              : copy_range(c, dests[i].m, p->src_file,
                                           p->src_offset + r * row + p->col, p->take, &dests[i].at);
        if (rc != 0) {
          return rc;
        }
      }
    }
    return 0;
  }
  /* The plan's outputs: the parts, and the columns between them that are not theirs. */
  size_t segs = 2 * count + 1, n = 0;
  int64_t *lengths = calloc(segs, sizeof *lengths);
  uint64_t *cols = calloc(segs, sizeof *cols);
  size_t *part_of = calloc(count, sizeof *part_of);
  void **outs = calloc(segs, sizeof *outs);
  cleave_plan *full = NULL, *tail = NULL;
  int rc = lengths == NULL || cols == NULL || part_of == NULL || outs == NULL
               ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
               : 0;
  pos = 0;
  for (size_t i = 0; rc == 0 && i <= count; i++) {
    uint64_t col = i < count ? dests[i].piece->col : row;
    if (col > pos) {
      cols[n] = pos;
      lengths[n++] = (int64_t)((col - pos) / unit);
    }
    if (i < count) {
      part_of[i] = n;
      cols[n] = col;
      lengths[n++] = (int64_t)(dests[i].piece->take / unit);
      pos = col + dests[i].piece->take;
    }
  }
  size_t per = c->chunk_bytes / (size_t)row;
  size_t last = (size_t)(lead->rows % per);
  if (rc == 0 && lead->rows >= per) {
    rc = batch_plan(per, row, unit, lengths, n, &full);
  }
  if (rc == 0 && last != 0) {
    rc = batch_plan(last, row, unit, lengths, n, &tail);
  }
  for (uint64_t r0 = 0; r0 < lead->rows && rc == 0; r0 += per) {
    size_t k = lead->rows - r0 < per ? (size_t)(lead->rows - r0) : per;
    rc = read_at(c, lead->src_file, c->chunk, k * (size_t)row, lead->src_offset + r0 * row);
    /* Output s's k rows land at k times its column offset: the blocks back to back. */
    for (size_t s = 0; s < n; s++) {
      outs[s] = c->staging + k * (size_t)cols[s];
    }
    cleave_error err;
    if (rc == 0 && cleave_plan_run(k == per ? full : tail, c->chunk, outs, &err) != CLEAVE_OK) {
      rc = cli_library_error(&err, "internal error: gathering a block of rows");
    }
    for (size_t i = 0; i < count && rc == 0; i++) {
      size_t take = (size_t)dests[i].piece->take;
      rc = take == 0 ? 0 : write_at(c, dests[i].m, outs[part_of[i]], k * take, &dests[i].at);
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

static int by_cut(const void *a, const void *b) {
  const st_piece *x = *(const st_piece *const *)a, *y = *(const st_piece *const *)b;
  return x->cut < y->cut ? -1 : x->cut > y->cut;
}

/* Writes the data of a lockstep group (shard's ranks): step j is the same source tensor in every
 * member, whole (copied to each) or cut (one part per member, gathered from one read). */
static int copy_lockstep(copier *c, member *members, size_t count) {
  dest *dests = calloc(count, sizeof *dests);
  if (dests == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = 0;
  size_t steps = c->plan->files[members[0].file].count;
  for (size_t j = 0; j < steps && rc == 0; j++) {
    size_t n = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
      const st_piece *p = &c->plan->files[members[i].file].pieces[j];
      uint64_t at = piece_start(c, &members[i], p);
      if (p->rows == 1) {
        rc = p->take > 0 ? copy_range(c, &members[i], p->src_file, p->src_offset, p->take, &at) : 0;
      } else {
        dests[n++] = (dest){&members[i], p, at};
      }
    }
    if (rc == 0 && n > 0) {
      rc = gather(c, dests, n);
    }
  }
  free(dests);
  return rc;
}

/* Writes the data of one file (split): whole tensors and contiguous parts in file order; the
 * parts of a tensor cut on an inner axis all at once, when its first part comes. */
static int copy_single(copier *c, member *m) {
  const st_out_file *f = &c->plan->files[m->file];
  const st_piece **cuts = calloc(f->count + 1, sizeof *cuts);
  unsigned char *done = calloc(f->count + 1, 1);
  dest *dests = calloc(f->count + 1, sizeof *dests);
  if (cuts == NULL || done == NULL || dests == NULL) {
    free(cuts);
    free(done);
    free(dests);
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  /* The gathered pieces, grouped by cut (binary search finds a piece's group). */
  size_t ncuts = 0;
  for (size_t j = 0; j < f->count; j++) {
    if (f->pieces[j].rows != 1) {
      cuts[ncuts++] = &f->pieces[j];
    }
  }
  qsort(cuts, ncuts, sizeof *cuts, by_cut);
  int rc = 0;
  for (size_t j = 0; j < f->count && rc == 0; j++) {
    const st_piece *p = &f->pieces[j];
    uint64_t at = piece_start(c, m, p);
    if (p->rows == 1) {
      rc = p->take > 0 ? copy_range(c, m, p->src_file, p->src_offset, p->take, &at) : 0;
      continue;
    }
    if (done[j]) {
      continue;
    }
    size_t lo = 0, hi = ncuts;
    while (lo < hi) { /* the first piece of p's cut */
      size_t mid = lo + (hi - lo) / 2;
      if (cuts[mid]->cut < p->cut) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    size_t n = 0;
    for (size_t k = lo; k < ncuts && cuts[k]->cut == p->cut; k++) {
      dests[n++] = (dest){m, cuts[k], piece_start(c, m, cuts[k])};
      done[cuts[k] - f->pieces] = 1;
    }
    rc = gather(c, dests, n);
  }
  free(cuts);
  free(done);
  free(dests);
  return rc;
}

static int copy_group(copier *c, size_t first, size_t count, int lockstep) {
  member *members = calloc(count, sizeof *members);
  if (members == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  size_t opened = 0;
  int rc = 0;
  for (size_t i = 0; i < count && rc == 0; i++) {
    const st_out_file *f = &c->plan->files[first + i];
    members[i].file = first + i;
    rc = out_set_open(c->out, first + i, &members[i].fd);
    if (rc != 0) {
      break;
    }
    opened++;
    unsigned char len[8];
    for (int b = 0; b < 8; b++) {
      len[b] = (unsigned char)(f->header_size >> (8 * b));
    }
    uint64_t at = 0;
    rc = write_at(c, &members[i], len, 8, &at);
    if (rc == 0) {
      rc = write_at(c, &members[i], f->header, (size_t)f->header_size, &at);
    }
  }
  if (rc == 0) {
    rc = lockstep ? copy_lockstep(c, members, count) : copy_single(c, &members[0]);
  }
  for (size_t i = 0; i < count && rc == 0; i++) {
    const st_out_file *f = &c->plan->files[first + i];
    if (members[i].written != 8 + f->header_size + f->data_size) {
      char pbuf[OUT_PATH_BUF];
      const char *path = out_set_final(c->out, first + i, pbuf, sizeof pbuf);
      rc = cli_error(CLI_EXIT_SOFTWARE, "internal error: output '%s' got %llu bytes, not %llu",
                     path, (unsigned long long)members[i].written,
                     (unsigned long long)(8 + f->header_size + f->data_size));
    }
  }
  for (size_t i = 0; i < opened; i++) {
    int close_rc = out_set_close(c->out, first + i, members[i].fd);
    if (rc == 0) {
      rc = close_rc;
    }
  }
  free(members);
  return rc;
}

int st_copy_plan(const st_plan *plan, const st_model *model, const out_set *out, progress *report) {
  copier c;
  memset(&c, 0, sizeof c);
  c.plan = plan;
  c.model = model;
  c.out = out;
  c.use_cfr = 1;
  c.progress = report;
  c.chunk_bytes = stream_chunk_bytes();
  c.chunk = malloc(c.chunk_bytes);
  c.staging = malloc(c.chunk_bytes);
  c.in_fds = calloc(model->file_count + 1, sizeof *c.in_fds);
  int rc = 0;
  if (c.chunk == NULL || c.staging == NULL || c.in_fds == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing the copy");
  }
  size_t opened = 0;
  for (size_t i = 0; i < model->file_count && rc == 0; i++) {
    c.in_fds[i] = open(model->files[i].path, O_RDONLY | O_CLOEXEC);
    if (c.in_fds[i] < 0) {
      rc = cli_error(CLI_EXIT_NOINPUT, "cannot open '%s': %s", model->files[i].path,
                     strerror(errno));
      break;
    }
    opened++;
    posix_fadvise(c.in_fds[i], 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  if (rc == 0 && plan->lockstep) {
    /* At most STREAM_GROUP_SIZE files open at once (the descriptor limit); more ranks are
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
  for (size_t i = 0; i < opened; i++) {
    close(c.in_fds[i]);
  }
  free(c.in_fds);
  free(c.chunk);
  free(c.staging);
  return rc;
}
