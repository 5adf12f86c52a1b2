/*
 * The writer's primitives: positioned reads, writes through each output's window, and range
 * copies, reporting their errors.
 *
 * Why the windows and the two ways of copying a range (measured on 2026-11-28, Linux 6.18 in a
 * 2-vCPU KVM guest, ext4, inputs in the page cache; CPU time of copying a 2.4 GB file, three
 * runs each):
 *   - copy_file_range with the destination at the source's offset, as cp does: 0.66-0.73 s;
 *     shifted by 64 bytes to 4 KiB: 1.02-1.09 s; by 8 bytes (safetensors' headers are padded to
 *     8): 1.59-1.79 s. The kernel moves whole source folios: unless both offsets agree modulo
 *     the folio size, each is written across small destination folios, and a copy whose two
 *     sides disagree modulo 16 runs at half speed.
 *   - pread into a buffer at the source's offset modulo 64, then pwrite from it, in writes that
 *     end on 256 KiB boundaries of the destination: 0.78-0.83 s whatever the shift. Writes that
 *     start anywhere (256 KiB each, not aligned): 1.57-1.69 s: each write's start is built of
 *     small folios. Reading into a buffer not at the source's offset modulo 64: 1.35-1.42 s.
 *     Writes of 1 MiB on 1 MiB boundaries: 0.69-4.6 s, of 512 KiB on 512 KiB boundaries:
 *     0.70-1.76 s (large folios, from memory the host may have taken back).
 * So a range is copied in the kernel when its offsets agree modulo 64 KiB (and its file is not
 * hashed in flight: ckpt_sums.h), and otherwise read and written; every write goes through the
 * output's window, which passes on only writes that end on a window boundary (or the output's last
 * bytes).
 */
#include "ckpt_copier.h"

#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "io.h"

/* The windows' alignment in memory: their writes start on window boundaries of the file, and a
 * write from an address that disagrees with its file offset modulo 64 costs about 10% more
 * system time (measured 2026-11-28, 512 MiB in 256 KiB writes: 0.100 s aligned, 0.110-0.114 s
 * shifted by 8 or 16 bytes). Whole windows are written from where the read put them, at the
 * source's offset modulo 64: a copy to realign them costs as much as it saves. */
#define WINDOW_ALIGN 64

/* Source and destination offsets that agree modulo this are copied by the kernel. */
#define KERNEL_ALIGN ((uint64_t)64 << 10)

int ckpt_stream_init(ckpt_stream *s, ckpt_member *m, uint64_t span) {
  memset(s, 0, sizeof *s);
  s->m = m;
  s->span = span;
  void *wbuf = NULL;
  s->wbuf = posix_memalign(&wbuf, WINDOW_ALIGN, (size_t)span) == 0 ? wbuf : NULL;
  return s->wbuf == NULL ? cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs") : 0;
}

void ckpt_stream_free(ckpt_stream *s) {
  free(s->wbuf);
  memset(s, 0, sizeof *s);
}

/* Writes `size` bytes of `buf` at `at` of member m's file: through its queue when it has one. */
static int member_write(ckpt_member *m, const void *buf, size_t size, uint64_t at) {
  if (m->wq != NULL) {
    return ckpt_writeq_put(m->wq, m->fd, m->path, buf, size, at);
  }
  tool_error err;
  return io_write_full(m->fd, m->path, buf, size, at, &err) != 0 ? tool_report(&err) : 0;
}

int ckpt_stream_flush(ckpt_stream *s) {
  int rc = s->wlen > 0 ? member_write(s->m, s->wbuf, s->wlen, s->wstart) : 0;
  s->wlen = 0;
  return rc;
}

int ckpt_stream_write(ckpt_copier *c, ckpt_stream *s, const void *buf, size_t size, uint64_t at) {
  const unsigned char *p = buf;
  uint64_t span = s->span;
  if (s->m->hashing) {
    ckpt_flight_feed(&s->m->flight, buf, size, at);
  }
  s->m->written += size;
  progress_add(c->progress, size);
  while (size > 0) {
    if (s->wlen > 0 && at != s->wstart + s->wlen) {
      int rc = ckpt_stream_flush(s);
      if (rc != 0) {
        return rc;
      }
    }
    if (s->wlen == 0 && at % span == 0 && size >= span) {
      /* A whole window from a window boundary: written as it is, one window per call (a longer
       * write would make larger folios). */
      int rc = member_write(s->m, p, (size_t)span, at);
      if (rc != 0) {
        return rc;
      }
      p += span;
      at += span;
      size -= (size_t)span;
      continue;
    }
    if (s->wlen == 0) {
      s->wstart = at;
    }
    uint64_t end = (s->wstart / span + 1) * span;
    size_t room = (size_t)(end - s->wstart) - s->wlen;
    size_t n = size < room ? size : room;
    memcpy(s->wbuf + s->wlen, p, n);
    s->wlen += n;
    p += n;
    at += n;
    size -= n;
    if (s->wstart + s->wlen == end) {
      int rc = ckpt_stream_flush(s);
      if (rc != 0) {
        return rc;
      }
    }
  }
  return 0;
}

int ckpt_write_at(ckpt_copier *c, ckpt_member *m, const void *buf, size_t size, uint64_t at) {
  return ckpt_stream_write(c, &m->out, buf, size, at);
}

int ckpt_read_at(ckpt_copier *c, size_t src, void *buf, size_t size, uint64_t from) {
  tool_error err;
  if (io_read_full(c->in_fds[src], c->model->files[src].path, buf, size, from, CLI_EXIT_IOERR,
                   &err) != 0) {
    return tool_report(&err);
  }
  return 0;
}

unsigned char *ckpt_read_buffer(const ckpt_copier *c, uint64_t from) {
  return c->chunk + from % CKPT_READ_ALIGN;
}

int ckpt_stream_copy(ckpt_copier *c, ckpt_stream *s, size_t src, uint64_t from, uint64_t size,
                     uint64_t at) {
  if ((at - from) % KERNEL_ALIGN == 0 && !s->m->hashing) {
    tool_error err;
    if (io_copy_range(&c->io, c->in_fds[src], c->model->files[src].path, from, s->m->fd, s->m->path,
                      at, size, &err) != 0) {
      return tool_report(&err);
    }
    s->m->written += size;
    return 0;
  }
  while (size > 0) {
    size_t n = size < c->chunk_bytes ? (size_t)size : c->chunk_bytes;
    /* A full read ends on a window boundary of the destination: the next read then starts a
     * window and is written from where it was read, whole windows without a copy into the
     * stream's window (only a range's first partial window is copied there). */
    n -= n == c->chunk_bytes ? (size_t)((at + n) % s->span) : 0;
    unsigned char *in = ckpt_read_buffer(c, from);
    int rc = ckpt_read_at(c, src, in, n, from);
    rc = rc == 0 ? ckpt_stream_write(c, s, in, n, at) : rc;
    if (rc != 0) {
      return rc;
    }
    from += n;
    at += n;
    size -= n;
  }
  return 0;
}

int ckpt_copy_at(ckpt_copier *c, ckpt_member *m, size_t src, uint64_t from, uint64_t size,
                 uint64_t at) {
  return ckpt_stream_copy(c, &m->out, src, from, size, at);
}

uint64_t ckpt_tensor_start(const ckpt_copier *c, const ckpt_member *m, const ckpt_out_tensor *t) {
  return c->plan->files[m->file].prefix_size + t->begin;
}
