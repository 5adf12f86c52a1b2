/* verify --against: the outputs' tensors compared with the input bytes they were copied from. */
#include "ckpt_against.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "io.h"
#include "thread_start.h"

/* Blocks of rows compared at once: two buffers of this size. */
#define AGAINST_CHUNK ((size_t)1 << 20)

typedef struct against {
  const ckpt_manifest *mf;
  ckpt_differences *d;
  int *in_fds;
  unsigned char *a, *b;
} against;

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash != NULL ? slash + 1 : path;
}

/* Finds input i among the --against paths (a file of its name, or a folder holding one). */
static int open_input(const ckpt_verify_options *o, const ckpt_mf_input *in, int *fd,
                      uint64_t *size) {
  for (size_t k = 0; k < o->against_count; k++) {
    const char *p = o->against[k];
    struct stat st;
    if (stat(p, &st) != 0) {
      return cli_error(CLI_EXIT_NOINPUT, "%s: cannot open '%s' (--against): %s", o->cmd, p,
                       strerror(errno));
    }
    char *candidate = NULL;
    if (S_ISDIR(st.st_mode)) {
      size_t n = strlen(p);
      if (asprintf(&candidate, "%s%s%s", p, n > 0 && p[n - 1] == '/' ? "" : "/", in->name) < 0) {
        return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      }
      if (stat(candidate, &st) != 0) {
        free(candidate);
        continue;
      }
    } else if (strcmp(base_name(p), in->name) != 0) {
      continue;
    }
    tool_error err;
    int rc = io_open_regular(candidate != NULL ? candidate : p, "input", fd, size, &err);
    free(candidate);
    if (rc != 0) {
      tool_scrub(&err);
      return tool_report(&err);
    }
    return 0;
  }
  tool_error err;
  tool_fail(&err, CLI_EXIT_NOINPUT,
            "%s: the input '%s' of the manifest is not among the files and folders of "
            "--against",
            o->cmd, in->name);
  tool_scrub(&err);
  return tool_report(&err);
}

static int read_at(int fd, const char *what, void *buf, size_t size, uint64_t at, size_t *got) {
  int e = io_pread_all(fd, buf, size, at, got);
  if (e != 0) {
    return cli_error(CLI_EXIT_IOERR, "cannot read %s at byte %llu: %s", what,
                     (unsigned long long)at, strerror(e));
  }
  return 0;
}

/* Compares `len` bytes; returns the index of the first difference or len. */
static size_t first_diff(const unsigned char *x, const unsigned char *y, size_t len) {
  if (memcmp(x, y, len) == 0) {
    return len;
  }
  size_t i = 0;
  while (x[i] == y[i]) {
    i++;
  }
  return i;
}

/* One row of a piece: the n output bytes at oa of g->a (got_out read) against the n input bytes
 * at ia of g->b (got_in read from in_at of input `in`). Returns the index of the first
 * difference, n when they agree, or SIZE_MAX when the row cannot be compared: the output is cut
 * short (reported with its size) or the input ends first (added to the differences here). */
static size_t compare_row(against *g, const ckpt_mf_file *f, const ckpt_mf_tensor *t,
                          const ckpt_mf_input *in, uint64_t in_at, size_t oa, size_t ia, size_t n,
                          size_t got_out, size_t got_in) {
  if (oa + n > got_out) {
    return SIZE_MAX;
  }
  if (ia + n > got_in) {
    ckpt_diff_add(g->d, f->name, t->name, -1, -1,
                  "its input '%s' ends at byte %llu, before the bytes it was copied from", in->name,
                  (unsigned long long)(in_at + got_in));
    return SIZE_MAX;
  }
  return first_diff(g->a + oa, g->b + ia, n);
}

/* Compares tensor t of file f (open as out_fd) with its pieces; *found is set at the first
 * difference, which is added to the differences. */
static int compare_tensor(against *g, const ckpt_mf_file *f, int out_fd, const ckpt_mf_tensor *t) {
  for (size_t s = 0; s < t->piece_count; s++) {
    const ckpt_mf_piece *p = &t->pieces[s];
    const ckpt_mf_input *in = &g->mf->inputs[p->input];
    int in_fd = g->in_fds[p->input];
    uint64_t r = 0;
    while (r < p->rows && p->take > 0) {
      /* Rows r..r+k-1 when whole rows fit the buffers, else a part of row r. */
      uint64_t k = 1, col = 0;
      size_t take = p->take > AGAINST_CHUNK ? AGAINST_CHUNK : (size_t)p->take;
      if (p->take <= AGAINST_CHUNK) {
        uint64_t room = AGAINST_CHUNK - p->take;
        uint64_t by_out = p->to_stride > 0 ? room / p->to_stride : p->rows;
        uint64_t by_in = p->stride > 0 ? room / p->stride : p->rows;
        k = 1 + (by_out < by_in ? by_out : by_in);
        k = k < p->rows - r ? k : p->rows - r;
      }
      for (; col < p->take; col += take) {
        size_t n = p->take - col < take ? (size_t)(p->take - col) : take;
        uint64_t out_at = t->offset + p->to + r * p->to_stride + col;
        uint64_t in_at = p->offset + r * p->stride + col;
        size_t out_len = (size_t)((k - 1) * p->to_stride) + n;
        size_t in_len = (size_t)((k - 1) * p->stride) + n;
        size_t got_out, got_in;
        int rc = read_at(out_fd, f->name, g->a, out_len, out_at, &got_out);
        rc = rc != 0 ? rc : read_at(in_fd, in->name, g->b, in_len, in_at, &got_in);
        if (rc != 0) {
          return rc;
        }
        for (uint64_t row = 0; row < k; row++) {
          size_t oa = (size_t)(row * p->to_stride), ia = (size_t)(row * p->stride);
          size_t i = compare_row(g, f, t, in, in_at, oa, ia, n, got_out, got_in);
          if (i == SIZE_MAX) {
            return 0;
          }
          if (i < n) {
            uint64_t at_out = out_at + oa + i;
            ckpt_diff_add(g->d, f->name, t->name, (int64_t)at_out, (int64_t)(at_out - t->offset),
                          "0x%02x here, 0x%02x at byte %llu of its input '%s'", g->a[oa + i],
                          g->b[ia + i], (unsigned long long)(in_at + ia + i), in->name);
            return 0;
          }
        }
      }
      r += k;
    }
  }
  return 0;
}

/* Rows of the output that a tensor's pieces share, or 0: every piece has the same rows and
 * output row stride, the pieces lie side by side in the row in order (as merge and reshard
 * write them), and a block of whole rows fits the buffers. */
static uint64_t tiled_rows(const ckpt_mf_tensor *t) {
  const ckpt_mf_piece *p = t->pieces;
  if (t->piece_count < 2 || p[0].to_stride == 0 || p[0].to_stride > AGAINST_CHUNK) {
    return 0;
  }
  uint64_t rows = p[0].rows, stride = p[0].to_stride, end = 0, per = AGAINST_CHUNK / stride;
  for (size_t s = 0; s < t->piece_count; s++) {
    if (p[s].rows != rows || p[s].to_stride != stride || p[s].to < end || p[s].take > stride ||
        p[s].to > stride - p[s].take || (p[s].rows > 1 && p[s].stride > AGAINST_CHUNK)) {
      return 0;
    }
    end = p[s].to + p[s].take;
    uint64_t by_in = p[s].stride > 0 ? 1 + (AGAINST_CHUNK - p[s].take) / p[s].stride : rows;
    per = by_in < per ? by_in : per;
  }
  return rows > 1 && per > 0 ? per : 0;
}

/* A tensor whose pieces tile its rows (tiled_rows): each block of output rows read once for
 * all its pieces (not once per piece); the difference reported is the first in the block's
 * bytes, whichever piece it is in. */
static int compare_tiled(against *g, const ckpt_mf_file *f, int out_fd, const ckpt_mf_tensor *t,
                         uint64_t per) {
  const ckpt_mf_piece *last = &t->pieces[t->piece_count - 1];
  uint64_t rows = t->pieces[0].rows, stride = t->pieces[0].to_stride;
  for (uint64_t r = 0; r < rows; r += per) {
    size_t k = (size_t)(rows - r < per ? rows - r : per);
    uint64_t out_at = t->offset + r * stride;
    size_t got_out, out_len = (size_t)((k - 1) * stride + last->to + last->take);
    int rc = read_at(out_fd, f->name, g->a, out_len, out_at, &got_out);
    if (rc != 0) {
      return rc;
    }
    /* The first difference of the block: its offset in the block (first), its piece, and the
     * input offset and byte of the input there. */
    size_t first = SIZE_MAX, piece = 0;
    uint64_t in_byte_at = 0;
    unsigned char in_byte = 0;
    for (size_t s = 0; s < t->piece_count; s++) {
      const ckpt_mf_piece *p = &t->pieces[s];
      const ckpt_mf_input *in = &g->mf->inputs[p->input];
      uint64_t in_at = p->offset + r * p->stride;
      size_t got_in, in_len = (size_t)((k - 1) * p->stride + p->take), n = (size_t)p->take;
      rc = read_at(g->in_fds[p->input], in->name, g->b, in_len, in_at, &got_in);
      if (rc != 0) {
        return rc;
      }
      for (size_t row = 0; row < k; row++) {
        size_t oa = (size_t)(row * stride + p->to), ia = (size_t)(row * p->stride);
        if (oa >= first) {
          break; /* this row and the next are past the difference found */
        }
        size_t i = compare_row(g, f, t, in, in_at, oa, ia, n, got_out, got_in);
        if (i == SIZE_MAX) {
          return 0;
        }
        if (i < n) {
          first = oa + i;
          piece = s;
          in_byte_at = in_at + ia + i;
          in_byte = g->b[ia + i];
          break;
        }
      }
    }
    if (first != SIZE_MAX) {
      uint64_t at_out = out_at + first;
      ckpt_diff_add(g->d, f->name, t->name, (int64_t)at_out, (int64_t)(at_out - t->offset),
                    "0x%02x here, 0x%02x at byte %llu of its input '%s'", g->a[first], in_byte,
                    (unsigned long long)in_byte_at, g->mf->inputs[t->pieces[piece].input].name);
      return 0;
    }
  }
  return 0;
}

static int compare_file(against *g, const ckpt_verify_options *o, const ckpt_mf_file *f) {
  size_t n = strlen(o->outdir);
  char *path = NULL;
  if (asprintf(&path, "%s%s%s", o->outdir, n > 0 && o->outdir[n - 1] == '/' ? "" : "/", f->name) <
      0) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  free(path);
  if (fd < 0) {
    return 0; /* missing: reported already */
  }
  int rc = 0;
  for (size_t k = 0; rc == 0 && k < f->tensor_count; k++) {
    uint64_t per = tiled_rows(&f->tensors[k]);
    rc = per > 0 ? compare_tiled(g, f, fd, &f->tensors[k], per)
                 : compare_tensor(g, f, fd, &f->tensors[k]);
  }
  close(fd);
  return rc;
}

struct ckpt_against_run {
  const ckpt_verify_options *o;
  against g;
  /* The differences found (its own list: the verify adds to its own meanwhile). */
  ckpt_differences d;
  int status, threaded;
  pthread_t thread;
};

static void compare_files(ckpt_against_run *run) {
  const ckpt_manifest *mf = run->g.mf;
  for (size_t i = 0; run->status == 0 && i < mf->file_count; i++) {
    if (mf->files[i].kind == CKPT_MF_DATA) {
      run->status = compare_file(&run->g, run->o, &mf->files[i]);
    }
  }
}

static void *compare_thread(void *arg) {
  compare_files(arg);
  return NULL;
}

static void release(ckpt_against_run *run) {
  const ckpt_manifest *mf = run->g.mf;
  for (size_t i = 0; run->g.in_fds != NULL && i < mf->input_count; i++) {
    if (run->g.in_fds[i] >= 0) {
      close(run->g.in_fds[i]);
    }
  }
  free(run->g.in_fds);
  free(run->g.a);
  free(run->g.b);
  ckpt_diff_free(&run->d);
  free(run);
}

int ckpt_against_start(const ckpt_verify_options *o, const ckpt_manifest *mf,
                       ckpt_against_run **out) {
  *out = NULL;
  ckpt_against_run *run = calloc(1, sizeof *run);
  if (run == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  run->o = o;
  run->g = (against){mf, &run->d, calloc(mf->input_count + 1, sizeof(int)), malloc(AGAINST_CHUNK),
                     malloc(AGAINST_CHUNK)};
  int rc = 0;
  if (run->g.in_fds == NULL || run->g.a == NULL || run->g.b == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; run->g.in_fds != NULL && i <= mf->input_count; i++) {
    run->g.in_fds[i] = -1;
  }
  for (size_t i = 0; rc == 0 && i < mf->input_count; i++) {
    uint64_t size = 0;
    rc = open_input(o, &mf->inputs[i], &run->g.in_fds[i], &size);
    if (rc == 0 && size != mf->inputs[i].bytes) {
      ckpt_diff_add(&run->d, mf->inputs[i].name, NULL, -1, -1,
                    "(an input) has %llu bytes, the manifest says %llu: it changed since the run",
                    (unsigned long long)size, (unsigned long long)mf->inputs[i].bytes);
    }
  }
  if (rc != 0) {
    release(run);
    return rc;
  }
  run->threaded = thread_start(&run->thread, compare_thread, run) == 0;
  *out = run;
  return 0;
}

int ckpt_against_finish(ckpt_against_run *run, ckpt_differences *d) {
  if (run->threaded) {
    pthread_join(run->thread, NULL);
  } else {
    compare_files(run);
  }
  int rc = run->status;
  if (rc == 0) {
    ckpt_diff_append(d, &run->d);
  }
  release(run);
  return rc;
}
