/* The transposition of one input of a join, tile by tile, in bounded memory. */
#include "stream_transpose.h"

#include <stdlib.h>
#include <string.h>

#include "byte_swap.h"
#include "cli_util.h"
#include "io.h"

/* The tiling of the index space. Dims of 1 are dropped first: they change no offset. */
typedef struct tiling {
  size_t m;     /* the axes left */
  int64_t *e;   /* their dims */
  uint64_t *f;  /* element strides in the file (the first axis is contiguous there) */
  uint64_t *c;  /* element strides in C order (the last axis is contiguous in the output) */
  size_t p, q;  /* p <= q: axes < p and > q are whole in a tile, p and q cut in ranges, the
                 * axes between them one index at a time */
  int64_t *t;   /* the tile's extent on each axis (the last tile along an axis may be shorter) */
  int64_t *at;  /* the current tile's first index on each axis */
  int64_t *ext; /* the current tile's extent on each axis */
  int64_t *k;   /* an odometer over the axes */
  uint64_t *g;  /* element strides in the tile buffer (the tile as read: file order) */
} tiling;

typedef struct transpose_ctx {
  const stream_transpose_job *job;
  tiling tl;
  unsigned char *tile; /* the tile as read */
  unsigned char *out;  /* the tile in C order */
  char out_path[OUT_PATH_BUF];
  const char *out_name;
} transpose_ctx;

static void tiling_free(tiling *tl) {
  free(tl->e);
  free(tl->f);
  free(tl->c);
  free(tl->t);
  free(tl->at);
  free(tl->ext);
  free(tl->k);
  free(tl->g);
  memset(tl, 0, sizeof *tl);
}

/* Chooses p, q and the extents for a budget of `budget` elements per tile (>= 1). Tiles span
 * about sqrt(budget) elements along the file's contiguous axes and as many along the output's,
 * so that both the reads and the writes are long. */
static void choose_tiles(tiling *tl, uint64_t budget) {
  size_t m = tl->m;
  uint64_t side = 1;
  while ((side + 1) * (side + 1) <= budget) {
    side++;
  }
  uint64_t a = 1;
  size_t p = 0;
  while (p + 1 < m && (uint64_t)tl->e[p] <= side / a) {
    a *= (uint64_t)tl->e[p];
    p++;
  }
  uint64_t tp = side / a;
  tp = tp < 1 ? 1 : tp > (uint64_t)tl->e[p] ? (uint64_t)tl->e[p] : tp;
  uint64_t other = budget / (a * tp);
  other = other < 1 ? 1 : other;
  uint64_t r = 1;
  size_t q = m - 1;
  while (q > p && (uint64_t)tl->e[q] <= other / r) {
    r *= (uint64_t)tl->e[q];
    q--;
  }
  for (size_t j = 0; j < m; j++) {
    tl->t[j] = j < p || j > q ? tl->e[j] : 1;
  }
  if (q == p) {
    /* Every axis after p is whole: p's extent takes the rest of the budget. */
    uint64_t whole = budget / (a * r);
    whole = whole < 1 ? 1 : whole > (uint64_t)tl->e[p] ? (uint64_t)tl->e[p] : whole;
    tl->t[p] = (int64_t)whole;
  } else {
    uint64_t tq = other / r;
    tq = tq < 1 ? 1 : tq > (uint64_t)tl->e[q] ? (uint64_t)tl->e[q] : tq;
    tl->t[p] = (int64_t)tp;
    tl->t[q] = (int64_t)tq;
  }
  tl->p = p;
  tl->q = q;
}

static int tiling_init(tiling *tl, const stream_transpose_job *job, uint64_t budget) {
  memset(tl, 0, sizeof *tl);
  size_t n = job->rank + 1;
  tl->e = calloc(n, sizeof *tl->e);
  tl->f = calloc(n, sizeof *tl->f);
  tl->c = calloc(n, sizeof *tl->c);
  tl->t = calloc(n, sizeof *tl->t);
  tl->at = calloc(n, sizeof *tl->at);
  tl->ext = calloc(n, sizeof *tl->ext);
  tl->k = calloc(n, sizeof *tl->k);
  tl->g = calloc(n, sizeof *tl->g);
  if (tl->e == NULL || tl->f == NULL || tl->c == NULL || tl->t == NULL || tl->at == NULL ||
      tl->ext == NULL || tl->k == NULL || tl->g == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing a transposition");
  }
  for (size_t j = 0; j < job->rank; j++) {
    if (job->dims[j] != 1) {
      tl->e[tl->m++] = job->dims[j];
    }
  }
  if (tl->m == 0) {
    tl->e[tl->m++] = 1; /* one element */
  }
  uint64_t stride = 1;
  for (size_t j = 0; j < tl->m; j++) {
    tl->f[j] = stride;
    stride *= (uint64_t)tl->e[j];
  }
  stride = 1;
  for (size_t j = tl->m; j-- > 0;) {
    tl->c[j] = stride;
    stride *= (uint64_t)tl->e[j];
  }
  choose_tiles(tl, budget);
  return 0;
}

/* Reads the current tile: runs over the axes up to p, contiguous in the file, one for each index
 * of the axes after p (taken in file order, so that the runs land one after the other). */
static int read_tile(transpose_ctx *x) {
  const stream_transpose_job *job = x->job;
  tiling *tl = &x->tl;
  size_t m = tl->m, p = tl->p;
  uint64_t run = 1;
  for (size_t j = 0; j <= p; j++) {
    run *= (uint64_t)tl->ext[j];
  }
  size_t run_bytes = (size_t)run * job->element;
  memset(tl->k, 0, m * sizeof *tl->k);
  unsigned char *dst = x->tile;
  for (;;) {
    uint64_t index = (uint64_t)tl->at[p] * tl->f[p];
    for (size_t j = p + 1; j < m; j++) {
      index += (uint64_t)(tl->at[j] + tl->k[j]) * tl->f[j];
    }
    tool_error err;
    if (io_read_full(job->in_fd, job->in_path, dst, run_bytes,
                     job->in_offset + index * job->element, CLI_EXIT_IOERR, &err) != 0) {
      return tool_report(&err);
    }
    dst += run_bytes;
    size_t j = p + 1;
    for (; j < m; j++) {
      if (++tl->k[j] < tl->ext[j]) {
        break;
      }
      tl->k[j] = 0;
    }
    if (j >= m) {
      return 0;
    }
  }
}

/* One element of `size` bytes; fixed sizes let the compiler inline the copy. */
static void copy_element(unsigned char *dst, const unsigned char *src, size_t size) {
  switch (size) {
  case 1:
    *dst = *src;
    break;
  case 2:
    memcpy(dst, src, 2);
    break;
  case 4:
    memcpy(dst, src, 4);
    break;
  case 8:
    memcpy(dst, src, 8);
    break;
  case 16:
    memcpy(dst, src, 16);
    break;
  default:
    memcpy(dst, src, size);
    break;
  }
}

/* Puts the tile in C order: an odometer over its axes, last axis fastest. */
static size_t reorder_tile(transpose_ctx *x) {
  const stream_transpose_job *job = x->job;
  tiling *tl = &x->tl;
  size_t m = tl->m;
  uint64_t stride = 1;
  size_t count = 1;
  for (size_t j = 0; j < m; j++) {
    tl->g[j] = stride;
    stride *= (uint64_t)tl->ext[j];
    count *= (size_t)tl->ext[j];
    tl->k[j] = 0;
  }
  size_t es = job->element;
  uint64_t from = 0;
  for (size_t n = 0; n < count; n++) {
    copy_element(x->out + n * es, x->tile + from * es, es);
    for (size_t j = m; j-- > 0;) {
      if (++tl->k[j] < tl->ext[j]) {
        from += tl->g[j];
        break;
      }
      from -= (uint64_t)(tl->ext[j] - 1) * tl->g[j];
      tl->k[j] = 0;
    }
  }
  byte_swap_units(x->out, count * es, job->swap);
  return count;
}

/* Writes `count` elements that are consecutive in C order from C index `first` on, cut where
 * they cross from one output row to the next. */
static int write_run(transpose_ctx *x, const unsigned char *buf, uint64_t first, size_t count) {
  const stream_transpose_job *job = x->job;
  uint64_t at = first * job->element;
  uint64_t left = (uint64_t)count * job->element;
  while (left > 0) {
    uint64_t row = at / job->piece, in_row = at % job->piece;
    uint64_t can = job->piece - in_row < left ? job->piece - in_row : left;
    tool_error err;
    if (io_write_full(job->out_fd, x->out_name, buf, (size_t)can,
                      job->out_offset + row * job->row_bytes + in_row, &err) != 0) {
      return tool_report(&err);
    }
    buf += can;
    at += can;
    left -= can;
  }
  return 0;
}

/* Writes the reordered tile: runs over the axes from q on, contiguous in C order, one for each
 * index of the axes before q. */
static int write_tile(transpose_ctx *x) {
  tiling *tl = &x->tl;
  size_t m = tl->m, q = tl->q;
  size_t run = 1;
  for (size_t j = q; j < m; j++) {
    run *= (size_t)tl->ext[j];
  }
  memset(tl->k, 0, m * sizeof *tl->k);
  const unsigned char *src = x->out;
  for (;;) {
    uint64_t first = (uint64_t)tl->at[q] * tl->c[q];
    for (size_t j = 0; j < q; j++) {
      first += (uint64_t)(tl->at[j] + tl->k[j]) * tl->c[j];
    }
    int rc = write_run(x, src, first, run);
    if (rc != 0) {
      return rc;
    }
    src += run * x->job->element;
    size_t j = q;
    while (j-- > 0) {
      if (++tl->k[j] < tl->ext[j]) {
        break;
      }
      tl->k[j] = 0;
    }
    if (j == SIZE_MAX) {
      return 0;
    }
  }
}

/* Visits every tile: the axes p..q step by their extents (the last axis fastest). */
static int run_tiles(transpose_ctx *x) {
  tiling *tl = &x->tl;
  size_t m = tl->m, p = tl->p, q = tl->q;
  for (size_t j = 0; j < m; j++) {
    tl->at[j] = 0;
  }
  for (;;) {
    for (size_t j = 0; j < m; j++) {
      int64_t left = tl->e[j] - tl->at[j];
      tl->ext[j] = tl->t[j] < left ? tl->t[j] : left;
    }
    int rc = read_tile(x);
    size_t count = rc == 0 ? reorder_tile(x) : 0;
    if (rc == 0) {
      rc = write_tile(x);
    }
    if (rc != 0) {
      return rc;
    }
    progress_add(x->job->progress, (uint64_t)count * x->job->element);
    size_t j = q + 1;
    while (j-- > p) {
      tl->at[j] += tl->t[j];
      if (tl->at[j] < tl->e[j]) {
        break;
      }
      tl->at[j] = 0;
      if (j == p) {
        return 0;
      }
    }
  }
}

int stream_transpose(const stream_transpose_job *job) {
  for (size_t j = 0; j < job->rank; j++) {
    if (job->dims[j] == 0) {
      return 0;
    }
  }
  transpose_ctx x;
  memset(&x, 0, sizeof x);
  x.job = job;
  x.out_name = out_set_final(job->outputs, 0, x.out_path, sizeof x.out_path);
  uint64_t budget = job->chunk / job->element;
  budget = budget < 1 ? 1 : budget;
  int rc = tiling_init(&x.tl, job, budget);
  if (rc == 0) {
    x.tile = malloc((size_t)budget * job->element);
    x.out = malloc((size_t)budget * job->element);
    if (x.tile == NULL || x.out == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory preparing a transposition");
    }
  }
  if (rc == 0) {
    rc = run_tiles(&x);
  }
  free(x.tile);
  free(x.out);
  tiling_free(&x.tl);
  return rc;
}
