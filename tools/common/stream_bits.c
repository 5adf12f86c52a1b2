/* Streaming split of packed data at bit granularity, through the library's bit copy. */
#include "stream_bits.h"

#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

/* What an open output holds beyond its whole bytes (stream_out.pos: where the next one goes). */
typedef struct bits_held {
  uint64_t bits;       /* stream bits appended so far */
  unsigned char carry; /* the unfinished last byte: bits % 8 stream bits, the others zero */
} bits_held;

typedef struct bits_ctx {
  const stream_bits_job *job;
  int64_t bits; /* per element */
  int msb_first;
  size_t chunk;
  unsigned char *window; /* input data bytes [win_start, win_end) */
  uint64_t win_start;
  uint64_t win_end;
  unsigned char *staging;
  uint64_t row_bits;
  uint64_t *col;     /* bit offset of each output's piece in a row; col[count] == row_bits */
  int64_t per_batch; /* rows mode: rows per batch; 0: piece mode */
  stream_out outs[STREAM_GROUP_SIZE];
  bits_held held[STREAM_GROUP_SIZE];
} bits_ctx;

static uint64_t piece_bits(const bits_ctx *c, size_t i) {
  return c->col[i + 1] - c->col[i];
}

/* Makes input data bytes [from, to) (to - from <= chunk) available at `*p`. Reads a whole chunk
 * from `from` when they are not in the window already, so that the small pieces that follow are
 * served from memory. */
static int fetch(bits_ctx *c, uint64_t from, uint64_t to, const unsigned char **p) {
  if (from < c->win_start || to > c->win_end) {
    const stream_bits_job *job = c->job;
    uint64_t end = job->data_bytes - from < c->chunk ? job->data_bytes : from + c->chunk;
    c->win_start = c->win_end = 0;
    int rc = stream_read(job->in.fd, job->in.path, c->window, (size_t)(end - from),
                         job->in.data_offset + from);
    if (rc != 0) {
      return rc;
    }
    c->win_start = from;
    c->win_end = end;
    progress_add(job->sink.progress, end - from);
  }
  *p = c->window + (from - c->win_start);
  return 0;
}

/* Appends to output i the `new_bits` stream bits that `buf` holds after as many leading bits as
 * the output's unfinished byte holds (the library wrote other bits there: they are replaced by
 * the held ones). Writes the whole bytes and keeps the unfinished one. */
static int emit(bits_ctx *c, size_t i, unsigned char *buf, uint64_t new_bits) {
  stream_out *o = &c->outs[i % STREAM_GROUP_SIZE];
  bits_held *h = &c->held[i % STREAM_GROUP_SIZE];
  unsigned held = (unsigned)(h->bits % 8);
  if (held > 0) {
    unsigned mask = c->msb_first ? (0xff00u >> held) & 0xffu : (1u << held) - 1u;
    buf[0] = (unsigned char)((buf[0] & ~mask) | (h->carry & mask));
  }
  uint64_t total = held + new_bits;
  size_t whole = (size_t)(total / 8);
  int rc = whole > 0 ? stream_write(c->job->sink.outputs, i, o->fd, &o->pos, buf, whole) : 0;
  h->carry = total % 8 != 0 ? buf[whole] : 0;
  h->bits += new_bits;
  return rc;
}

/* A plan splitting `rows` rows of the input the same way as the whole. */
static int rows_plan(const bits_ctx *c, int64_t rows, cleave_plan **plan) {
  const stream_bits_job *job = c->job;
  int64_t shape[3] = {rows, job->axis_dim, job->inner};
  static const int64_t axis = 1;
  cleave_op op = cleave_op_variadic_split(&axis, job->lengths, job->count);
  cleave_error err;
  if (cleave_plan_create(&op, job->type, shape, 3, plan, &err) != CLEAVE_OK) {
    return cli_library_error(&err, "internal error: planning a packed batch");
  }
  return 0;
}

/* Rows mode: batches of `per_batch` rows, each starting on a byte boundary of the input and of
 * every output, so that each batch's outputs are appended whole (only the last batch may end
 * inside a byte). Every output of the split is computed; the group's are written. */
static int rows_mode(bits_ctx *c, size_t g0, size_t g1, int64_t per_batch) {
  const stream_bits_job *job = c->job;
  int64_t last = job->outer % per_batch;
  cleave_plan *full = NULL, *tail = NULL;
  void **outs = calloc(job->count == 0 ? 1 : job->count, sizeof *outs);
  int rc = outs == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
  if (rc == 0 && job->outer >= per_batch) {
    rc = rows_plan(c, per_batch, &full);
  }
  if (rc == 0 && last != 0) {
    rc = rows_plan(c, last, &tail);
  }
  for (int64_t r0 = 0; r0 < job->outer && rc == 0; r0 += per_batch) {
    int64_t k = job->outer - r0 < per_batch ? job->outer - r0 : per_batch;
    /* r0 is a multiple of per_batch, so r0 * row_bits is whole bytes. */
    uint64_t from = (uint64_t)r0 * c->row_bits / 8;
    uint64_t to = ((uint64_t)(r0 + k) * c->row_bits + 7) / 8;
    const unsigned char *in = NULL;
    rc = fetch(c, from, to, &in);
    size_t at = 0;
    for (size_t i = 0; i < job->count; i++) {
      outs[i] = c->staging + at;
      at += (size_t)(((uint64_t)k * piece_bits(c, i) + 7) / 8);
    }
    cleave_error err;
    if (rc == 0 && cleave_plan_run(k == per_batch ? full : tail, in, outs, &err) != CLEAVE_OK) {
      rc = cli_library_error(&err, "internal error: copying a packed batch");
    }
    for (size_t i = g0; i < g1 && rc == 0; i++) {
      rc = emit(c, i, outs[i], (uint64_t)k * piece_bits(c, i));
    }
  }
  cleave_plan_destroy(full);
  cleave_plan_destroy(tail);
  free(outs);
  return rc;
}

/* Appends input bits [start, start + count) to output i: a window of at most a chunk. */
static int copy_window(bits_ctx *c, size_t i, uint64_t start, uint64_t count) {
  const stream_bits_job *job = c->job;
  unsigned held = (unsigned)(c->held[i % STREAM_GROUP_SIZE].bits % 8);
  /* The split starts `held` bits early (an element boundary: held is whole elements), so that
   * the piece lands where the output's unfinished byte ends. held <= start: an output never
   * holds more bits than precede its piece in the input. */
  uint64_t first = start - held;
  uint64_t from = first / 8, to = (start + count + 7) / 8;
  const unsigned char *in = NULL;
  int rc = fetch(c, from, to, &in);
  if (rc != 0) {
    return rc;
  }
  int64_t elements = (int64_t)((to - from) * 8) / c->bits;
  int64_t lengths[3] = {(int64_t)(first % 8) / c->bits, (int64_t)(held + count) / c->bits, 0};
  lengths[2] = elements - lengths[0] - lengths[1];
  /* The bits before and after the piece in its first and last byte: at most a byte each. */
  unsigned char before = 0, after = 0;
  void *outs[3] = {&before, c->staging, &after};
  cleave_tensor t = {in, job->type, 1, &elements};
  cleave_error err;
  if (cleave_variadic_split(&t, 0, cleave_values_list(lengths, 3), outs, 3, &err) != CLEAVE_OK) {
    return cli_library_error(&err, "internal error: copying a packed piece");
  }
  return emit(c, i, c->staging, count);
}

/* Piece mode: each output's piece of each row, in windows that fit a chunk. */
static int piece_mode(bits_ctx *c, size_t g0, size_t g1) {
  const stream_bits_job *job = c->job;
  /* A window of n bits, with up to 7 held bits before it and 7 bits of its first and last
   * bytes around it, spans at most n / 8 + 3 bytes. */
  uint64_t max_bits = (uint64_t)(c->chunk - 3) * 8;
  int rc = 0;
  for (int64_t r = 0; r < job->outer && rc == 0; r++) {
    for (size_t i = g0; i < g1 && rc == 0; i++) {
      uint64_t start = (uint64_t)r * c->row_bits + c->col[i];
      uint64_t left = piece_bits(c, i);
      while (left > 0 && rc == 0) {
        uint64_t n = left < max_bits ? left : max_bits;
        rc = copy_window(c, i, start, n);
        start += n;
        left -= n;
      }
    }
  }
  return rc;
}

/* The data of outputs g0..g1-1 (the frame of stream_outputs opened them), then their unfinished
 * last bytes, whose unused bits are zero. */
static int bits_group(void *ctx, size_t g0, size_t g1, stream_out *outs) {
  bits_ctx *c = ctx;
  memset(c->held, 0, sizeof c->held);
  int rc = 0;
  if (c->job->outer > 0 && c->row_bits > 0) {
    rc = c->per_batch > 0 ? rows_mode(c, g0, g1, c->per_batch) : piece_mode(c, g0, g1);
  }
  for (size_t i = g0; i < g1 && rc == 0; i++) {
    bits_held *h = &c->held[i - g0];
    rc = h->bits % 8 != 0 ? stream_write(c->job->sink.outputs, i, outs[i - g0].fd,
                                         &outs[i - g0].pos, &h->carry, 1)
                          : 0;
  }
  return rc;
}

int stream_bits_split(const stream_bits_job *job) {
  bits_ctx c;
  memset(&c, 0, sizeof c);
  c.job = job;
  cleave_bit_order order = CLEAVE_BIT_ORDER_NONE;
  cleave_error err;
  if (cleave_type_bits(job->type, &c.bits, &order, &err) != CLEAVE_OK || c.bits >= 8) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: the bit stream needs a packed type");
  }
  c.msb_first = order == CLEAVE_BIT_ORDER_MSB_FIRST;
  c.chunk = stream_chunk_bytes();
  c.window = malloc(c.chunk);
  /* A batch's outputs take its input's bytes plus at most one unfinished byte each. */
  c.staging = malloc(c.chunk + job->count + 1);
  c.col = calloc(job->count + 1, sizeof *c.col);
  int rc = 0;
  if (c.window == NULL || c.staging == NULL || c.col == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing the copy");
  }
  /* The caller checked that the input's bit count fits in int64: so do these. */
  uint64_t unit = (uint64_t)job->inner * (uint64_t)c.bits;
  uint64_t whole = 8;
  for (size_t i = 0; i < job->count && rc == 0; i++) {
    c.col[i + 1] = c.col[i] + (uint64_t)job->lengths[i] * unit;
    whole = stream_gcd(whole, piece_bits(&c, i) % 8);
  }
  c.row_bits = c.col[job->count];
  /* After `step` rows every output holds whole bytes (and so does the input). */
  uint64_t step = 8 / whole;
  if (c.row_bits > 0 && c.row_bits <= (uint64_t)c.chunk * 8 / step) {
    c.per_batch = (int64_t)((uint64_t)c.chunk * 8 / c.row_bits / step * step);
  }
  size_t groups = (job->count + STREAM_GROUP_SIZE - 1) / STREAM_GROUP_SIZE;
  if (c.per_batch > 0 && groups > 1) {
    /* Rows mode reads the whole input once per group of outputs. */
    job->sink.progress->total *= groups;
  }
  if (rc == 0) {
    rc = stream_outputs(&job->sink, job->count, c.outs, bits_group, &c);
  }
  free(c.window);
  free(c.staging);
  free(c.col);
  return rc;
}
