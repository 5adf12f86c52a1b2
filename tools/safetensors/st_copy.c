/* Moving the data of a plan: bounded memory, one pass per output file. */
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
  const st_outdir *out;
  int *in_fds;
  unsigned char *chunk, *staging;
  size_t chunk_bytes;
  int use_cfr;
  progress *progress;
} copier;

typedef struct member {
  size_t file;
  int fd;
  uint64_t pos;
} member;

static int write_at(const copier *c, member *m, const void *buf, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(m->fd, (const char *)buf + done, size - done, (off_t)m->pos);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", c->out->finals[m->file],
                       strerror(n == 0 ? ENOSPC : errno));
    }
    done += (size_t)n;
    m->pos += (uint64_t)n;
  }
  progress_add(c->progress, size);
  return 0;
}

static int read_at(const copier *c, size_t src, void *buf, size_t size, uint64_t offset) {
  return stream_read(c->in_fds[src], c->model->files[src].path, buf, size, offset);
}

/* Copies `size` bytes at `from` of input `src` to the end of member m. */
static int copy_range(copier *c, member *m, size_t src, uint64_t from, uint64_t size) {
  while (size > 0 && c->use_cfr) {
    loff_t in_off = (loff_t)from, out_off = (loff_t)m->pos;
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
      return cli_error(CLI_EXIT_IOERR, "copying from '%s' to output '%s' failed: %s",
                       c->model->files[src].path, c->out->finals[m->file], strerror(e));
    }
    if (n == 0) {
      return cli_error(CLI_EXIT_IOERR,
                       "'%s' ended before its data did (was it truncated while "
                       "being read?)",
                       c->model->files[src].path);
    }
    from += (uint64_t)n;
    size -= (uint64_t)n;
    m->pos += (uint64_t)n;
    progress_add(c->progress, (uint64_t)n);
  }
  while (size > 0) {
    size_t want = size < c->chunk_bytes ? (size_t)size : c->chunk_bytes;
    int rc = read_at(c, src, c->chunk, want, from);
    if (rc == 0) {
      rc = write_at(c, m, c->chunk, want);
    }
    if (rc != 0) {
      return rc;
    }
    from += want;
    size -= want;
  }
  return 0;
}

/* Tensor j of every member: contiguous pieces by copy_range; pieces that are columns of rows
 * (the same rows for every member: lockstep) from blocks of rows read once. */
static int copy_step(copier *c, member *members, size_t count, size_t j) {
  const st_piece *lead = NULL;
  for (size_t i = 0; i < count; i++) {
    const st_piece *p = &c->plan->files[members[i].file].pieces[j];
    if (p->rows == 1) {
      int rc = p->take > 0 ? copy_range(c, &members[i], p->src_file, p->src_offset, p->take) : 0;
      if (rc != 0) {
        return rc;
      }
    } else if (lead == NULL) {
      lead = p;
    }
  }
  if (lead == NULL || lead->rows == 0 || lead->row_bytes == 0) {
    return 0;
  }
  if (lead->row_bytes > c->chunk_bytes / 2) {
    /* Long rows: each member's piece of each row is large enough for one call. */
    for (uint64_t r = 0; r < lead->rows; r++) {
      for (size_t i = 0; i < count; i++) {
        const st_piece *p = &c->plan->files[members[i].file].pieces[j];
        if (p->rows == 1 || p->take == 0) {
          continue;
        }
        int rc = copy_range(c, &members[i], p->src_file, p->src_offset + r * p->row_bytes + p->col,
                            p->take);
        if (rc != 0) {
          return rc;
        }
      }
    }
    return 0;
  }
  size_t per = c->chunk_bytes / (size_t)lead->row_bytes;
  for (uint64_t r0 = 0; r0 < lead->rows; r0 += per) {
    size_t k = lead->rows - r0 < per ? (size_t)(lead->rows - r0) : per;
    size_t row = (size_t)lead->row_bytes;
    int rc = read_at(c, lead->src_file, c->chunk, k * row, lead->src_offset + r0 * row);
    for (size_t i = 0; i < count && rc == 0; i++) {
      const st_piece *p = &c->plan->files[members[i].file].pieces[j];
      if (p->rows == 1 || p->take == 0) {
        continue;
      }
      size_t take = (size_t)p->take;
      const unsigned char *from = c->chunk + p->col;
      unsigned char *to = c->staging;
      for (size_t r = 0; r < k; r++) {
        memcpy(to, from, take);
        to += take;
        from += row;
      }
      rc = write_at(c, &members[i], c->staging, k * take);
    }
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

static int copy_group(copier *c, size_t first, size_t count) {
  member *members = calloc(count, sizeof *members);
  if (members == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  size_t opened = 0;
  int rc = 0;
  for (size_t i = 0; i < count && rc == 0; i++) {
    const st_out_file *f = &c->plan->files[first + i];
    members[i].file = first + i;
    rc = st_outdir_open(c->out, first + i, &members[i].fd);
    if (rc != 0) {
      break;
    }
    opened++;
    unsigned char len[8];
    for (int b = 0; b < 8; b++) {
      len[b] = (unsigned char)(f->header_size >> (8 * b));
    }
    rc = write_at(c, &members[i], len, 8);
    if (rc == 0) {
      rc = write_at(c, &members[i], f->header, (size_t)f->header_size);
    }
  }
  size_t steps = c->plan->files[first].count;
  for (size_t j = 0; j < steps && rc == 0; j++) {
    rc = copy_step(c, members, count, j);
  }
  for (size_t i = 0; i < count && rc == 0; i++) {
    const st_out_file *f = &c->plan->files[first + i];
    if (members[i].pos != 8 + f->header_size + f->data_size) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "internal error: output '%s' holds %llu bytes, not %llu",
                     c->out->finals[first + i], (unsigned long long)members[i].pos,
                     (unsigned long long)(8 + f->header_size + f->data_size));
    }
  }
  for (size_t i = 0; i < opened; i++) {
    int close_rc = st_outdir_close(c->out, first + i, members[i].fd);
    if (rc == 0) {
      rc = close_rc;
    }
  }
  free(members);
  return rc;
}

int st_copy_plan(const st_plan *plan, const st_model *model, const st_outdir *out,
                 progress *report) {
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
      rc = copy_group(&c, g, n);
    }
  } else {
    for (size_t i = 0; i < plan->file_count && rc == 0; i++) {
      rc = copy_group(&c, i, 1);
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
