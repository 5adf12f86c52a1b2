/* Streaming join: bounded memory, the output written in order. */
#include "stream_concat.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "byte_swap.h"
#include "cli_util.h"
#include "io.h"
#include "io_copy.h"
#include "stream_transpose.h"

typedef struct join_ctx {
  const stream_concat_job *job;
  size_t chunk_bytes;
  unsigned char *chunk;   /* the inputs' parts of a batch, or one piece's bytes */
  unsigned char *staging; /* a joined batch */
  uint64_t *col;          /* byte offset of each input's piece within an output row */
  int fd;
  uint64_t data_start; /* the output's first data byte */
  uint64_t pos;        /* where the output's next byte goes */
  char out_path[OUT_PATH_BUF];
  const char *out_name; /* the output's final name, for messages */
  io_copier copier;
} join_ctx;

static int is_transposed(const stream_concat_input *in) {
  return in->dims != NULL;
}

/* Appends `size` bytes of input i at `from` to the output, swapping its units when asked. */
static int append_range(join_ctx *c, size_t i, uint64_t from, uint64_t size) {
  const stream_concat_input *in = &c->job->inputs[i];
  tool_error err;
  if (in->swap <= 1) {
    if (io_copy_range(&c->copier, in->in.fd, in->in.path, from, c->fd, c->out_name, c->pos, size,
                      &err) != 0) {
      return tool_report(&err);
    }
    c->pos += size;
    return 0;
  }
  /* A whole number of units per read: pieces are whole elements, and chunks at least 64 bytes. */
  size_t step = c->chunk_bytes - c->chunk_bytes % in->swap;
  while (size > 0) {
    size_t want = size < step ? (size_t)size : step;
    if (io_read_full(in->in.fd, in->in.path, c->chunk, want, from, CLI_EXIT_IOERR, &err) != 0) {
      return tool_report(&err);
    }
    byte_swap_units(c->chunk, want, in->swap);
    if (io_write_full(c->fd, c->out_name, c->chunk, want, c->pos, &err) != 0) {
      return tool_report(&err);
    }
    progress_add(c->job->sink.progress, want);
    from += want;
    size -= want;
    c->pos += want;
  }
  return 0;
}

/* Every piece on its own: for rows too long to batch, or pieces large enough for a call each. */
static int join_by_piece(join_ctx *c) {
  const stream_concat_job *job = c->job;
  for (uint64_t r = 0; r < job->rows; r++) {
    for (size_t i = 0; i < job->count; i++) {
      const stream_concat_input *in = &job->inputs[i];
      if (in->piece == 0) {
        continue;
      }
      if (is_transposed(in)) {
        c->pos += in->piece; /* a hole, filled by the transposition */
        continue;
      }
      int rc = append_range(c, i, in->in.data_offset + r * in->piece, in->piece);
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

/* A library plan that joins `rows` rows of every input (each input's rows packed one after the
 * other, inputs back to back) into `rows` output rows: the gather of one batch. */
static int batch_plan(const join_ctx *c, uint64_t unit, size_t rows, cleave_concat_plan **plan) {
  const stream_concat_job *job = c->job;
  int64_t *shapes = calloc(2 * job->count + 1, sizeof *shapes);
  cleave_tensor *tensors = calloc(job->count + 1, sizeof *tensors);
  int rc = 0;
  if (shapes == NULL || tensors == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory planning a batch join");
  }
  cleave_type type = {CLEAVE_BYTES, (int64_t)unit};
  for (size_t i = 0; i < job->count && rc == 0; i++) {
    shapes[2 * i] = (int64_t)rows;
    shapes[2 * i + 1] = (int64_t)(job->inputs[i].piece / unit);
    tensors[i].data = NULL;
    tensors[i].type = type;
    tensors[i].rank = 2;
    tensors[i].shape = shapes + 2 * i;
  }
  static const int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  cleave_plan_options options = cleave_plan_options_default();
  /* write() reads the joined bytes right after: keep them in the cache. */
  options.nontemporal_bytes = INT64_MAX;
  cleave_error err;
  if (rc == 0 &&
      cleave_concat_plan_create(&op, tensors, job->count, &options, plan, &err) != CLEAVE_OK) {
    rc = cli_library_error(&err, "internal error: planning a batch join");
  }
  free(shapes);
  free(tensors);
  return rc;
}

/* Batches of rows: each input's part read with one call, joined by a plan, written at once. */
static int join_by_batch(join_ctx *c) {
  const stream_concat_job *job = c->job;
  uint64_t row_bytes = c->col[job->count];
  size_t per_batch = c->chunk_bytes / (size_t)row_bytes;
  uint64_t unit = 0;
  for (size_t i = 0; i < job->count; i++) {
    unit = stream_gcd(unit, job->inputs[i].piece);
  }
  size_t last = (size_t)(job->rows % per_batch);
  cleave_concat_plan *full = NULL, *tail = NULL;
  const void **parts = calloc(job->count + 1, sizeof *parts);
  int rc = parts == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
  if (rc == 0 && job->rows >= per_batch) {
    rc = batch_plan(c, unit, per_batch, &full);
  }
  if (rc == 0 && last != 0) {
    rc = batch_plan(c, unit, last, &tail);
  }
  for (uint64_t r0 = 0; r0 < job->rows && rc == 0; r0 += per_batch) {
    size_t k = job->rows - r0 < per_batch ? (size_t)(job->rows - r0) : per_batch;
    for (size_t i = 0; i < job->count && rc == 0; i++) {
      const stream_concat_input *in = &job->inputs[i];
      unsigned char *part = c->chunk + k * (size_t)c->col[i];
      size_t bytes = k * (size_t)in->piece;
      parts[i] = part;
      /* A transposed input's part is whatever the buffer holds: the transposition writes its
       * bytes over it afterwards. */
      if (bytes == 0 || is_transposed(in)) {
        continue;
      }
      tool_error err;
      if (io_read_full(in->in.fd, in->in.path, part, bytes, in->in.data_offset + r0 * in->piece,
                       CLI_EXIT_IOERR, &err) != 0) {
        rc = tool_report(&err);
      }
      byte_swap_units(part, bytes, in->swap);
    }
    cleave_error lib;
    if (rc == 0 && cleave_concat_plan_run(k == per_batch ? full : tail, parts, c->staging, NULL,
                                          &lib) != CLEAVE_OK) {
      rc = cli_library_error(&lib, "internal error: joining a batch");
    }
    size_t bytes = k * (size_t)row_bytes;
    tool_error err;
    if (rc == 0 && io_write_full(c->fd, c->out_name, c->staging, bytes, c->pos, &err) != 0) {
      rc = tool_report(&err);
    }
    if (rc == 0) {
      c->pos += bytes;
      progress_add(job->sink.progress, bytes);
    }
  }
  cleave_concat_plan_destroy(full);
  cleave_concat_plan_destroy(tail);
  free(parts);
  return rc;
}

/* The inputs in the other memory order, each into its holes. */
static int transpose_inputs(join_ctx *c) {
  const stream_concat_job *job = c->job;
  for (size_t i = 0; i < job->count; i++) {
    const stream_concat_input *in = &job->inputs[i];
    if (!is_transposed(in) || in->piece == 0) {
      continue;
    }
    stream_transpose_job t;
    t.in_fd = in->in.fd;
    t.in_path = in->in.path;
    t.in_offset = in->in.data_offset;
    t.dims = in->dims;
    t.rank = in->rank;
    t.element = in->element;
    t.swap = in->swap;
    t.outputs = job->sink.outputs;
    t.out_fd = c->fd;
    t.out_offset = c->data_start + c->col[i];
    t.piece = in->piece;
    t.row_bytes = c->col[job->count];
    t.chunk = c->chunk_bytes;
    t.progress = job->sink.progress;
    int rc = stream_transpose(&t);
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

/* The output's data (the frame of stream_outputs opened it: the one output). */
static int join(void *ctx, size_t g0, size_t g1, stream_out *outs) {
  (void)g0;
  (void)g1;
  join_ctx *c = ctx;
  c->fd = outs[0].fd;
  c->data_start = outs[0].pos;
  c->pos = outs[0].pos;
  const stream_concat_job *job = c->job;
  if (job->rows == 0 || c->col[job->count] == 0) {
    return 0;
  }
  int rc =
      stream_by_piece(c->col, 0, job->count, c->chunk_bytes) ? join_by_piece(c) : join_by_batch(c);
  return rc == 0 ? transpose_inputs(c) : rc;
}

int stream_concat(const stream_concat_job *job) {
  join_ctx c;
  memset(&c, 0, sizeof c);
  c.job = job;
  c.chunk_bytes = stream_chunk_bytes();
  /* Zeroed: a batch's part of a transposed input is written before the transposition fills it. */
  c.chunk = calloc(c.chunk_bytes, 1);
  c.staging = malloc(c.chunk_bytes);
  c.col = calloc(job->count + 1, sizeof *c.col);
  int rc = 0;
  if (c.chunk == NULL || c.staging == NULL || c.col == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing the join");
  }
  /* The caller checked that the sizes fit in int64, so these sums cannot overflow. */
  for (size_t i = 0; i < job->count && rc == 0; i++) {
    c.col[i + 1] = c.col[i] + job->inputs[i].piece;
  }
  c.out_name = rc == 0 ? out_set_final(job->sink.outputs, 0, c.out_path, sizeof c.out_path) : NULL;
  c.copier.in_kernel = 1;
  c.copier.buf = c.chunk;
  c.copier.buf_size = c.chunk_bytes;
  c.copier.report = job->sink.progress;
  stream_out out;
  if (rc == 0) {
    rc = stream_outputs(&job->sink, 1, &out, join, &c);
  }
  free(c.chunk);
  free(c.staging);
  free(c.col);
  return rc;
}
