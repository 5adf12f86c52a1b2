/* verify: the outputs of a run against their manifest, and with --against against its inputs
 * (ckpt_verify.h). */
#include "ckpt_verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_hash.h"
#include "ckpt_manifest.h"
#include "ckpt_manifest_read.h"
#include "ckpt_report.h"
#include "cli_util.h"
#include "error.h"
#include "io.h"
#include "json_out.h"
#include "outputs_staging.h"
#include "thread_start.h"

/*
 * The differences `verify` finds, gathered while it reads and printed
 * at the end, so that an error found later (a malformed manifest entry) leaves stdout empty.
 */
/** One difference: in `file`, in `tensor` (NULL: outside any), at file byte `file_offset` and
 * tensor byte `tensor_offset` (-1: no single byte is known). */
typedef struct ckpt_difference {
  char *file, *tensor, *problem;
  int64_t file_offset, tensor_offset;
} ckpt_difference;

typedef struct ckpt_differences {
  size_t count, cap;
  ckpt_difference *items;
  /** An allocation failed: the run fails with CLI_EXIT_SOFTWARE. */
  int oom;
} ckpt_differences;

/** Adds a difference (the strings are copied; the problem formatted). */
static void ckpt_diff_add(ckpt_differences *d, const char *file, const char *tensor,
                          int64_t file_offset, int64_t tensor_offset, const char *format, ...)
    TOOL_PRINTF(6, 7);

/** Moves the differences of `from` to the end of `d` (in their order); `from` is left empty. On
 * an allocation failure `d` is marked oom. */
static void ckpt_diff_append(ckpt_differences *d, ckpt_differences *from);

/** What was verified, for the summary. */
typedef struct ckpt_verify_totals {
  const char *cmd, *outdir;
  size_t files, tensors, against;
  uint64_t bytes;
} ckpt_verify_totals;

/** Prints the differences and the summary (text or JSON, `quiet` prints only differences).
 * Returns 0 (none), 1 (some), or CLI_EXIT_IOERR (stdout failed, reported). */
static int ckpt_diff_print(const ckpt_differences *d, const ckpt_verify_totals *t, int json,
                           int quiet);

/** Releases the differences and zeroes them. */
static void ckpt_diff_free(ckpt_differences *d);

static void ckpt_diff_add(ckpt_differences *d, const char *file, const char *tensor,
                          int64_t file_offset, int64_t tensor_offset, const char *format, ...) {
  if (d->oom) {
    return;
  }
  if (d->count == d->cap) {
    size_t cap = d->cap == 0 ? 16 : 2 * d->cap;
    ckpt_difference *items = realloc(d->items, cap * sizeof *items);
    if (items == NULL) {
      d->oom = 1;
      return;
    }
    d->items = items;
    d->cap = cap;
  }
  ckpt_difference *x = &d->items[d->count];
  char problem[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(problem, sizeof problem, format, ap);
  va_end(ap);
  x->file = strdup(file);
  x->tensor = tensor != NULL ? strdup(tensor) : NULL;
  x->problem = strdup(problem);
  x->file_offset = file_offset;
  x->tensor_offset = tensor_offset;
  d->count++;
  if (x->file == NULL || x->problem == NULL || (tensor != NULL && x->tensor == NULL)) {
    d->oom = 1;
  }
}

static void print_text(const ckpt_difference *x) {
  ckpt_print_text(x->file);
  fputs(": ", stdout);
  if (x->tensor != NULL) {
    fputs("tensor '", stdout);
    ckpt_print_text(x->tensor);
    fputs("': ", stdout);
  }
  ckpt_print_text(x->problem);
  if (x->file_offset >= 0 && x->tensor_offset >= 0) {
    printf(" (byte %lld of the file, byte %lld of the tensor)", (long long)x->file_offset,
           (long long)x->tensor_offset);
  } else if (x->file_offset >= 0) {
    printf(" (byte %lld of the file)", (long long)x->file_offset);
  }
  putchar('\n');
}

static int ckpt_diff_print(const ckpt_differences *d, const ckpt_verify_totals *t, int json,
                           int quiet) {
  if (json) {
    json_out j;
    json_out_begin(&j, stdout);
    json_out_object(&j, NULL);
    json_out_string(&j, "command", t->cmd);
    json_out_string(&j, "outdir", t->outdir);
    json_out_bool(&j, "ok", d->count == 0);
    json_out_uint(&j, "files", t->files);
    json_out_uint(&j, "tensors", t->tensors);
    json_out_uint(&j, "bytes", t->bytes);
    json_out_uint(&j, "against", t->against);
    json_out_array(&j, "differences");
    for (size_t i = 0; i < d->count; i++) {
      const ckpt_difference *x = &d->items[i];
      json_out_object(&j, NULL);
      json_out_string(&j, "file", x->file);
      if (x->tensor != NULL) {
        json_out_string(&j, "tensor", x->tensor);
      }
      if (x->file_offset >= 0) {
        json_out_int(&j, "file_offset", x->file_offset);
      }
      if (x->tensor_offset >= 0) {
        json_out_int(&j, "tensor_offset", x->tensor_offset);
      }
      json_out_string(&j, "problem", x->problem);
      json_out_end_object(&j);
    }
    json_out_end_array(&j);
    json_out_end_object(&j);
    int rc = json_out_finish(&j);
    return rc != 0 ? rc : d->count > 0;
  }
  for (size_t i = 0; i < d->count; i++) {
    print_text(&d->items[i]);
  }
  if (!quiet) {
    fputs(t->outdir, stdout);
    printf(": %zu %s, %zu %s, %llu %s", t->files, tool_plural(t->files, "file", "files"),
           t->tensors, tool_plural(t->tensors, "tensor", "tensors"), (unsigned long long)t->bytes,
           tool_plural(t->bytes, "byte", "bytes"));
    if (d->count == 0) {
      printf(": as the manifest says%s\n",
             t->against > 0 ? ", and equal to the inputs they were copied from" : "");
    } else {
      printf(": %zu %s\n", d->count, tool_plural(d->count, "difference", "differences"));
    }
  }
  return ckpt_finish_stdout(d->count > 0);
}

static void ckpt_diff_append(ckpt_differences *d, ckpt_differences *from) {
  d->oom |= from->oom;
  if (from->count > 0 && !d->oom && d->count + from->count > d->cap) {
    size_t cap = d->count + from->count;
    ckpt_difference *items = realloc(d->items, cap * sizeof *items);
    if (items == NULL) {
      d->oom = 1;
    } else {
      d->items = items;
      d->cap = cap;
    }
  }
  if (!d->oom && from->count > 0) {
    memcpy(d->items + d->count, from->items, from->count * sizeof *from->items);
    d->count += from->count;
    from->count = 0;
  }
  ckpt_diff_free(from);
}

static void ckpt_diff_free(ckpt_differences *d) {
  for (size_t i = 0; i < d->count; i++) {
    free(d->items[i].file);
    free(d->items[i].tensor);
    free(d->items[i].problem);
  }
  free(d->items);
  memset(d, 0, sizeof *d);
}

/*
 * verify --against: every piece of every tensor of the outputs compared byte for byte with the
 * input bytes the manifest says it was copied from (the inputs found by their file names among
 * the files and folders given).
 */
/** A comparison under way (opaque). */
typedef struct ckpt_against_run ckpt_against_run;

/**
 * Opens the inputs o->against gives for the manifest `mf` (both must outlive the run) and starts
 * comparing the data files of o->outdir listed in `mf` with them on a second thread (on this one,
 * in ckpt_against_finish, when the thread cannot be made), so that the verify of the outputs'
 * checksums runs meanwhile. Stores the run in `*run` and returns 0, or prints the error and
 * returns CLI_EXIT_NOINPUT (an input is not found or cannot be opened) or CLI_EXIT_SOFTWARE with
 * `*run` NULL.
 */
static int ckpt_against_start(const ckpt_verify_options *o, const ckpt_manifest *mf,
                              ckpt_against_run **run);

/**
 * Waits for the comparison, adds to `d` what it found (an input whose size changed, the first
 * differing byte of each tensor that differs), and releases `run`. Returns 0, or the status of
 * an error it printed (CLI_EXIT_IOERR, CLI_EXIT_SOFTWARE; `d` then unchanged).
 */
static int ckpt_against_finish(ckpt_against_run *run, ckpt_differences *d);

/* Blocks of rows compared at once: two buffers of this size. */
#define AGAINST_CHUNK ((size_t)1 << 20)

typedef struct comparison {
  const ckpt_manifest *mf;
  ckpt_differences *d;
  int *in_fds;
  unsigned char *a, *b;
} comparison;

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
      tool_error err;
      io_open_fail(&err, errno, "--against", p);
      tool_scrub(&err);
      return tool_report(&err);
    }
    char *candidate = NULL;
    if (S_ISDIR(st.st_mode)) {
      size_t n = strlen(p);
      if (asprintf(&candidate, "%s%s%s", p, n > 0 && p[n - 1] == '/' ? "" : "/", in->name) < 0) {
        return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
      }
      if (stat(candidate, &st) != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR) {
          free(candidate);
          continue;
        }
        tool_error err;
        io_open_fail(&err, e, "input", candidate);
        free(candidate);
        tool_scrub(&err);
        return tool_report(&err);
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
            "the input '%s' of the manifest is not among the files and folders of "
            "--against",
            in->name);
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
static size_t compare_row(comparison *g, const ckpt_mf_file *f, const ckpt_mf_tensor *t,
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
static int compare_tensor(comparison *g, const ckpt_mf_file *f, int out_fd,
                          const ckpt_mf_tensor *t) {
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
static int compare_tiled(comparison *g, const ckpt_mf_file *f, int out_fd, const ckpt_mf_tensor *t,
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

/*
 * A converted tensor (its "cast", docs/manifest.md): each piece's input bytes converted again by
 * the library's kernel (cleave_cast, or cleave_dequantize_fp8_blocks with the piece's scale) and
 * compared with the output, row by row in pieces of a buffer.
 */
typedef struct recompute {
  comparison *g;
  const ckpt_mf_file *f;
  const ckpt_mf_tensor *t;
  uint64_t in_size, out_size;
  unsigned char *conv, *scale;
} recompute;

/* Reads piece p's scale into r->scale; 0, or 1 when it cannot be read (a difference added). */
static int read_scale(recompute *r, const ckpt_mf_piece *p) {
  const ckpt_mf_input *in = &r->g->mf->inputs[p->input];
  free(r->scale);
  r->scale = malloc(p->scale_bytes > 0 ? (size_t)p->scale_bytes : 1);
  if (r->scale == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory reading a scale of '%s'", in->name);
  }
  size_t got = 0;
  int rc = read_at(r->g->in_fds[p->input], in->name, r->scale, (size_t)p->scale_bytes,
                   p->scale_offset, &got);
  if (rc == 0 && got < p->scale_bytes) {
    ckpt_diff_add(r->g->d, r->f->name, r->t->name, -1, -1,
                  "its input '%s' ends at byte %llu, before the scale it was dequantized with",
                  in->name, (unsigned long long)(p->scale_offset + got));
    return -1;
  }
  return rc;
}

/* Converts the n input bytes at `in` (from input offset in_at of piece p) into r->conv.
 * Returns 0, or -1 when the piece's scale does not cover them (a difference added). */
static int convert(recompute *r, const ckpt_mf_piece *p, const unsigned char *in, uint64_t in_at,
                   uint64_t n) {
  const ckpt_mf_tensor *t = r->t;
  size_t count = (size_t)(n / r->in_size);
  cleave_error err;
  cleave_status st;
  if (t->cast_from != CLEAVE_F8E4M3) {
    st = cleave_cast(in, t->cast_from, r->conv, t->cast_to, count, &err);
  } else {
    /* The scale must hold every block the elements read (a hostile manifest may say less). */
    int64_t rows = p->rows_of_weight, cols = p->cols_of_weight;
    uint64_t first = in_at - p->weight, last = first + count - 1;
    uint64_t matrix = (uint64_t)rows * (uint64_t)cols;
    uint64_t blocks = (uint64_t)((rows + t->block[0] - 1) / t->block[0]) *
                      (uint64_t)((cols + t->block[1] - 1) / t->block[1]);
    uint64_t size = p->scale_type == CLEAVE_F32 ? 4 : 2, need = last / matrix + 1;
    if (need > p->scale_bytes / size / blocks) {
      ckpt_diff_add(r->g->d, r->f->name, t->name, -1, -1,
                    "its scale (%llu bytes at byte %llu of its input) has fewer blocks than its "
                    "FP8 weight needs",
                    (unsigned long long)p->scale_bytes, (unsigned long long)p->scale_offset);
      return -1;
    }
    st =
        cleave_dequantize_fp8_blocks(in, rows, cols, r->scale, p->scale_type, t->block[0],
                                     t->block[1], (int64_t)first, count, r->conv, t->cast_to, &err);
  }
  if (st != CLEAVE_OK) {
    ckpt_diff_add(r->g->d, r->f->name, t->name, -1, -1, "it cannot be recomputed: %s", err.message);
    return -1;
  }
  return 0;
}

static int compare_cast(comparison *g, const ckpt_mf_file *f, int out_fd, const ckpt_mf_tensor *t) {
  recompute r = {g, f, t, 0, 0, malloc(AGAINST_CHUNK), NULL};
  int64_t in_size = 1, out_size = 1;
  cleave_type_size(cleave_type_of(t->cast_from), &in_size, NULL);
  cleave_type_size(cleave_type_of(t->cast_to), &out_size, NULL);
  r.in_size = (uint64_t)in_size;
  r.out_size = (uint64_t)out_size;
  uint64_t wider = r.in_size > r.out_size ? r.in_size : r.out_size;
  uint64_t step = AGAINST_CHUNK / wider * r.in_size;
  int rc = r.conv == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0, stop = 0;
  for (size_t s = 0; s < t->piece_count && rc == 0 && !stop; s++) {
    const ckpt_mf_piece *p = &t->pieces[s];
    const ckpt_mf_input *in = &g->mf->inputs[p->input];
    if (p->rows == 0 || p->take == 0) {
      continue;
    }
    if (p->take % r.in_size != 0 || p->to % r.in_size != 0 || p->to_stride % r.in_size != 0 ||
        (p->has_scale == 0) != (t->cast_from != CLEAVE_F8E4M3)) {
      ckpt_diff_add(g->d, f->name, t->name, -1, -1,
                    "its piece %zu is not whole elements of %s with what converting it needs", s,
                    cleave_dtype_name(t->cast_from));
      break;
    }
    if (p->has_scale) {
      rc = read_scale(&r, p);
      stop = rc < 0;
      rc = rc < 0 ? 0 : rc;
    }
    for (uint64_t row = 0; row < p->rows && rc == 0 && !stop; row++) {
      for (uint64_t col = 0; col < p->take && rc == 0 && !stop; col += step) {
        uint64_t n = p->take - col < step ? p->take - col : step;
        uint64_t in_at = p->offset + row * p->stride + col;
        uint64_t out_at = t->offset + (p->to + row * p->to_stride + col) / r.in_size * r.out_size;
        uint64_t out_n = n / r.in_size * r.out_size;
        size_t got_in = 0, got_out = 0;
        rc = read_at(g->in_fds[p->input], in->name, g->b, (size_t)n, in_at, &got_in);
        rc = rc != 0 ? rc : read_at(out_fd, f->name, g->a, (size_t)out_n, out_at, &got_out);
        if (rc != 0 || got_out < out_n) {
          stop = 1; /* a short output is reported with its size */
          break;
        }
        if (got_in < n) {
          ckpt_diff_add(g->d, f->name, t->name, -1, -1,
                        "its input '%s' ends at byte %llu, before the bytes it was converted from",
                        in->name, (unsigned long long)(in_at + got_in));
          stop = 1;
          break;
        }
        if (convert(&r, p, g->b, in_at, n) != 0) {
          stop = 1;
          break;
        }
        size_t i = first_diff(g->a, r.conv, (size_t)out_n);
        if (i < out_n) {
          uint64_t at_out = out_at + i;
          ckpt_diff_add(g->d, f->name, t->name, (int64_t)at_out, (int64_t)(at_out - t->offset),
                        "0x%02x here, 0x%02x converted (%s to %s) from byte %llu of its input "
                        "'%s'",
                        g->a[i], r.conv[i], cleave_dtype_name(t->cast_from),
                        cleave_dtype_name(t->cast_to),
                        (unsigned long long)(in_at + i / r.out_size * r.in_size), in->name);
          stop = 1;
        }
      }
    }
  }
  free(r.conv);
  free(r.scale);
  return rc;
}

static int compare_file(comparison *g, const ckpt_verify_options *o, const ckpt_mf_file *f) {
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
    if (f->tensors[k].cast_from != 0) {
      rc = compare_cast(g, f, fd, &f->tensors[k]);
      continue;
    }
    uint64_t per = tiled_rows(&f->tensors[k]);
    rc = per > 0 ? compare_tiled(g, f, fd, &f->tensors[k], per)
                 : compare_tensor(g, f, fd, &f->tensors[k]);
  }
  close(fd);
  return rc;
}

struct ckpt_against_run {
  const ckpt_verify_options *o;
  comparison g;
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

static int ckpt_against_start(const ckpt_verify_options *o, const ckpt_manifest *mf,
                              ckpt_against_run **out) {
  *out = NULL;
  ckpt_against_run *run = calloc(1, sizeof *run);
  if (run == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  run->o = o;
  run->g = (comparison){mf, &run->d, calloc(mf->input_count + 1, sizeof(int)),
                        malloc(AGAINST_CHUNK), malloc(AGAINST_CHUNK)};
  int rc = 0;
  if (run->g.in_fds == NULL || run->g.a == NULL || run->g.b == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; run->g.in_fds != NULL && i <= mf->input_count; i++) {
    run->g.in_fds[i] = -1;
  }
  io_raise_open_limit(mf->input_count + 64);
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

static int ckpt_against_finish(ckpt_against_run *run, ckpt_differences *d) {
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

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir);
  char *path = NULL;
  if (asprintf(&path, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", name) < 0) {
    return NULL;
  }
  return path;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The entries of OUTDIR none of the `count` manifests lists (hidden files and the manifests
 * aside: its own, or with `ranks` those of the ranks' runs; temporaries are
 * outdir_temporaries'). */
static int extra_files(const char *outdir, const ckpt_manifest *mfs, size_t count, int ranks,
                       ckpt_differences *d) {
  DIR *dir = opendir(outdir);
  if (dir == NULL) {
    tool_error err;
    io_open_fail(&err, errno, "the folder", outdir);
    tool_scrub(&err);
    return tool_report(&err);
  }
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    int64_t rank;
    if (e->d_name[0] == '.' || strcmp(e->d_name, CKPT_MANIFEST_NAME) == 0 ||
        (ranks && ckpt_manifest_named_rank(e->d_name, &rank) && rank >= 0 && rank < mfs[0].ranks)) {
      continue;
    }
    int listed = 0;
    for (size_t m = 0; m < count && !listed; m++) {
      for (size_t i = 0; i < mfs[m].file_count && !listed; i++) {
        listed = strcmp(mfs[m].files[i].name, e->d_name) == 0;
      }
    }
    if (!listed) {
      ckpt_diff_add(d, e->d_name, NULL, -1, -1,
                    "is in the output folder but not in the manifest (an extra file)");
    }
  }
  closedir(dir);
  return 0;
}

/* The temporaries of cleave runs in the folder `folder` (shown as `shown`: "" or ending in '/'),
 * those starting with `prefix` (NULL: all, journals included): a dead run's is a difference, a
 * live run's (it holds its lock) a warning. */
static void temporaries(const char *folder, const char *shown, const char *prefix,
                        ckpt_differences *d) {
  int fd = open(folder[0] != '\0' ? folder : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  out_temp *dead = NULL;
  size_t n = 0;
  if (fd < 0 || out_temps_dead(fd, prefix, 0, &dead, &n) != 0) {
    if (fd >= 0) {
      close(fd);
    }
    return; /* an unreadable folder is reported where its files are read */
  }
  for (size_t i = 0; i < n; i++) {
    char *name = NULL;
    if (asprintf(&name, "%s%s", shown, dead[i].name) < 0) {
      d->oom = 1;
      break;
    }
    ckpt_diff_add(d, name, NULL, -1, -1,
                  "is a temporary that a cleave run left (%llu %s in %zu %s); the next run into "
                  "this folder removes it",
                  (unsigned long long)dead[i].bytes, tool_plural(dead[i].bytes, "byte", "bytes"),
                  dead[i].files, tool_plural(dead[i].files, "file", "files"));
    free(name);
  }
  DIR *dir = fdopendir(fd);
  struct dirent *e;
  if (dir != NULL) {
    rewinddir(dir); /* out_temps_dead read it through a descriptor sharing its offset */
  }
  while (dir != NULL && (e = readdir(dir)) != NULL) {
    size_t k = 0;
    while (k < n && strcmp(dead[k].name, e->d_name) != 0) {
      k++;
    }
    if (k == n && (prefix != NULL ? strncmp(e->d_name, prefix, strlen(prefix)) == 0
                                  : out_temp_name(e->d_name))) {
      cli_warning("'%s%s' is a temporary of a cleave run that is still writing there", shown,
                  e->d_name);
    }
  }
  if (dir != NULL) {
    closedir(dir);
  } else {
    close(fd);
  }
  out_temps_free(dead, n);
}

/* The temporaries in OUTDIR, and beside it those of the runs that wrote it as their own folder
 * (.NAME.cleave-tmp-*). */
static void outdir_temporaries(const char *outdir, ckpt_differences *d) {
  temporaries(outdir, "", NULL, d);
  size_t n = strlen(outdir);
  while (n > 1 && outdir[n - 1] == '/') {
    n--;
  }
  char *s = strndup(outdir, n), *slash = s != NULL ? strrchr(s, '/') : NULL;
  const char *base = slash != NULL ? slash + 1 : s;
  if (s != NULL && base[0] != '\0' && strcmp(base, ".") != 0 && strcmp(base, "..") != 0) {
    char prefix[NAME_MAX + 1];
    out_stage_prefix(base, prefix, sizeof prefix);
    if (slash != NULL) {
      slash[1] = '\0';
    }
    temporaries(slash != NULL ? s : "", "../", prefix, d);
  }
  free(s);
}

/* The tensor that holds file byte `at` (or the first after it), or NULL. */
static const ckpt_mf_tensor *tensor_at(const ckpt_mf_file *f, uint64_t at) {
  for (size_t k = 0; k < f->tensor_count; k++) {
    const ckpt_mf_tensor *t = &f->tensors[k];
    if (t->bytes > 0 && t->offset + t->bytes > at) {
      return t;
    }
  }
  return NULL;
}

/* A file of another size than the manifest says. Shorter inside a tensor's bytes, the file was
   cut short there; otherwise (a sidecar edited, a header's padding) only the sizes differ. */
static void wrong_size(const ckpt_mf_file *f, uint64_t size, ckpt_differences *d) {
  const ckpt_mf_tensor *t = size < f->bytes ? tensor_at(f, size) : NULL;
  if (t == NULL) {
    ckpt_diff_add(d, f->name, NULL, (int64_t)(size < f->bytes ? size : f->bytes), -1,
                  "differs from the manifest (%llu bytes, the manifest says %llu)",
                  (unsigned long long)size, (unsigned long long)f->bytes);
    return;
  }
  uint64_t at = size > t->offset ? size : t->offset;
  ckpt_diff_add(d, f->name, t->name, (int64_t)at, (int64_t)(at - t->offset),
                "the file is cut short: %llu bytes, the manifest says %llu",
                (unsigned long long)size, (unsigned long long)f->bytes);
}

/* The header of a data file whose bytes are what was written must say what the manifest says. */
static int compare_header(const ckpt_mf_file *f, const char *path, const ckpt_file *h) {
  const char *problem = NULL;
  size_t k = 0;
  if (h->tensor_count != f->tensor_count) {
    return cli_error(CLI_EXIT_DATA,
                     "the manifest does not match '%s': it lists %zu tensors, the file's header "
                     "has %zu",
                     path, f->tensor_count, h->tensor_count);
  }
  for (; k < f->tensor_count && problem == NULL; k++) {
    const ckpt_mf_tensor *m = &f->tensors[k];
    const ckpt_tensor *t = &h->tensors[k];
    if (strcmp(m->name, t->name) != 0) {
      problem = "name";
    } else if (strcmp(m->dtype, t->dtype->name) != 0) {
      problem = "dtype";
    } else if (m->ndim != t->ndim ||
               (m->ndim > 0 && memcmp(m->shape, t->shape, (size_t)m->ndim * sizeof *m->shape))) {
      problem = "shape";
    } else if (m->offset != t->offset || m->bytes != t->bytes) {
      problem = "byte range";
    }
  }
  if (problem != NULL) {
    tool_error err;
    tool_fail(&err, CLI_EXIT_DATA,
              "the manifest does not match '%s': tensors[%zu] ('%s') has another %s in the "
              "file's header ('%s')",
              path, k - 1, f->tensors[k - 1].name, problem, h->tensors[k - 1].name);
    tool_scrub(&err);
    return tool_report(&err);
  }
  return 0;
}

/* Checks output f: its size, its checksums, and a data file's header. */
static int verify_file(const ckpt_verify_options *o, const ckpt_mf_file *f, ckpt_differences *d,
                       int *same) {
  *same = 0;
  char *path = join(o->outdir, f->name);
  if (path == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 && errno == ENOENT) {
    ckpt_diff_add(d, f->name, NULL, -1, -1, "is missing (the manifest lists it)");
  } else if (fd < 0 || fstat(fd, &st) != 0) {
    /* An output that cannot be read is a file verify cannot open: 66 (a resource limit 70). */
    tool_error err;
    io_open_fail(&err, errno, NULL, path);
    tool_scrub(&err);
    rc = tool_report(&err);
  } else if (!S_ISREG(st.st_mode)) {
    ckpt_diff_add(d, f->name, NULL, -1, -1, "is not a regular file");
  } else {
    uint64_t size = (uint64_t)st.st_size;
    if (size != f->bytes) {
      wrong_size(f, size, d);
    }
    uint64_t hashed = size < f->bytes ? size : f->bytes;
    /* The tensors that are whole in the file, in order of offset. */
    size_t n = 0;
    while (n < f->tensor_count && f->tensors[n].offset + f->tensors[n].bytes <= hashed) {
      n++;
    }
    ckpt_hash_range *ranges = calloc(n + 1, sizeof *ranges);
    if (ranges == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    for (size_t k = 0; ranges != NULL && k < n; k++) {
      ranges[k].offset = f->tensors[k].offset;
      ranges[k].bytes = f->tensors[k].bytes;
    }
    uint64_t whole = 0;
    tool_error err;
    if (rc == 0 && ckpt_hash_file(fd, path, hashed, ranges, n, 1, &whole, &err) != 0) {
      tool_scrub(&err);
      rc = tool_report(&err);
    }
    size_t differ = 0;
    for (size_t k = 0; rc == 0 && k < n; k++) {
      const ckpt_mf_tensor *t = &f->tensors[k];
      if (ranges[k].hash != t->hash) {
        differ++;
        ckpt_diff_add(d, f->name, t->name, -1, -1,
                      "its bytes differ from their checksum (bytes %llu to %llu of the file)",
                      (unsigned long long)t->offset, (unsigned long long)(t->offset + t->bytes));
      }
    }
    free(ranges);
    *same = rc == 0 && size == f->bytes && whole == f->hash;
    if (rc == 0 && size == f->bytes && whole != f->hash && differ == 0) {
      ckpt_diff_add(d, f->name, NULL, -1, -1,
                    f->kind == CKPT_MF_DATA
                        ? "bytes outside its tensors (the header or padding) differ from the "
                          "manifest's checksum"
                        : "its bytes differ from their checksum");
    }
  }
  /* The driver of the file's format, by the ending of its name. */
  const ckpt_driver *reader = NULL;
  for (size_t i = 0; o->drivers != NULL && o->drivers[i] != NULL && reader == NULL; i++) {
    reader = ends_with(f->name, o->drivers[i]->suffix) ? o->drivers[i] : NULL;
  }
  if (rc == 0 && fd >= 0 && f->kind == CKPT_MF_DATA && reader != NULL) {
    ckpt_file h;
    memset(&h, 0, sizeof h);
    tool_error err;
    if (reader->read.header(path, &h, &err) != 0) {
      tool_scrub(&err);
      ckpt_diff_add(d, f->name, NULL, -1, -1, "fails its check: %s", err.message);
    } else if (*same) {
      rc = compare_header(f, path, &h);
    }
    ckpt_file_free(&h);
  }
  if (fd >= 0) {
    close(fd);
  }
  free(path);
  return rc;
}

/* Every tensor of a data file whose size is the manifest's is covered by its pieces exactly once
 * (a file of another size is a difference already, and the manifest's sizes bound the check's
 * time only once the file is found to hold them). */
static int check_pieces(const ckpt_verify_options *o, const ckpt_manifest *mf, const char *path) {
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < mf->file_count; i++) {
    const ckpt_mf_file *f = &mf->files[i];
    if (f->kind != CKPT_MF_DATA) {
      continue;
    }
    char *file = join(o->outdir, f->name);
    if (file == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    struct stat st;
    int whole = stat(file, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == f->bytes;
    free(file);
    for (size_t k = 0; rc == 0 && whole && k < f->tensor_count; k++) {
      char where[64];
      snprintf(where, sizeof where, "files[%zu].tensors[%zu]", i, k);
      tool_error err;
      if (ckpt_mf_tiling(path, where, &f->tensors[k], &err) != 0) {
        tool_scrub(&err);
        rc = tool_report(&err);
      }
    }
  }
  return rc;
}

/* The manifests of a folder written by runs of one rank each (--rank): the files
 * cleave-manifest.rankR.json of OUTDIR, in order of rank, into `*paths` (malloc'd; none: 0). */
static int rank_manifests(const char *outdir, char ***paths, size_t *count) {
  *paths = NULL;
  *count = 0;
  DIR *dir = opendir(outdir);
  if (dir == NULL) {
    return 0; /* the manifest is not found: said when it is read */
  }
  int rc = 0;
  size_t cap = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(dir)) != NULL) {
    int64_t rank;
    if (!ckpt_manifest_named_rank(e->d_name, &rank) || rank < 0) {
      continue;
    }
    if (*count == cap) {
      cap = cap > 0 ? 2 * cap : 8;
      char **grown = realloc(*paths, cap * sizeof *grown);
      if (grown == NULL) {
        rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
        break;
      }
      *paths = grown;
    }
    (*paths)[*count] = join(outdir, e->d_name);
    rc = (*paths)[*count] == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
    *count += rc == 0;
  }
  closedir(dir);
  return rc;
}

/* The ranks of a folder written by runs of one rank each: every manifest of the same run and
 * count, each rank once (its file name says it), none missing. */
static int check_union(const char *outdir, char **paths, const ckpt_manifest *mfs, size_t count) {
  const ckpt_manifest *first = &mfs[0];
  for (size_t i = 0; i < count; i++) {
    const ckpt_manifest *mf = &mfs[i];
    const char *name = strrchr(paths[i], '/') + 1;
    int64_t named;
    ckpt_manifest_named_rank(name, &named);
    if (mf->run == NULL) {
      return cli_error(CLI_EXIT_DATA,
                       "'%s' records no rank (it is not the manifest of a run of one rank, "
                       "--rank): '%s' cannot be verified as the union of the ranks' runs",
                       paths[i], outdir);
    }
    if (mf->rank != named) {
      return cli_error(CLI_EXIT_DATA, "'%s' records rank %lld, not %lld as its name says", paths[i],
                       (long long)mf->rank, (long long)named);
    }
    if (strcmp(mf->run, first->run) != 0 || mf->ranks != first->ranks) {
      return cli_error(CLI_EXIT_DATA,
                       "'%s' is rank %lld of %lld of run %s, but '%s' is rank %lld of %lld of run "
                       "%s: '%s' mixes the ranks of two runs",
                       paths[i], (long long)mf->rank, (long long)mf->ranks, mf->run, paths[0],
                       (long long)first->rank, (long long)first->ranks, first->run, outdir);
    }
  }
  for (int64_t r = 0; r < first->ranks; r++) {
    size_t i = 0;
    while (i < count && mfs[i].rank != r) {
      i++;
    }
    if (i == count) {
      return cli_error(
          CLI_EXIT_DATA,
          "rank %lld of %lld of run %s is missing from '%s': no " CKPT_MANIFEST_RANK_HEAD
          "%lld" CKPT_MANIFEST_RANK_TAIL " (its run has not written it there)",
          (long long)r, (long long)first->ranks, first->run, outdir, (long long)r);
    }
  }
  return 0;
}

/* Checks a manifest read: a warning for one of version 1, then its pieces. */
static int check_manifest(const ckpt_verify_options *o, const ckpt_manifest *mf, const char *path) {
  if (!mf->proved) {
    /* Read as it is: what it says is checked, but an edit of it could not be told. */
    tool_error warn;
    tool_fail(&warn, 0,
              "'%s' is a manifest of version 1, which holds no checksum of itself: an edit "
              "of it cannot be told (cleave now writes version %d, which holds one)",
              path, CKPT_MANIFEST_VERSION);
    tool_scrub(&warn);
    cli_warning("%s", warn.message);
  }
  return check_pieces(o, mf, path);
}

int ckpt_verify_outputs(const ckpt_verify_options *o) {
  char **paths = NULL;
  size_t count = 0;
  int rc = 0, ranks = 0;
  struct stat st;
  char *own = o->manifest != NULL ? strdup(o->manifest) : join(o->outdir, CKPT_MANIFEST_NAME);
  if (own == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  /* OUTDIR's own manifest; without one, the manifests of its ranks' runs (--rank), taken as one
   * output when they are every rank of one run. */
  if (o->manifest == NULL && stat(own, &st) != 0 && errno == ENOENT) {
    rc = rank_manifests(o->outdir, &paths, &count);
    ranks = count > 0;
  }
  if (rc == 0 && count == 0) {
    free(paths);
    paths = malloc(sizeof *paths);
    rc = paths == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory") : 0;
    if (rc == 0) {
      paths[count++] = own;
      own = NULL;
    }
  }
  free(own);
  ckpt_manifest *mfs = rc == 0 ? calloc(count, sizeof *mfs) : NULL;
  if (rc == 0 && mfs == NULL) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  size_t read = 0;
  for (; rc == 0 && read < count; read++) {
    tool_error err;
    rc = ckpt_manifest_read(paths[read], &mfs[read], &err);
    if (rc != 0) {
      tool_scrub(&err);
      tool_report(&err);
    }
  }
  if (rc == 0 && ranks) {
    /* In order of rank, for the report and the checks. */
    for (size_t i = 1; i < count; i++) {
      for (size_t k = i; k > 0 && mfs[k - 1].rank > mfs[k].rank; k--) {
        ckpt_manifest t = mfs[k];
        mfs[k] = mfs[k - 1];
        mfs[k - 1] = t;
        char *p = paths[k];
        paths[k] = paths[k - 1];
        paths[k - 1] = p;
      }
    }
    rc = check_union(o->outdir, paths, mfs, count);
  }
  for (size_t i = 0; rc == 0 && i < count; i++) {
    rc = check_manifest(o, &mfs[i], paths[i]);
  }
  ckpt_differences d;
  memset(&d, 0, sizeof d);
  ckpt_verify_totals totals = {o->cmd, o->outdir, 0, 0, o->against_count, 0};
  /* A manifest of its own names the files of OUTDIR; one beside a file that was written among
   * others (a merge into OUT.gguf) only those. */
  if (rc == 0 && o->manifest == NULL) {
    rc = extra_files(o->outdir, mfs, count, ranks, &d);
  }
  if (rc == 0) {
    outdir_temporaries(o->outdir, &d);
  }
  for (size_t m = 0; rc == 0 && m < count; m++) {
    ckpt_against_run *against = NULL;
    if (o->against_count > 0) {
      rc = ckpt_against_start(o, &mfs[m], &against);
    }
    for (size_t i = 0; rc == 0 && i < mfs[m].file_count; i++) {
      int same;
      rc = verify_file(o, &mfs[m].files[i], &d, &same);
      totals.files++;
      totals.tensors += mfs[m].files[i].tensor_count;
      totals.bytes += mfs[m].files[i].bytes;
    }
    if (against != NULL) { /* its differences after the checksums', as they are found */
      int compared = ckpt_against_finish(against, &d);
      rc = rc == 0 ? compared : rc;
    }
  }
  if (rc == 0 && d.oom) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (rc == 0) {
    rc = ckpt_diff_print(&d, &totals, o->json, o->quiet);
  }
  ckpt_diff_free(&d);
  for (size_t i = 0; i < count; i++) {
    if (i < read) {
      ckpt_manifest_free(&mfs[i]);
    }
    free(paths[i]);
  }
  free(mfs);
  free(paths);
  return rc;
}
