/* Streaming split: bounded-memory, in-order I/O. */
#include "stream.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cli_util.h"

/* Input chunk size; also the size of the staging buffer for gathered pieces. */
#define CHUNK_BYTES ((size_t)4 << 20)
/* Outputs open at the same time; more outputs are processed in groups. */
#define GROUP_SIZE 256
/* Pieces at least this large are written straight from the input chunk (pwritev); smaller ones
 * are gathered into one buffer first, which costs less than one iovec per tiny piece. */
#define IOVEC_PIECE_MIN 4096
/* Upper bound on one copy_file_range call, so progress and signals are seen regularly. */
#define COPY_CALL_MAX ((size_t)64 << 20)

typedef struct out_state {
  int fd;
  uint64_t pos;
} out_state;

typedef struct stream_ctx {
  const stream_job *job;
  unsigned char *chunk;
  unsigned char *staging;
  int use_copy_file_range;
  out_state outs[GROUP_SIZE];
  uint64_t *col; /* byte offset of each output's piece within a row */
} stream_ctx;

static int read_failed(const stream_ctx *c, int e) {
  if (e == 0) {
    return cli_error(CLI_EXIT_IOERR,
                     "'%s' ended before its data did (was it truncated while "
                     "being read?)",
                     c->job->in_path);
  }
  return cli_error(CLI_EXIT_IOERR, "cannot read '%s': %s", c->job->in_path, strerror(e));
}

static int write_failed(const stream_ctx *c, size_t i, int e) {
  char path[PATH_MAX + 96];
  out_set_final_path(c->job->outputs, i, path, sizeof path);
  return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", path,
                   strerror(e != 0 ? e : ENOSPC));
}

static int read_full(const stream_ctx *c, void *buf, size_t size, uint64_t offset) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(c->job->in_fd, (char *)buf + done, size - done, (off_t)(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return read_failed(c, n == 0 ? 0 : errno);
    }
    done += (size_t)n;
  }
  return 0;
}

static int write_full(stream_ctx *c, size_t i, const void *buf, size_t size) {
  out_state *o = &c->outs[i % GROUP_SIZE];
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(o->fd, (const char *)buf + done, size - done, (off_t)o->pos);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return write_failed(c, i, n == 0 ? 0 : errno);
    }
    done += (size_t)n;
    o->pos += (uint64_t)n;
  }
  return 0;
}

/* Writes iov[0..count) in order, resuming after partial writes. Modifies iov. */
static int writev_full(stream_ctx *c, size_t i, struct iovec *iov, int count) {
  out_state *o = &c->outs[i % GROUP_SIZE];
  while (count > 0) {
    int batch = count < IOV_MAX ? count : IOV_MAX;
    ssize_t n = pwritev(o->fd, iov, batch, (off_t)o->pos);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return write_failed(c, i, n == 0 ? 0 : errno);
    }
    o->pos += (uint64_t)n;
    size_t left = (size_t)n;
    while (count > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      iov++;
      count--;
    }
    if (count > 0) {
      iov->iov_base = (char *)iov->iov_base + left;
      iov->iov_len -= left;
    }
  }
  return 0;
}

/* Copies size bytes at input offset `from` to the end of output i. */
static int copy_range(stream_ctx *c, size_t i, uint64_t from, uint64_t size) {
  out_state *o = &c->outs[i % GROUP_SIZE];
  while (size > 0 && c->use_copy_file_range) {
    loff_t in_off = (loff_t)from;
    loff_t out_off = (loff_t)o->pos;
    size_t want = size < COPY_CALL_MAX ? (size_t)size : COPY_CALL_MAX;
    ssize_t n = copy_file_range(c->job->in_fd, &in_off, o->fd, &out_off, want, 0);
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
        return write_failed(c, i, e);
      }
      return cli_error(CLI_EXIT_IOERR, "copying from '%s' to output %zu failed: %s",
                       c->job->in_path, i, strerror(e));
    }
    if (n == 0) {
      return read_failed(c, 0);
    }
    from += (uint64_t)n;
    size -= (uint64_t)n;
    o->pos += (uint64_t)n;
    progress_add(c->job->progress, (uint64_t)n);
  }
  while (size > 0) {
    size_t want = size < CHUNK_BYTES ? (size_t)size : CHUNK_BYTES;
    int rc = read_full(c, c->chunk, want, from);
    if (rc == 0) {
      rc = write_full(c, i, c->chunk, want);
    }
    if (rc != 0) {
      return rc;
    }
    from += want;
    size -= want;
    progress_add(c->job->progress, want);
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
      int rc = size > 0 ? copy_range(c, i, job->data_offset + r * row_bytes + c->col[i], size) : 0;
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

/* Reads batches of rows (the group's span of each) and writes each output's pieces. */
static int copy_by_batch(stream_ctx *c, size_t g0, size_t g1) {
  const stream_job *job = c->job;
  uint64_t row_bytes = c->col[job->count];
  uint64_t span_start = c->col[g0];
  size_t span = (size_t)(c->col[g1] - span_start);
  size_t per_batch = CHUNK_BYTES / span;
  struct iovec iov[IOV_MAX];
  for (uint64_t r0 = 0; r0 < job->rows; r0 += per_batch) {
    size_t k = job->rows - r0 < per_batch ? (size_t)(job->rows - r0) : per_batch;
    uint64_t base = job->data_offset + r0 * row_bytes + span_start;
    int rc = 0;
    if (span == row_bytes) {
      rc = read_full(c, c->chunk, k * span, base);
    } else {
      for (size_t r = 0; r < k && rc == 0; r++) {
        rc = read_full(c, c->chunk + r * span, span, base + r * row_bytes);
      }
    }
    if (rc != 0) {
      return rc;
    }
    for (size_t i = g0; i < g1 && rc == 0; i++) {
      size_t piece = (size_t)(c->col[i + 1] - c->col[i]);
      const unsigned char *src = c->chunk + (c->col[i] - span_start);
      if (piece == 0) {
        continue;
      }
      if (k == 1) {
        rc = write_full(c, i, src, piece);
      } else if (piece >= IOVEC_PIECE_MIN) {
        for (size_t r = 0; r < k && rc == 0; r += IOV_MAX) {
          int n = k - r < IOV_MAX ? (int)(k - r) : IOV_MAX;
          for (int v = 0; v < n; v++) {
            iov[v].iov_base = (void *)(src + (r + (size_t)v) * span);
            iov[v].iov_len = piece;
          }
          rc = writev_full(c, i, iov, n);
        }
      } else {
        for (size_t r = 0; r < k; r++) {
          memcpy(c->staging + r * piece, src + r * span, piece);
        }
        rc = write_full(c, i, c->staging, k * piece);
      }
    }
    if (rc != 0) {
      return rc;
    }
    progress_add(job->progress, (uint64_t)k * span);
  }
  return 0;
}

static int run_group(stream_ctx *c, size_t g0, size_t g1) {
  const stream_job *job = c->job;
  size_t opened = 0;
  int rc = 0;
  for (size_t i = g0; i < g1 && rc == 0; i++) {
    out_state *o = &c->outs[i % GROUP_SIZE];
    rc = out_set_open(job->outputs, i, &o->fd);
    if (rc == 0) {
      opened++;
      rc = job->write_header(job->header_ctx, i, o->fd, &o->pos);
    }
  }
  if (rc == 0 && job->rows > 0 && c->col[g1] > c->col[g0]) {
    size_t min_piece = SIZE_MAX;
    for (size_t i = g0; i < g1; i++) {
      uint64_t piece = c->col[i + 1] - c->col[i];
      if (piece > 0 && piece < min_piece) {
        min_piece = (size_t)piece;
      }
    }
    uint64_t span = c->col[g1] - c->col[g0];
    /* Batching rows only pays when several rows fit in a chunk and pieces are not already
     * large enough for one system call each. */
    int by_piece = span > CHUNK_BYTES / 2 || min_piece >= CHUNK_BYTES / 4;
    rc = by_piece ? copy_by_piece(c, g0, g1) : copy_by_batch(c, g0, g1);
  }
  for (size_t i = g0; i < g0 + opened; i++) {
    int close_rc = out_set_close(job->outputs, i, c->outs[i % GROUP_SIZE].fd);
    if (rc == 0) {
      rc = close_rc;
    }
  }
  return rc;
}

int stream_split(const stream_job *job) {
  stream_ctx c;
  memset(&c, 0, sizeof c);
  c.job = job;
  c.use_copy_file_range = 1;
  c.chunk = malloc(CHUNK_BYTES);
  c.staging = malloc(CHUNK_BYTES);
  c.col = calloc(job->count + 1, sizeof *c.col);
  int rc = 0;
  if (c.chunk == NULL || c.staging == NULL || c.col == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing the copy");
  }
  /* The caller checked that the sizes fit in int64, so these sums cannot overflow. */
  for (size_t i = 0; i < job->count && rc == 0; i++) {
    c.col[i + 1] = c.col[i] + (uint64_t)job->lengths[i] * job->unit;
  }
  for (size_t g0 = 0; g0 < job->count && rc == 0; g0 += GROUP_SIZE) {
    size_t g1 = job->count - g0 < GROUP_SIZE ? job->count : g0 + GROUP_SIZE;
    rc = run_group(&c, g0, g1);
  }
  free(c.chunk);
  free(c.staging);
  free(c.col);
  return rc;
}
