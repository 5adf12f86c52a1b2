/* Streaming join of packed sub-byte data, bit-exact through the library. */
#include "stream_concat_bits.h"

#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "io.h"

typedef struct bits_ctx {
  const stream_concat_bits_job *job;
  uint64_t bits; /* per element: 1, 2 or 4 */
  size_t chunk_bytes;
  unsigned char *buf;     /* the bytes read */
  unsigned char *mid;     /* piece mode: a window's elements from bit 0 */
  unsigned char *staging; /* the joined bytes */
  int fd;
  uint64_t pos; /* the output byte that holds the `held` elements, or the next byte */
  /* Piece mode: elements in the output's last, partial byte, and that byte. */
  int64_t held;
  unsigned char held_byte;
  char out_path[OUT_PATH_BUF];
  const char *out_name;
} bits_ctx;

static uint64_t row_bits(const bits_ctx *c) {
  uint64_t total = 0;
  for (size_t i = 0; i < c->job->count; i++) {
    total += (uint64_t)c->job->inputs[i].piece * c->bits;
  }
  return total;
}

static int write_out(bits_ctx *c, const unsigned char *data, size_t size) {
  tool_error err;
  if (io_write_full(c->fd, c->out_name, data, size, c->pos, &err) != 0) {
    return tool_report(&err);
  }
  return 0;
}

/* Rows mode: batches of `per_batch` rows (a multiple of `k0`, after which every piece is whole
 * bytes), each read input by input and joined by one library concat. */
static int join_rows(bits_ctx *c, uint64_t per_batch) {
  const stream_concat_bits_job *job = c->job;
  cleave_tensor *tensors = calloc(job->count + 1, sizeof *tensors);
  int64_t *shapes = calloc(2 * job->count + 1, sizeof *shapes);
  int rc = tensors == NULL || shapes == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
  static const int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  uint64_t total = row_bits(c);
  uint64_t rows = (uint64_t)job->rows;
  for (uint64_t r0 = 0; r0 < rows && rc == 0; r0 += per_batch) {
    uint64_t k = rows - r0 < per_batch ? rows - r0 : per_batch;
    size_t used = 0;
    for (size_t i = 0; i < job->count && rc == 0; i++) {
      const stream_concat_bits_input *in = &job->inputs[i];
      uint64_t piece_bits = (uint64_t)in->piece * c->bits;
      /* r0 is a multiple of k0: the batch starts on a byte boundary of every input. Only the
       * last batch may end inside a byte, the input's last. */
      size_t bytes = (size_t)((k * piece_bits + 7) / 8);
      tool_error err;
      if (bytes > 0 &&
          io_read_full(in->in.fd, in->in.path, c->buf + used, bytes,
                       in->in.data_offset + r0 * piece_bits / 8, CLI_EXIT_IOERR, &err) != 0) {
        rc = tool_report(&err);
      }
      shapes[2 * i] = (int64_t)k;
      shapes[2 * i + 1] = in->piece;
      tensors[i].data = bytes > 0 ? c->buf + used : NULL;
      tensors[i].type = job->type;
      tensors[i].rank = 2;
      tensors[i].shape = shapes + 2 * i;
      used += bytes;
    }
    cleave_error lib;
    if (rc == 0 && cleave_concat_run(&op, tensors, job->count, c->staging, &lib) != CLEAVE_OK) {
      rc = cli_library_error(&lib, "internal error: joining packed rows");
    }
    size_t out_bytes = (size_t)((k * total + 7) / 8);
    if (rc == 0) {
      rc = write_out(c, c->staging, out_bytes);
    }
    if (rc == 0) {
      c->pos += out_bytes;
      progress_add(job->sink.progress, out_bytes);
    }
  }
  free(tensors);
  free(shapes);
  return rc;
}

/* Piece mode: appends elements [first, first + n) of input i to the output. */
static int append_window(bits_ctx *c, const stream_concat_bits_input *in, uint64_t first,
                         uint64_t n) {
  const stream_concat_bits_job *job = c->job;
  uint64_t per_byte = 8 / c->bits;
  uint64_t b0 = first / per_byte, b1 = (first + n + per_byte - 1) / per_byte;
  size_t bytes = (size_t)(b1 - b0);
  tool_error err;
  if (io_read_full(in->in.fd, in->in.path, c->buf, bytes, in->in.data_offset + b0, CLI_EXIT_IOERR,
                   &err) != 0) {
    return tool_report(&err);
  }
  uint64_t slots = bytes * per_byte, pre = first - b0 * per_byte, post = slots - pre - n;
  const unsigned char *window = c->buf;
  cleave_error lib;
  if (pre != 0 || post != 0) {
    /* The window's elements, from bit 0: the library drops the ones before and after it. */
    int64_t shape = (int64_t)slots;
    int64_t lengths[3] = {(int64_t)pre, (int64_t)n, (int64_t)post};
    unsigned char before[2], after[2];
    void *parts[3] = {before, c->mid, after};
    cleave_tensor whole = {c->buf, job->type, 1, &shape};
    if (cleave_variadic_split(&whole, 0, cleave_values_list(lengths, 3), parts, 3, &lib) !=
        CLEAVE_OK) {
      return cli_library_error(&lib, "internal error: taking a packed window");
    }
    window = c->mid;
  }
  /* After the elements the output's last byte holds. */
  int64_t shapes[2] = {c->held, (int64_t)n};
  cleave_tensor parts[2] = {{&c->held_byte, job->type, 1, &shapes[0]},
                            {window, job->type, 1, &shapes[1]}};
  static const int64_t axis = 0;
  cleave_concat_op op = cleave_op_concat(&axis);
  if (cleave_concat_run(&op, parts, 2, c->staging, &lib) != CLEAVE_OK) {
    return cli_library_error(&lib, "internal error: joining a packed window");
  }
  uint64_t total = (uint64_t)c->held + n;
  size_t out_bytes = (size_t)((total + per_byte - 1) / per_byte);
  int rc = write_out(c, c->staging, out_bytes);
  if (rc != 0) {
    return rc;
  }
  c->pos += total / per_byte;
  c->held = (int64_t)(total % per_byte);
  c->held_byte = c->held > 0 ? c->staging[total / per_byte] : 0;
  progress_add(job->sink.progress, bytes);
  return 0;
}

static int join_pieces(bits_ctx *c) {
  const stream_concat_bits_job *job = c->job;
  /* A window's bytes, one more at each end, fit in a chunk (at least 64 bytes). */
  uint64_t window = (uint64_t)(c->chunk_bytes - 2) * (8 / c->bits);
  for (uint64_t r = 0; r < (uint64_t)job->rows; r++) {
    for (size_t i = 0; i < job->count; i++) {
      const stream_concat_bits_input *in = &job->inputs[i];
      uint64_t piece = (uint64_t)in->piece;
      for (uint64_t done = 0; done < piece;) {
        uint64_t n = piece - done < window ? piece - done : window;
        int rc = append_window(c, in, r * piece + done, n);
        if (rc != 0) {
          return rc;
        }
        done += n;
      }
    }
  }
  return 0;
}

/* The output's data (the frame of stream_outputs opened it: the one output). */
static int join(void *ctx, size_t g0, size_t g1, stream_out *outs) {
  (void)g0;
  (void)g1;
  bits_ctx *c = ctx;
  c->fd = outs[0].fd;
  c->pos = outs[0].pos;
  const stream_concat_bits_job *job = c->job;
  uint64_t total = row_bits(c);
  if (job->rows == 0 || total == 0) {
    return 0;
  }
  uint64_t g = 0;
  for (size_t i = 0; i < job->count; i++) {
    g = stream_gcd(g, (uint64_t)job->inputs[i].piece * c->bits);
  }
  uint64_t k0 = 8 / stream_gcd(8, g);
  /* Rows mode when k0 rows take at most half a chunk. */
  if (k0 * total <= (uint64_t)c->chunk_bytes * 4) {
    uint64_t per_batch = (uint64_t)c->chunk_bytes * 8 / total / k0 * k0;
    return join_rows(c, per_batch);
  }
  return join_pieces(c);
}

int stream_concat_bits(const stream_concat_bits_job *job) {
  bits_ctx c;
  memset(&c, 0, sizeof c);
  c.job = job;
  int64_t bits = 0;
  cleave_error lib;
  if (cleave_type_bits(job->type, &bits, NULL, &lib) != CLEAVE_OK || bits < 1 || bits >= 8 ||
      8 % bits != 0) {
    return cli_error(CLI_EXIT_SOFTWARE, "internal error: a packed join of a type of %lld bits",
                     (long long)bits);
  }
  c.bits = (uint64_t)bits;
  c.chunk_bytes = stream_chunk_bytes();
  /* Rows mode reads up to one byte more per input than the batch's exact share. */
  size_t extra = job->count + 16;
  c.buf = malloc(c.chunk_bytes + extra);
  c.mid = malloc(c.chunk_bytes + 16);
  c.staging = malloc(c.chunk_bytes + 16);
  int rc = 0;
  if (c.buf == NULL || c.mid == NULL || c.staging == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing the join");
  }
  c.out_name = out_set_final(job->sink.outputs, 0, c.out_path, sizeof c.out_path);
  stream_out out;
  if (rc == 0) {
    rc = stream_outputs(&job->sink, 1, &out, join, &c);
  }
  free(c.buf);
  free(c.mid);
  free(c.staging);
  return rc;
}
