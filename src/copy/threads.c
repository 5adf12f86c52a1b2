/*
 * The built-in thread pool: `num_threads - 1` workers plus the calling thread. A pool is an
 * object the caller creates and destroys; the library keeps no pool of its own.
 *
 * A job is published as one atomic word holding its generation (high 32 bits) and the next task
 * index (low 32 bits). Every thread, the caller included, claims indices by compare-and-swap on
 * that word, so a worker that wakes late, or is descheduled by a busy machine, never delays a
 * job it took no task of: the caller only waits for tasks that were claimed. A worker that comes
 * back after its job ended sees a new generation, or an exhausted one, and claims nothing.
 *
 * A new job first closes the word (a generation of its own whose index claims nothing), then
 * writes its task and count, then opens the next generation. Without the closing step a worker
 * could read the new, larger count under the old exhausted word and claim an index of a job
 * that was not yet published: that task ran twice and the caller, counting one return too many,
 * waited forever (tests/kernels/test_pool.c).
 *
 * A parallel-for that finds the pool busy (a nested call from one of the job's tasks, or a call
 * from another thread) runs its tasks inline on its own thread: nested and concurrent use never
 * waits on the pool, so it cannot deadlock (tests/kernels/test_nested_pool.c).
 *
 * Workers spin briefly after a job before sleeping, so that back-to-back runs do not each pay a
 * wake-up; the caller also spins briefly before sleeping on the job's completion.
 */
#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* Spin iterations before sleeping: on the order of a hundred microseconds of pauses. */
#define SPIN_LIMIT 4000
#define MAX_THREADS 1024
/* The index of a closed job word: no count reaches it. */
#define CLOSED_INDEX ((uint_fast64_t)UINT32_MAX)
/* Tasks per job: the index must fit the low half of the job word, below CLOSED_INDEX. */
#define MAX_JOB_TASKS ((size_t)UINT32_MAX - 1)

struct cleave_threadpool {
  size_t num_threads;
  size_t num_workers;
  pthread_t *workers;
  pthread_mutex_t run_lock; /* one job at a time (taken with trylock only) */
  pthread_mutex_t lock;     /* guards sleeping on `wake` and `finished` */
  pthread_cond_t wake;
  pthread_cond_t finished;
  atomic_uint_fast64_t job; /* generation << 32 | next task index */
  atomic_size_t done;       /* tasks of the current job that have returned */
  atomic_int stop;
  /* The current job: written while the job word is closed, constant until the job is done.
   * Atomic because a worker that comes back late may read them while the next job is being
   * written: the release stores and acquire loads make the closed word visible to such a
   * worker's claim, which then fails. */
  _Atomic(cleave_task_fn) task;
  _Atomic(void *) task_context;
  atomic_size_t count;
};

static uint32_t generation_of(uint_fast64_t job) {
  return (uint32_t)(job >> 32);
}

/* Claims and runs tasks of generation `gen` until none is left, or the job word shows another
 * generation. */
static void run_tasks(cleave_threadpool *pool, uint32_t gen) {
  for (;;) {
    uint_fast64_t w = atomic_load_explicit(&pool->job, memory_order_acquire);
    if (generation_of(w) != gen) {
      return;
    }
    /* Read after the generation was seen: these are this job's (it cannot end while an index
     * below its count is unclaimed, and the claim below fails if it moved on). */
    size_t count = atomic_load_explicit(&pool->count, memory_order_acquire);
    cleave_task_fn task = atomic_load_explicit(&pool->task, memory_order_acquire);
    void *context = atomic_load_explicit(&pool->task_context, memory_order_acquire);
    size_t index = (size_t)(w & 0xFFFFFFFFu);
    if (index == CLOSED_INDEX || index >= count) {
      return;
    }
    if (!atomic_compare_exchange_weak_explicit(&pool->job, &w, w + 1, memory_order_acq_rel,
                                               memory_order_acquire)) {
      continue;
    }
    task(context, index);
    if (atomic_fetch_add_explicit(&pool->done, 1, memory_order_acq_rel) + 1 == count) {
      pthread_mutex_lock(&pool->lock);
      pthread_cond_signal(&pool->finished);
      pthread_mutex_unlock(&pool->lock);
    }
  }
}

/* Waits until the job word shows a generation other than `seen` (or the pool stops). */
static uint32_t wait_generation(cleave_threadpool *pool, uint32_t seen) {
  for (int spin = 0; spin < SPIN_LIMIT; spin++) {
    uint32_t g = generation_of(atomic_load_explicit(&pool->job, memory_order_acquire));
    if (g != seen || atomic_load_explicit(&pool->stop, memory_order_acquire)) {
      return g;
    }
    CPU_RELAX();
  }
  pthread_mutex_lock(&pool->lock);
  uint32_t g;
  while ((g = generation_of(atomic_load_explicit(&pool->job, memory_order_acquire))) == seen &&
         !atomic_load_explicit(&pool->stop, memory_order_acquire)) {
    pthread_cond_wait(&pool->wake, &pool->lock);
  }
  pthread_mutex_unlock(&pool->lock);
  return g;
}

static void *worker_main(void *arg) {
  cleave_threadpool *pool = arg;
  uint32_t seen = 0;
  for (;;) {
    seen = wait_generation(pool, seen);
    if (atomic_load_explicit(&pool->stop, memory_order_acquire)) {
      return NULL;
    }
    run_tasks(pool, seen);
  }
}

/* Publishes the stop to the first `started` workers and joins them. */
static void stop_workers(cleave_threadpool *pool, size_t started) {
  pthread_mutex_lock(&pool->lock);
  atomic_store_explicit(&pool->stop, 1, memory_order_release);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  for (size_t i = 0; i < started; i++) {
    pthread_join(pool->workers[i], NULL);
  }
}

static void release(cleave_threadpool *pool) {
  pthread_cond_destroy(&pool->finished);
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
  atomic_init(&p->job, 0);
  atomic_init(&p->done, 0);
  atomic_init(&p->stop, 0);
  atomic_init(&p->task, NULL);
  atomic_init(&p->task_context, NULL);
  atomic_init(&p->count, 0);
  pthread_mutex_init(&p->run_lock, NULL);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->finished, NULL);
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

/* One job: publish it, take part, wait for every claimed task to return. */
static void run_job(cleave_threadpool *pool, cleave_task_fn task, void *task_context,
                    size_t count) {
  /* Close the word: a claim under the previous generation fails from here on (its job is done:
   * only this caller, holding run_lock, writes the word apart from claims). */
  uint32_t closed = generation_of(atomic_load_explicit(&pool->job, memory_order_relaxed)) + 1;
  atomic_store_explicit(&pool->job, ((uint_fast64_t)closed << 32) | CLOSED_INDEX,
                        memory_order_relaxed);
  /* Release: a worker that reads any of these also sees the closed word. */
  atomic_store_explicit(&pool->task, task, memory_order_release);
  atomic_store_explicit(&pool->task_context, task_context, memory_order_release);
  atomic_store_explicit(&pool->count, count, memory_order_release);
  atomic_store_explicit(&pool->done, 0, memory_order_relaxed);
  uint32_t gen = closed + 1;
  atomic_store_explicit(&pool->job, (uint_fast64_t)gen << 32, memory_order_release);
  /* Sleeping workers are woken; spinning ones have already seen the new word. */
  pthread_mutex_lock(&pool->lock);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  run_tasks(pool, gen);
  for (int spin = 0; spin < SPIN_LIMIT; spin++) {
    if (atomic_load_explicit(&pool->done, memory_order_acquire) == count) {
      return;
    }
    CPU_RELAX();
  }
  pthread_mutex_lock(&pool->lock);
  while (atomic_load_explicit(&pool->done, memory_order_acquire) != count) {
    pthread_cond_wait(&pool->finished, &pool->lock);
  }
  pthread_mutex_unlock(&pool->lock);
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
  if (count > MAX_JOB_TASKS) {
    /* Task indices must fit the job word; the library never asks for that many. */
    for (size_t i = 0; i < count; i++) {
      task(task_context, i);
    }
    return;
  }
  /* One job at a time. A call made while a job runs, whether from one of that job's tasks (on a
   * worker, or on the thread that started it) or from another thread, runs its tasks here, on
   * the calling thread: waiting for the job instead would never end when the caller is one of
   * its tasks, directly or through another pool's task, and holding `run_lock` again from the
   * thread that holds it is undefined. trylock fails for every such caller and never blocks. */
  if (pthread_mutex_trylock(&pool->run_lock) != 0) {
    for (size_t i = 0; i < count; i++) {
      task(task_context, i);
    }
    return;
  }
  run_job(pool, task, task_context, count);
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
