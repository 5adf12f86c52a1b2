/*
 * The built-in thread pool: `num_threads - 1` workers plus the calling thread, handing out task
 * indices through an atomic counter. A pool is an object the caller creates and destroys; the
 * library keeps no pool of its own.
 *
 * Workers spin briefly after a job before sleeping, so that back-to-back runs do not pay a
 * wake-up each; a job's caller also spins briefly before sleeping on the completion.
 */
#include "engine.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* Spin iterations before sleeping: a few hundred microseconds of pauses. */
#define SPIN_LIMIT 20000
#define MAX_THREADS 1024

struct cleave_threadpool {
  size_t num_threads;
  size_t num_workers;
  pthread_t *workers;
  pthread_mutex_t run_lock; /* one job at a time */
  pthread_mutex_t lock;     /* guards sleeping on `wake` and `done` */
  pthread_cond_t wake;
  pthread_cond_t done;
  atomic_uint_fast64_t generation; /* bumped (under `lock`) to publish a job or the stop */
  atomic_size_t next;              /* next task index to hand out */
  atomic_size_t pending;           /* workers that have not finished the current job */
  atomic_int stop;
  /* The current job: written before `generation` is bumped, read after it is seen. */
  cleave_task_fn task;
  void *task_context;
  size_t count;
};

static void run_tasks(cleave_threadpool *pool) {
  size_t i;
  while ((i = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed)) < pool->count) {
    pool->task(pool->task_context, i);
  }
}

static uint_fast64_t wait_generation(cleave_threadpool *pool, uint_fast64_t seen) {
  for (int spin = 0; spin < SPIN_LIMIT; spin++) {
    uint_fast64_t g = atomic_load_explicit(&pool->generation, memory_order_acquire);
    if (g != seen) {
      return g;
    }
    CPU_RELAX();
  }
  pthread_mutex_lock(&pool->lock);
  uint_fast64_t g;
  while ((g = atomic_load_explicit(&pool->generation, memory_order_acquire)) == seen) {
    pthread_cond_wait(&pool->wake, &pool->lock);
  }
  pthread_mutex_unlock(&pool->lock);
  return g;
}

static void *worker_main(void *arg) {
  cleave_threadpool *pool = arg;
  uint_fast64_t seen = 0;
  for (;;) {
    seen = wait_generation(pool, seen);
    if (atomic_load_explicit(&pool->stop, memory_order_acquire)) {
      return NULL;
    }
    run_tasks(pool);
    if (atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&pool->lock);
      pthread_cond_signal(&pool->done);
      pthread_mutex_unlock(&pool->lock);
    }
  }
}

/* Publishes the stop to the first `started` workers and joins them. */
static void stop_workers(cleave_threadpool *pool, size_t started) {
  pthread_mutex_lock(&pool->lock);
  atomic_store_explicit(&pool->stop, 1, memory_order_release);
  atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  for (size_t i = 0; i < started; i++) {
    pthread_join(pool->workers[i], NULL);
  }
}

static void release(cleave_threadpool *pool) {
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->lock);
  pthread_mutex_destroy(&pool->run_lock);
  free(pool->workers);
  free(pool);
}

cleave_status cleave_threadpool_create(size_t num_threads, cleave_threadpool **pool,
                                       cleave_error *err) {
  if (pool == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_threadpool_create needs a pool result");
  }
  *pool = NULL;
  if (num_threads < 1 || num_threads > MAX_THREADS) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "num_threads is %zu but must be in [1, %d]", num_threads, MAX_THREADS);
  }
  cleave_threadpool *p = calloc(1, sizeof *p);
  if (p == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate a thread pool");
  }
  p->num_threads = num_threads;
  p->num_workers = num_threads - 1;
  atomic_init(&p->generation, 0);
  atomic_init(&p->next, 0);
  atomic_init(&p->pending, 0);
  atomic_init(&p->stop, 0);
  pthread_mutex_init(&p->run_lock, NULL);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  if (p->num_workers > 0) {
    p->workers = calloc(p->num_workers, sizeof *p->workers);
    if (p->workers == NULL) {
      release(p);
      return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate %zu worker handles",
                         num_threads - 1);
    }
  }
  for (size_t i = 0; i < p->num_workers; i++) {
    if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
      stop_workers(p, i);
      release(p);
      return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY,
                         "cannot start worker thread %zu of a pool of %zu threads", i + 1,
                         num_threads);
    }
  }
  *pool = p;
  return cleave_succeed(err);
}

void cleave_threadpool_destroy(cleave_threadpool *pool) {
  if (pool != NULL) {
    stop_workers(pool, pool->num_workers);
    release(pool);
  }
}

size_t cleave_threadpool_threads(const cleave_threadpool *pool) {
  return pool != NULL ? pool->num_threads : 0;
}

void cleave_threadpool_parallel_for(void *pool_context, cleave_task_fn task, void *task_context,
                                    size_t count) {
  cleave_threadpool *pool = pool_context;
  if (count == 0) {
    return;
  }
  if (pool == NULL || pool->num_workers == 0 || count == 1) {
    for (size_t i = 0; i < count; i++) {
      task(task_context, i);
    }
    return;
  }
  pthread_mutex_lock(&pool->run_lock);
  pool->task = task;
  pool->task_context = task_context;
  pool->count = count;
  atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
  atomic_store_explicit(&pool->pending, pool->num_workers, memory_order_relaxed);
  pthread_mutex_lock(&pool->lock);
  atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  run_tasks(pool);
  /* Every worker must have seen this job before the next one is published. */
  for (int spin = 0; spin < SPIN_LIMIT; spin++) {
    if (atomic_load_explicit(&pool->pending, memory_order_acquire) == 0) {
      break;
    }
    CPU_RELAX();
  }
  if (atomic_load_explicit(&pool->pending, memory_order_acquire) != 0) {
    pthread_mutex_lock(&pool->lock);
    while (atomic_load_explicit(&pool->pending, memory_order_acquire) != 0) {
      pthread_cond_wait(&pool->done, &pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
  }
  pthread_mutex_unlock(&pool->run_lock);
}

cleave_exec cleave_exec_threadpool(cleave_threadpool *pool) {
  cleave_exec exec = {NULL, NULL, 0};
  if (pool != NULL) {
    exec.parallel_for = cleave_threadpool_parallel_for;
    exec.context = pool;
    exec.num_threads = pool->num_threads;
  }
  return exec;
}
