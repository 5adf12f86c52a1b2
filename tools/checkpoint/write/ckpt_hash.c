/* XXH3-64 over a file and its ranges in one sequential read. */
#include "ckpt_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* On x86-64, libxxhash's dispatching entry points pick AVX2 or AVX-512 at run time: twice the
 * speed of the SSE2 baseline on this project's machine (42 against 20 GB/s per core, 1 MiB
 * updates), the same checksums. */
#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h>
#else
#include <xxhash.h>
#endif
#else
#include <xxhash.h>
#endif

#include "cli_util.h"
#include "io.h"
#include "thread_start.h"

/* Reads of 1 MiB: large enough that the system call costs nothing beside the copy out of the
 * page cache, small enough to stay in the L2/L3 caches while XXH3 reads it. */
#define HASH_CHUNK ((size_t)1 << 20)

/* Mapped windows of 8 MiB (a multiple of any page size): few mappings per GiB, and little
 * address space (the memory tests run under a 32 MiB address-space limit). */
#define HASH_WINDOW ((size_t)8 << 20)

uint64_t ckpt_hash_bytes(const void *data, size_t size) {
  return XXH3_64bits(data, size);
}

void ckpt_hash_hex(uint64_t hash, char out[CKPT_HASH_HEX]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; i--) {
    out[i] = digits[hash & 15];
    hash >>= 4;
  }
  out[16] = '\0';
}

int ckpt_hash_parse(const char *text, uint64_t *hash) {
  uint64_t v = 0;
  for (int i = 0; i < 16; i++) {
    char c = text[i];
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = (unsigned)(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = (unsigned)(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = (unsigned)(c - 'A' + 10);
    } else {
      return -1;
    }
    v = v << 4 | d;
  }
  if (text[16] != '\0') {
    return -1;
  }
  *hash = v;
  return 0;
}

static int check_ranges(const ckpt_hash_range *r, size_t count, uint64_t size, tool_error *err) {
  uint64_t end = 0;
  for (size_t i = 0; i < count; i++) {
    if (r[i].offset < end || r[i].bytes > size || r[i].offset > size - r[i].bytes) {
      return tool_fail(err, CLI_EXIT_SOFTWARE,
                       "range %zu (bytes %llu to %llu) is out of order or past the end (%llu)", i,
                       (unsigned long long)r[i].offset,
                       (unsigned long long)(r[i].offset + r[i].bytes), (unsigned long long)size);
    }
    end = r[i].offset + r[i].bytes;
  }
  return 0;
}

/* Feeds the chunk [at, at + n) of the file to the ranges it meets, from range *next on; a range
 * whose end the chunk reaches gets its checksum. */
static void feed_ranges(ckpt_hash_range *ranges, size_t count, size_t *next, XXH3_state_t *state,
                        const unsigned char *chunk, uint64_t at, size_t n) {
  uint64_t end = at + n;
  while (*next < count) {
    ckpt_hash_range *r = &ranges[*next];
    uint64_t r_end = r->offset + r->bytes;
    if (r->offset >= end && r->bytes > 0) {
      return;
    }
    uint64_t from = r->offset > at ? r->offset : at;
    uint64_t to = r_end < end ? r_end : end;
    if (from == r->offset) {
      XXH3_64bits_reset(state);
    }
    if (to > from) {
      XXH3_64bits_update(state, chunk + (from - at), (size_t)(to - from));
    }
    if (r_end > end) {
      return;
    }
    r->hash = XXH3_64bits_digest(state);
    (*next)++;
  }
}

int ckpt_hash_stream_init(ckpt_hash_stream *h, ckpt_hash_range *ranges, size_t count, uint64_t size,
                          tool_error *err) {
  memset(h, 0, sizeof *h);
  int rc = check_ranges(ranges, count, size, err);
  if (rc != 0) {
    return rc;
  }
  h->ranges = ranges;
  h->count = count;
  h->file_state = XXH3_createState();
  h->range_state = XXH3_createState();
  if (h->file_state == NULL || h->range_state == NULL) {
    ckpt_hash_stream_free(h);
    return tool_oom(err, "hashing a file");
  }
  XXH3_64bits_reset(h->file_state);
  return 0;
}

void ckpt_hash_stream_free(ckpt_hash_stream *h) {
  XXH3_freeState(h->range_state);
  XXH3_freeState(h->file_state);
  memset(h, 0, sizeof *h);
}

/* The whole file's checksum and the ranges' take the bytes in pieces of this: the second
 * reads them from the core's L2 cache, where the first left them, not from memory (a mapped
 * window of the page cache is 8 MiB). */
#define FEED_PIECE ((size_t)256 << 10)

static void feed(ckpt_hash_stream *h, const void *data, size_t n) {
  const unsigned char *p = data;
  while (n > 0) {
    size_t k = n < FEED_PIECE ? n : FEED_PIECE;
    XXH3_64bits_update(h->file_state, p, k);
    feed_ranges(h->ranges, h->count, &h->next, h->range_state, p, h->at, k);
    h->at += k;
    p += k;
    n -= k;
  }
}

/* Feeds zeros up to `to`: bytes nothing writes, which must be in no range (else a range's bytes
 * come later than the bytes after them, and the stream is broken). */
static void feed_gap(ckpt_hash_stream *h, uint64_t to) {
  static const unsigned char zeros[4096];
  size_t k = h->next;
  while (k < h->count && h->ranges[k].bytes == 0) {
    k++;
  }
  if (k < h->count && h->ranges[k].offset < to) {
    h->broken = 1;
    return;
  }
  while (h->at < to) {
    feed(h, zeros, to - h->at < sizeof zeros ? (size_t)(to - h->at) : sizeof zeros);
  }
}

void ckpt_hash_stream_feed(ckpt_hash_stream *h, const void *data, size_t size, uint64_t at) {
  if (h->broken || size == 0) {
    return;
  }
  if (at < h->at) {
    h->broken = 1;
    return;
  }
  if (at > h->at) {
    feed_gap(h, at);
    if (h->broken) {
      return;
    }
  }
  feed(h, data, size);
}

int ckpt_hash_stream_end(ckpt_hash_stream *h, uint64_t size, uint64_t *whole) {
  if (!h->broken && h->at < size) {
    feed_gap(h, size);
  }
  if (h->broken || h->at != size) {
    return -1;
  }
  /* Ranges left are empty ones at the end of the file (or of an empty file). */
  for (; h->next < h->count; h->next++) {
    h->ranges[h->next].hash = XXH3_64bits(NULL, 0);
  }
  *whole = XXH3_64bits_digest(h->file_state);
  return 0;
}

/* A mapped window read past the end of its file (the file was shortened meanwhile) raises
 * SIGBUS in the thread that reads it: the handler jumps back to where that thread set
 * `bus_jump` (hash_mapped, or the worker), which reports it. */
static _Thread_local sigjmp_buf *bus_jump;

static void on_sigbus(int sig) {
  if (bus_jump == NULL) {
    /* Not a read of a mapped window: what SIGBUS does by default. */
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  siglongjmp(*bus_jump, 1);
}

/*
 * The second core's share of a mapped hash: the whole file's checksum of each window, while the
 * calling thread takes the ranges' (both read the window, which the page cache holds). Measured
 * (bench/RESULTS.md): st verify of a 1 GiB file hashes 2 GiB (the file and its tensors), 0.08 s
 * of CPU on one core, as long as the file's read; on two, the verify takes as long as `cat`.
 */
typedef struct hash_worker {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  XXH3_state_t *state;
  const unsigned char *data;
  size_t size;
  /* busy: a window is posted and not yet hashed; faulted: a window raised SIGBUS. */
  int busy, quit, faulted;
} hash_worker;

/* Hashes a window into `state`; returns 1 when reading it raised SIGBUS (the state is then
 * spoilt), else 0. */
static int update_guarded(XXH3_state_t *state, const unsigned char *data, size_t size) {
  sigjmp_buf jump;
  bus_jump = &jump;
  if (sigsetjmp(jump, 1) != 0) {
    bus_jump = NULL;
    return 1;
  }
  XXH3_64bits_update(state, data, size);
  bus_jump = NULL;
  return 0;
}

static void *worker_main(void *arg) {
  hash_worker *w = arg;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (!w->busy && !w->quit) {
      pthread_cond_wait(&w->cond, &w->lock);
    }
    if (!w->busy) {
      break;
    }
    const unsigned char *data = w->data;
    size_t size = w->size;
    pthread_mutex_unlock(&w->lock);
    int faulted = update_guarded(w->state, data, size);
    pthread_mutex_lock(&w->lock);
    w->faulted |= faulted;
    w->busy = 0;
    pthread_cond_broadcast(&w->cond);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

/* Starts the worker on `state` (0), or returns -1 (then the caller hashes alone). The worker
 * takes no asynchronous signal: those go to the calling thread, as without it. */
static int worker_start(hash_worker *w, XXH3_state_t *state) {
  memset(w, 0, sizeof *w);
  w->state = state;
  if (pthread_mutex_init(&w->lock, NULL) != 0) {
    return -1;
  }
  if (pthread_cond_init(&w->cond, NULL) != 0) {
    pthread_mutex_destroy(&w->lock);
    return -1;
  }
  int rc = thread_start(&w->thread, worker_main, w);
  if (rc != 0) {
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    return -1;
  }
  return 0;
}

static void worker_post(hash_worker *w, const unsigned char *data, size_t size) {
  pthread_mutex_lock(&w->lock);
  w->data = data;
  w->size = size;
  w->busy = 1;
  pthread_cond_broadcast(&w->cond);
  pthread_mutex_unlock(&w->lock);
}

/* Waits until the posted window is hashed; returns whether a window raised SIGBUS. */
static int worker_wait(hash_worker *w) {
  pthread_mutex_lock(&w->lock);
  while (w->busy) {
    pthread_cond_wait(&w->cond, &w->lock);
  }
  int faulted = w->faulted;
  pthread_mutex_unlock(&w->lock);
  return faulted;
}

static void worker_stop(hash_worker *w) {
  pthread_mutex_lock(&w->lock);
  w->quit = 1;
  pthread_cond_broadcast(&w->cond);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->cond);
  pthread_mutex_destroy(&w->lock);
}

/* Hashes the file from h->at through mapped windows, as far as mappings can be made (the rest
 * is read); with two windows or more, the whole file's checksum on a worker thread. Returns 0,
 * or CLI_EXIT_DATA when the file turned out shorter than `size`. */
static int hash_mapped(int fd, const char *path, uint64_t size, ckpt_hash_stream *h,
                       tool_error *err) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigbus;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGBUS, &sa, &old) != 0) {
    return 0; /* read it instead */
  }
  hash_worker worker;
  hash_worker *volatile w = NULL;
  if (size - h->at >= 2 * (uint64_t)HASH_WINDOW && worker_start(&worker, h->file_state) == 0) {
    w = &worker;
  }
  unsigned char *volatile map = NULL;
  volatile size_t want = 0;
  int rc = 0;
  sigjmp_buf jump;
  bus_jump = &jump;
  if (sigsetjmp(jump, 1) != 0) {
    if (w != NULL) {
      worker_wait(w); /* it may still read the window */
    }
    munmap(map, want);
    map = NULL;
    rc = CLI_EXIT_DATA;
  } else {
    while (h->at < size) {
      /* A window of the file mapped: hashed where the page cache holds it, without the copy
       * into a buffer that a read makes (bench/RESULTS.md). */
      want = size - h->at < HASH_WINDOW ? (size_t)(size - h->at) : HASH_WINDOW;
      void *m = mmap(NULL, want, PROT_READ, MAP_SHARED, fd, (off_t)h->at);
      if (m == MAP_FAILED) {
        break; /* read the rest */
      }
      map = m;
      (void)madvise(m, want, MADV_SEQUENTIAL);
      if (w != NULL) {
        worker_post(w, m, want);
        feed_ranges(h->ranges, h->count, &h->next, h->range_state, m, h->at, want);
        h->at += want;
        int faulted = worker_wait(w);
        munmap(m, want);
        map = NULL;
        if (faulted) {
          rc = CLI_EXIT_DATA;
          break;
        }
      } else {
        feed(h, m, want);
        munmap(m, want);
        map = NULL;
      }
    }
  }
  bus_jump = NULL;
  if (w != NULL) {
    worker_stop(w);
  }
  sigaction(SIGBUS, &old, NULL);
  if (rc != 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: the file ends before byte %llu (it was shortened while being read)", path,
                     (unsigned long long)size);
  }
  return 0;
}

int ckpt_hash_file(int fd, const char *path, uint64_t size, ckpt_hash_range *ranges, size_t count,
                   int mapped, uint64_t *whole, tool_error *err) {
  ckpt_hash_stream h;
  int rc = ckpt_hash_stream_init(&h, ranges, count, size, err);
  if (rc != 0) {
    return rc;
  }
  unsigned char *buf = malloc(HASH_CHUNK);
  if (buf == NULL) {
    rc = tool_oom(err, "hashing a file");
  } else {
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (mapped) {
      rc = hash_mapped(fd, path, size, &h, err);
    }
    while (rc == 0 && h.at < size) {
      size_t want = size - h.at < HASH_CHUNK ? (size_t)(size - h.at) : HASH_CHUNK;
      ssize_t got = pread(fd, buf, want, (off_t)h.at);
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got < 0) {
        rc = tool_fail(err, CLI_EXIT_IOERR, "%s: cannot read byte %llu: %s", path,
                       (unsigned long long)h.at, strerror(errno));
      } else if (got == 0) {
        rc = tool_fail(err, CLI_EXIT_DATA, "%s: the file ends at byte %llu, before byte %llu", path,
                       (unsigned long long)h.at, (unsigned long long)size);
      } else {
        feed(&h, buf, (size_t)got);
      }
    }
    if (rc == 0 && ckpt_hash_stream_end(&h, size, whole) != 0) {
      rc = tool_fail(err, CLI_EXIT_SOFTWARE, "internal error: %s was hashed out of order", path);
    }
  }
  ckpt_hash_stream_free(&h);
  free(buf);
  return rc;
}

int ckpt_hash_copy(io_source *in, int out, const char *out_path, uint64_t *bytes, uint64_t *hash,
                   tool_error *err) {
  unsigned char *buf = malloc(HASH_CHUNK);
  XXH3_state_t *state = XXH3_createState();
  int rc = 0;
  if (buf == NULL || state == NULL) {
    rc = tool_oom(err, "copying a file");
  } else {
    XXH3_64bits_reset(state);
    uint64_t at = 0;
    for (;;) {
      size_t got = 0;
      rc = io_source_read_upto(in, buf, HASH_CHUNK, at, &got, err);
      if (rc != 0 || got == 0) {
        break;
      }
      XXH3_64bits_update(state, buf, got);
      rc = io_write_full(out, out_path, buf, got, at, err);
      if (rc != 0) {
        break;
      }
      at += got;
    }
    *bytes = at;
    *hash = XXH3_64bits_digest(state);
  }
  XXH3_freeState(state);
  free(buf);
  return rc;
}
