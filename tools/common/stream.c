/* Streaming split: bounded-memory, in-order I/O. */
#include "stream.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "io.h"

/* Default input chunk size; also the size of the staging buffer for gathered pieces. Small
 * enough for the gathered pieces to still be in the cache when write() copies them out. */
#define DEFAULT_CHUNK_BYTES ((size_t)1 << 20)
/* The chunk size of this run (stream_chunk_bytes), set when a split starts. */
static size_t g_chunk_bytes = DEFAULT_CHUNK_BYTES;
#define GROUP_SIZE STREAM_GROUP_SIZE
/* Upper bound on one copy_file_range call, so progress and signals are seen regularly. */
#define COPY_CALL_MAX ((size_t)64 << 20)

typedef struct stream_ctx {
  const stream_job *job;
  unsigned char *chunk;
  unsigned char *staging;
  int use_copy_file_range;
  stream_out outs[GROUP_SIZE];
  uint64_t *col; /* byte offset of each output's piece within a row */
} stream_ctx;

size_t stream_chunk_bytes(void) {
  const char *text = getenv("CLEAVE_CHUNK_BYTES");
  if (text == NULL || text[0] == '\0') {
    return DEFAULT_CHUNK_BYTES;
  }
  char *end = NULL;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || text[0] < '0' || text[0] > '9' || value < STREAM_MIN_CHUNK ||
      value > STREAM_MAX_CHUNK) {
    cli_warning("CLEAVE_CHUNK_BYTES='%s' is not a number from %u to %lu: using %zu", text,
                (unsigned)STREAM_MIN_CHUNK, (unsigned long)STREAM_MAX_CHUNK, DEFAULT_CHUNK_BYTES);
    return DEFAULT_CHUNK_BYTES;
  }
  return (size_t)value;
}

static int read_failed(const char *path, int e) {
  if (e == 0) {
    return cli_error(CLI_EXIT_IOERR,
                     "'%s' ended before its data did (was it truncated while "
                     "being read?)",
                     path);
  }
  return cli_error(CLI_EXIT_IOERR, "cannot read '%s': %s", path, strerror(e));
}

static int write_failed(const out_set *outputs, size_t i, int e) {
  char path[PATH_MAX + 96];
  out_set_final_path(outputs, i, path, sizeof path);
  return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", path,
                   strerror(e != 0 ? e : ENOSPC));
}

int stream_read(int fd, const char *path, void *buf, size_t size, uint64_t offset) {
  size_t got = 0;
  int e = io_pread_all(fd, buf, size, offset, &got);
  return e != 0 || got < size ? read_failed(path, e) : 0;
}

int stream_write(const out_set *outputs, size_t i, int fd, uint64_t *pos, const void *buf,
                 size_t size) {
  size_t done = 0;
  int e = io_pwrite_all(fd, buf, size, *pos, &done);
  *pos += done;
  return e != 0 ? write_failed(outputs, i, e) : 0;
}

static int read_full(const stream_ctx *c, void *buf, size_t size, uint64_t offset) {
  return stream_read(c->job->in.fd, c->job->in.path, buf, size, offset);
}

static int write_full(stream_ctx *c, size_t i, const void *buf, size_t size) {
  stream_out *o = &c->outs[i % GROUP_SIZE];
  return stream_write(c->job->sink.outputs, i, o->fd, &o->pos, buf, size);
}

/* Copies size bytes at input offset `from` to the end of output i. */
static int copy_range(stream_ctx *c, size_t i, uint64_t from, uint64_t size) {
  stream_out *o = &c->outs[i % GROUP_SIZE];
  while (size > 0 && c->use_copy_file_range) {
    loff_t in_off = (loff_t)from;
    loff_t out_off = (loff_t)o->pos;
    size_t want = size < COPY_CALL_MAX ? (size_t)size : COPY_CALL_MAX;
    ssize_t n = copy_file_range(c->job->in.fd, &in_off, o->fd, &out_off, want, 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
                  errno == EBADF || errno == ETXTBSY || errno == EPERM)) {
      /* Not possible between these files: fall back to read and write for the rest. */
      c->use_copy_file_range = 0;
      break;
    }
    if (n < 0) {
      /* Whether the read or the write side failed is not known; ENOSPC, EFBIG and EDQUOT
       * can only come from the output. */
      int e = errno;
      if (e == ENOSPC || e == EFBIG || e == EDQUOT) {
        return write_failed(c->job->sink.outputs, i, e);
      }
      char path[PATH_MAX + 96];
      out_set_final_path(c->job->sink.outputs, i, path, sizeof path);
      return cli_error(CLI_EXIT_IOERR, "copying from '%s' to output '%s' failed: %s",
                       c->job->in.path, path, strerror(e));
    }
    if (n == 0) {
      return read_failed(c->job->in.path, 0);
    }
    from += (uint64_t)n;
    size -= (uint64_t)n;
    o->pos += (uint64_t)n;
    progress_add(c->job->sink.progress, (uint64_t)n);
  }
  while (size > 0) {
    size_t want = size < g_chunk_bytes ? (size_t)size : g_chunk_bytes;
    int rc = read_full(c, c->chunk, want, from);
    if (rc == 0) {
      rc = write_full(c, i, c->chunk, want);
    }
    if (rc != 0) {
      return rc;
    }
    from += want;
    size -= want;
    progress_add(c->job->sink.progress, want);
  }
  return 0;
}

/* Copies the group's pieces one by one: for pieces too large to batch rows. */
static int copy_by_piece(stream_ctx *c, size_t g0, size_t g1) {
  const stream_job *job = c->job;
  uint64_t row_bytes = c->col[job->count];
  for (uint64_t r = 0; r < job->rows; r++) {
    for (size_t i = g0; i < g1; i++) {
      uint64_t size = c->col[i + 1] - c->col[i];
      int rc =
          size > 0 ? copy_range(c, i, job->in.data_offset + r * row_bytes + c->col[i], size) : 0;
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

/* A library plan that splits `rows` rows of the group's span (packed one after the other) into
 * the group's outputs, each output's rows packed too: the gather of one batch. */
static int batch_plan(const stream_ctx *c, size_t g0, size_t g1, size_t rows, cleave_plan **plan) {
  const stream_job *job = c->job;
  int64_t shape[2] = {(int64_t)rows, (int64_t)((c->col[g1] - c->col[g0]) / job->unit)};
  static const int64_t axis = 1;
  cleave_op op = cleave_op_variadic_split(&axis, job->lengths + g0, g1 - g0);
  cleave_type type = {CLEAVE_BYTES, (int64_t)job->unit};
  cleave_plan_options options = cleave_plan_options_default();
  /* write() reads the gathered bytes right after: keep them in the cache. */
  options.nontemporal_bytes = INT64_MAX;
  cleave_error err;
  if (cleave_plan_create_with(&op, type, shape, 2, &options, plan, &err) != CLEAVE_OK) {
    return cli_library_error(&err, "internal error: planning a batch copy");
  }
  return 0;
}

/* Reads batches of rows (the group's span of each), gathers each output's pieces with the
 * library's copy kernels, and writes each output's part of the batch with one call. */
static int copy_by_batch(stream_ctx *c, size_t g0, size_t g1) {
  const stream_job *job = c->job;
  uint64_t row_bytes = c->col[job->count];
  uint64_t span_start = c->col[g0];
  size_t span = (size_t)(c->col[g1] - span_start);
  size_t per_batch = g_chunk_bytes / span;
  size_t last = (size_t)(job->rows % per_batch);
  cleave_plan *full = NULL, *tail = NULL;
  void **outs = calloc(g1 - g0, sizeof *outs);
  int rc = outs == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
  if (rc == 0 && job->rows >= per_batch) {
    rc = batch_plan(c, g0, g1, per_batch, &full);
  }
  if (rc == 0 && last != 0) {
    rc = batch_plan(c, g0, g1, last, &tail);
  }
  for (uint64_t r0 = 0; r0 < job->rows && rc == 0; r0 += per_batch) {
    size_t k = job->rows - r0 < per_batch ? (size_t)(job->rows - r0) : per_batch;
    uint64_t base = job->in.data_offset + r0 * row_bytes + span_start;
    if (span == row_bytes) {
      rc = read_full(c, c->chunk, k * span, base);
    } else {
      for (size_t r = 0; r < k && rc == 0; r++) {
        rc = read_full(c, c->chunk + r * span, span, base + r * row_bytes);
      }
    }
    for (size_t i = g0; i < g1; i++) {
      outs[i - g0] = c->staging + k * (size_t)(c->col[i] - span_start);
    }
    cleave_error err;
    if (rc == 0 &&
        cleave_plan_run(k == per_batch ? full : tail, c->chunk, outs, &err) != CLEAVE_OK) {
      rc = cli_library_error(&err, "internal error: copying a batch");
    }
    for (size_t i = g0; i < g1 && rc == 0; i++) {
      size_t piece = (size_t)(c->col[i + 1] - c->col[i]);
      rc = piece == 0 ? 0 : write_full(c, i, outs[i - g0], k * piece);
    }
    if (rc == 0) {
      progress_add(job->sink.progress, (uint64_t)k * span);
    }
  }
  cleave_plan_destroy(full);
  cleave_plan_destroy(tail);
  free(outs);
  return rc;
}

/* The data of outputs g0..g1-1 (the frame of stream_outputs opened them). */
static int split_group(void *ctx, size_t g0, size_t g1, stream_out *outs) {
  stream_ctx *c = ctx;
  (void)outs; /* c->outs, indexed by output modulo the group size */
  if (c->job->rows == 0 || c->col[g1] == c->col[g0]) {
    return 0;
  }
  return stream_by_piece(c->col, g0, g1, g_chunk_bytes) ? copy_by_piece(c, g0, g1)
                                                        : copy_by_batch(c, g0, g1);
}

int stream_split(const stream_job *job) {
  stream_ctx c;
  memset(&c, 0, sizeof c);
  c.job = job;
  c.use_copy_file_range = 1;
  g_chunk_bytes = stream_chunk_bytes();
  c.chunk = malloc(g_chunk_bytes);
  c.staging = malloc(g_chunk_bytes);
  c.col = calloc(job->count + 1, sizeof *c.col);
  int rc = 0;
  if (c.chunk == NULL || c.staging == NULL || c.col == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing the copy");
  }
  /* The caller checked that the sizes fit in int64, so these sums cannot overflow. */
  for (size_t i = 0; i < job->count && rc == 0; i++) {
    c.col[i + 1] = c.col[i] + (uint64_t)job->lengths[i] * job->unit;
  }
  if (rc == 0) {
    rc = stream_outputs(&job->sink, job->count, c.outs, split_group, &c);
  }
  free(c.chunk);
  free(c.staging);
  free(c.col);
  return rc;
}

/* One group of outputs: open, headers, body, close. */
static int run_group(const stream_sink *sink, size_t g0, size_t g1, stream_out *outs,
                     stream_group_fn body, void *ctx) {
  size_t opened = 0;
  int rc = 0;
  for (size_t i = g0; i < g1 && rc == 0; i++) {
    stream_out *o = &outs[i - g0];
    o->pos = 0;
    rc = out_set_open(sink->outputs, i, &o->fd);
    if (rc == 0) {
      opened++;
      rc = sink->write_header(sink->header_ctx, i, o->fd, &o->pos);
    }
  }
  if (rc == 0) {
    rc = body(ctx, g0, g1, outs);
  }
  for (size_t i = g0; i < g0 + opened; i++) {
    int close_rc = out_set_close(sink->outputs, i, outs[i - g0].fd);
    if (rc == 0) {
      rc = close_rc;
    }
  }
  return rc;
}

int stream_outputs(const stream_sink *sink, size_t count, stream_out *outs, stream_group_fn body,
                   void *ctx) {
  int rc = 0;
  for (size_t g0 = 0; g0 < count && rc == 0; g0 += GROUP_SIZE) {
    size_t g1 = count - g0 < GROUP_SIZE ? count : g0 + GROUP_SIZE;
    rc = run_group(sink, g0, g1, outs, body, ctx);
  }
  return rc;
}

int stream_by_piece(const uint64_t *col, size_t g0, size_t g1, size_t chunk) {
  uint64_t min_piece = UINT64_MAX;
  for (size_t i = g0; i < g1; i++) {
    uint64_t piece = col[i + 1] - col[i];
    if (piece > 0 && piece < min_piece) {
      min_piece = piece;
    }
  }
  /* Batching rows only pays when several rows fit in a chunk and pieces are not already large
   * enough for one system call each. */
  return col[g1] - col[g0] > chunk / 2 || min_piece >= chunk / 4;
}
