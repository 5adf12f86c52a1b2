/* The streaming writer: output files in one pass each, lockstep groups of files together. */
#include "ckpt_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_copier.h"
#include "cli_util.h"
#include "stream.h"

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

/* A tensor that is not gathered: one range, or assembled from its spans. */
static int copy_tensor(ckpt_copier *c, ckpt_member *m, const ckpt_out_tensor *t) {
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
      if (gathered(f, t)) {
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
    if (gathered(f, t) && ckpt_out_spans(f, t)->group != 0) {
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
    if (!gathered(f, t)) {
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
    const char *path = c->model->files[i].path;
    c->in_fds[i] = open(path, O_RDONLY | O_CLOEXEC);
    if (c->in_fds[i] < 0) {
      return cli_error(CLI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
    }
    (*opened)++;
    posix_fadvise(c->in_fds[i], 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  return 0;
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
  c.chunk_bytes = stream_chunk_bytes();
  void *chunk = NULL;
  /* Reads land at their offset modulo CKPT_READ_ALIGN from an aligned start. */
  c.chunk =
      posix_memalign(&chunk, CKPT_READ_ALIGN, c.chunk_bytes + CKPT_READ_ALIGN) == 0 ? chunk : NULL;
  c.staging = malloc(c.chunk_bytes);
  c.in_fds = calloc(model->file_count + 1, sizeof *c.in_fds);
  c.io = (io_copier){1, c.chunk, c.chunk_bytes, report};
  int rc = 0;
  size_t opened = 0;
  if (c.chunk == NULL || c.staging == NULL || c.in_fds == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing the copy");
  }
  if (rc == 0) {
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
    close(c.in_fds[i]);
  }
  free(c.in_fds);
  free(c.chunk);
  free(c.staging);
  return rc;
}
