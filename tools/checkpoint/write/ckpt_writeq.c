/* Positioned writes on a second thread: a ring of slots filled by the caller, written in order. */
#include "ckpt_writeq.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "error.h"
#include "io.h"
#include "thread_start.h"

typedef struct slot {
  unsigned char *data;
  int fd;
  const char *path;
  size_t size;
  uint64_t offset;
} slot;

struct ckpt_writeq {
  pthread_mutex_t lock;
  /* `filled`: a slot was queued, or the queue stops; `freed`: a slot was written. */
  pthread_cond_t filled, freed;
  pthread_t thread;
  slot *slots;
  size_t slot_count, slot_bytes;
  /* The slots queued: `count` from index `head` on (the one at head may be being written). */
  size_t head, count;
  int stopping;
  /* The first failure; whether it was printed. */
  int failed, reported;
  tool_error error;
};

static void *write_slots(void *arg) {
  ckpt_writeq *q = arg;
  pthread_mutex_lock(&q->lock);
  for (;;) {
    while (q->count == 0 && !q->stopping) {
      pthread_cond_wait(&q->filled, &q->lock);
    }
    if (q->count == 0) {
      break;
    }
    slot *s = &q->slots[q->head];
    int skip = q->failed;
    pthread_mutex_unlock(&q->lock);
    tool_error err;
    int rc = skip ? 0 : io_write_full(s->fd, s->path, s->data, s->size, s->offset, &err);
    pthread_mutex_lock(&q->lock);
    if (rc != 0 && !q->failed) {
      q->failed = 1;
      q->error = err;
    }
    q->head = (q->head + 1) % q->slot_count;
    q->count--;
    pthread_cond_broadcast(&q->freed);
  }
  pthread_mutex_unlock(&q->lock);
  return NULL;
}

/* Under the lock: the failure, printed the first time. */
static int failure(ckpt_writeq *q) {
  if (q->reported) {
    return q->error.status;
  }
  q->reported = 1;
  return tool_report(&q->error);
}

static void release(ckpt_writeq *q) {
  for (size_t i = 0; i < q->slot_count; i++) {
    free(q->slots[i].data);
  }
  free(q->slots);
  free(q);
}

/* Whether a second thread may write: two CPUs or more to run on, and CLEAVE_WRITE_THREAD not 0. */
static int thread_wanted(void) {
  const char *text = getenv("CLEAVE_WRITE_THREAD");
  if (text != NULL && text[0] != '\0' && strcmp(text, "1") != 0) {
    if (strcmp(text, "0") == 0) {
      return 0;
    }
    cli_warning("CLEAVE_WRITE_THREAD='%s' is not 0 or 1: using 1", text);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
}

int ckpt_writeq_start(ckpt_writeq **out, size_t slot_bytes, size_t slots) {
  *out = NULL;
  if (slots == 0 || slot_bytes == 0 || !thread_wanted()) {
    return 0;
  }
  ckpt_writeq *q = calloc(1, sizeof *q);
  if (q == NULL || (q->slots = calloc(slots, sizeof *q->slots)) == NULL) {
    free(q);
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs");
  }
  q->slot_count = slots;
  q->slot_bytes = slot_bytes;
  for (size_t i = 0; i < slots; i++) {
    void *p = NULL;
    if (posix_memalign(&p, 64, slot_bytes) != 0) {
      release(q);
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory writing the outputs");
    }
    q->slots[i].data = p;
  }
  if (pthread_mutex_init(&q->lock, NULL) != 0) {
    release(q);
    return 0;
  }
  if (pthread_cond_init(&q->filled, NULL) != 0) {
    pthread_mutex_destroy(&q->lock);
    release(q);
    return 0;
  }
  if (pthread_cond_init(&q->freed, NULL) != 0) {
    pthread_cond_destroy(&q->filled);
    pthread_mutex_destroy(&q->lock);
    release(q);
    return 0;
  }
  if (thread_start(&q->thread, write_slots, q) != 0) {
    pthread_cond_destroy(&q->freed);
    pthread_cond_destroy(&q->filled);
    pthread_mutex_destroy(&q->lock);
    release(q); /* no thread: the caller writes itself */
    return 0;
  }
  *out = q;
  return 0;
}

int ckpt_writeq_put(ckpt_writeq *q, int fd, const char *path, const void *buf, size_t size,
                    uint64_t offset) {
  const unsigned char *p = buf;
  while (size > 0) {
    size_t n = size < q->slot_bytes ? size : q->slot_bytes;
    pthread_mutex_lock(&q->lock);
    if (q->failed) {
      int rc = failure(q);
      pthread_mutex_unlock(&q->lock);
      return rc;
    }
    if (q->count == q->slot_count) {
      /* The thread is behind (or not running: the other CPUs are busy): this one writes. */
      pthread_mutex_unlock(&q->lock);
      tool_error err;
      if (io_write_full(fd, path, p, size, offset, &err) != 0) {
        pthread_mutex_lock(&q->lock);
        if (!q->failed) {
          q->failed = 1;
          q->error = err;
        }
        int rc = failure(q);
        pthread_mutex_unlock(&q->lock);
        return rc;
      }
      return 0;
    }
    slot *s = &q->slots[(q->head + q->count) % q->slot_count];
    pthread_mutex_unlock(&q->lock);
    /* The slot past the queued ones is the caller's until it is counted in. */
    memcpy(s->data, p, n);
    s->fd = fd;
    s->path = path;
    s->size = n;
    s->offset = offset;
    pthread_mutex_lock(&q->lock);
    q->count++;
    pthread_cond_signal(&q->filled);
    pthread_mutex_unlock(&q->lock);
    p += n;
    offset += n;
    size -= n;
  }
  return 0;
}

int ckpt_writeq_drain(ckpt_writeq *q) {
  pthread_mutex_lock(&q->lock);
  while (q->count > 0) {
    pthread_cond_wait(&q->freed, &q->lock);
  }
  int rc = q->failed ? failure(q) : 0;
  pthread_mutex_unlock(&q->lock);
  return rc;
}

void ckpt_writeq_stop(ckpt_writeq *q) {
  if (q == NULL) {
    return;
  }
  pthread_mutex_lock(&q->lock);
  q->stopping = 1;
  pthread_cond_signal(&q->filled);
  pthread_mutex_unlock(&q->lock);
  pthread_join(q->thread, NULL);
  pthread_cond_destroy(&q->freed);
  pthread_cond_destroy(&q->filled);
  pthread_mutex_destroy(&q->lock);
  release(q);
}
