/*
 * The output arena: freed blocks are kept, up to a byte limit, in lists by size class and in one
 * list by age, and handed to the next allocation of their class. Every function takes one mutex;
 * blocks go back to the backing allocator outside it (unmapping can take milliseconds).
 *
 * Whoever brings the last used block back after a destroy (or the destroy itself, when none is
 * in use) releases the arena, and may do so as soon as it leaves the lock: so every function
 * takes what it needs of the arena (the backing allocator) while it holds the lock, and touches
 * the arena no more once it has left it, unless the arena is still its own to use.
 *
 * Size classes: whole 4 KiB pages up to 64 KiB, then eight classes per doubling (a size is
 * rounded up by at most 1/8). A block's class follows from the size it was asked for, so `free`,
 * which receives that size, finds the class without a lookup. A kept block's bookkeeping lives
 * in its own first bytes (its pages are the caller's no longer), so keeping costs no allocation.
 */
#include "memory/allocator.h"

#include <pthread.h>
#include <stdlib.h>

#define PAGE ((size_t)4096)
#define SMALL_LIMIT ((size_t)64 * 1024)
#define SMALL_CLASSES 16 /* 4 KiB .. 64 KiB */
#define STEPS_LOG2 3     /* eight classes per doubling above SMALL_LIMIT */
#define NUM_CLASSES (SMALL_CLASSES + (64 - 16) * 8)

_Static_assert(CLEAVE_ALLOCATOR_MAX_ALIGNMENT <= PAGE, "blocks are page-aligned");

/* A kept block, written over its first bytes. */
typedef struct kept_block {
  struct kept_block *class_prev, *class_next; /* same class, most recently freed first */
  struct kept_block *age_prev, *age_next;     /* all classes, most recently freed first */
  size_t capacity;
  size_t index;
} kept_block;

struct cleave_arena {
  pthread_mutex_t lock;
  cleave_allocator backing;
  size_t limit;
  size_t kept_bytes, kept_blocks, used_bytes, used_blocks;
  size_t reused, allocated;
  bool destroyed; /* released when the last used block comes back */
  kept_block *classes[NUM_CLASSES];
  kept_block *newest, *oldest;
};

/* Rounds `size` up to its class; false when that overflows. */
static bool size_class(size_t size, size_t *capacity, size_t *index) {
  if (size <= SMALL_LIMIT) {
    size_t pages = size == 0 ? 1 : (size + PAGE - 1) / PAGE;
    *capacity = pages * PAGE;
    *index = pages - 1;
    return true;
  }
  /* 2^k < size <= 2^(k+1), k >= 16: steps of 2^(k-3). */
  unsigned k = 63u - (unsigned)__builtin_clzll((unsigned long long)(size - 1));
  size_t step = (size_t)1 << (k - STEPS_LOG2);
  if (size > SIZE_MAX - (step - 1)) {
    return false;
  }
  size_t c = (size + step - 1) & ~(step - 1);
  *capacity = c;
  /* c = 2^k + j * step with j in 1..8 (j = 8 is 2^(k+1), the last class of this doubling). */
  *index = SMALL_CLASSES + (size_t)(k - 16) * 8 + ((c - ((size_t)1 << k)) >> (k - STEPS_LOG2)) - 1;
  return true;
}

static void unlink_block(cleave_arena *a, kept_block *b) {
  if (b->class_prev != NULL) {
    b->class_prev->class_next = b->class_next;
  } else {
    a->classes[b->index] = b->class_next;
  }
  if (b->class_next != NULL) {
    b->class_next->class_prev = b->class_prev;
  }
  if (b->age_prev != NULL) {
    b->age_prev->age_next = b->age_next;
  } else {
    a->newest = b->age_next;
  }
  if (b->age_next != NULL) {
    b->age_next->age_prev = b->age_prev;
  } else {
    a->oldest = b->age_prev;
  }
  a->kept_bytes -= b->capacity;
  a->kept_blocks--;
}

static void keep_block(cleave_arena *a, kept_block *b, size_t capacity, size_t index) {
  b->capacity = capacity;
  b->index = index;
  b->class_prev = NULL;
  b->class_next = a->classes[index];
  if (b->class_next != NULL) {
    b->class_next->class_prev = b;
  }
  a->classes[index] = b;
  b->age_prev = NULL;
  b->age_next = a->newest;
  if (b->age_next != NULL) {
    b->age_next->age_prev = b;
  } else {
    a->oldest = b;
  }
  a->newest = b;
  a->kept_bytes += capacity;
  a->kept_blocks++;
}

/* Unlinks kept blocks, oldest first, until at most `keep` bytes are kept; returns them chained
 * through `age_next` (released by `release_chain` outside the lock). */
static kept_block *take_oldest(cleave_arena *a, size_t keep, size_t *bytes) {
  kept_block *chain = NULL;
  *bytes = 0;
  while (a->kept_bytes > keep && a->oldest != NULL) {
    kept_block *b = a->oldest;
    unlink_block(a, b);
    *bytes += b->capacity;
    b->age_next = chain;
    chain = b;
  }
  return chain;
}

/* `backing` is a copy: the arena may be gone by the time the chain is released. */
static void release_chain(cleave_allocator backing, kept_block *chain) {
  while (chain != NULL) {
    kept_block *next = chain->age_next;
    backing.free(chain, chain->capacity, backing.user);
    chain = next;
  }
}

static void arena_release(cleave_arena *a) {
  pthread_mutex_destroy(&a->lock);
  free(a);
}

static void *arena_alloc(size_t size, size_t alignment, void *user) {
  cleave_arena *a = user;
  size_t capacity = 0, index = 0;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > PAGE ||
      !size_class(size, &capacity, &index)) {
    return NULL;
  }
  pthread_mutex_lock(&a->lock);
  kept_block *b = a->classes[index];
  if (b != NULL) {
    unlink_block(a, b);
    a->reused++;
    a->used_bytes += capacity;
    a->used_blocks++;
    pthread_mutex_unlock(&a->lock);
    return b;
  }
  pthread_mutex_unlock(&a->lock);
  void *p = a->backing.alloc(capacity, PAGE, a->backing.user);
  if (p == NULL) {
    /* Under memory pressure the kept blocks are better spent on this allocation. */
    if (cleave_arena_trim(a, 0) == 0) {
      return NULL;
    }
    p = a->backing.alloc(capacity, PAGE, a->backing.user);
    if (p == NULL) {
      return NULL;
    }
  }
  pthread_mutex_lock(&a->lock);
  a->allocated++;
  a->used_bytes += capacity;
  a->used_blocks++;
  pthread_mutex_unlock(&a->lock);
  return p;
}

static void arena_free(void *ptr, size_t size, void *user) {
  cleave_arena *a = user;
  size_t capacity = 0, index = 0;
  if (ptr == NULL || !size_class(size, &capacity, &index)) {
    return; /* no block of this arena has such a size */
  }
  kept_block *evicted = NULL;
  bool release_block = true, release_arena = false;
  pthread_mutex_lock(&a->lock);
  /* Once the lock is left, another thread's last free may release the arena. */
  cleave_allocator backing = a->backing;
  a->used_bytes -= capacity;
  a->used_blocks--;
  if (a->destroyed) {
    release_arena = a->used_blocks == 0;
  } else if (capacity <= a->limit) {
    size_t bytes = 0;
    evicted = take_oldest(a, a->limit - capacity, &bytes);
    keep_block(a, ptr, capacity, index);
    release_block = false;
  }
  pthread_mutex_unlock(&a->lock);
  release_chain(backing, evicted);
  if (release_block) {
    backing.free(ptr, capacity, backing.user);
  }
  if (release_arena) {
    arena_release(a);
  }
}

cleave_status cleave_arena_create(size_t limit_bytes, const cleave_allocator *backing,
                                  cleave_arena **arena, cleave_error *err) {
  if (arena == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the arena pointer is NULL");
  }
  *arena = NULL;
  if (backing != NULL && (backing->alloc == NULL || backing->free == NULL)) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "the backing allocator's %s function is NULL",
                       backing->alloc == NULL ? "alloc" : "free");
  }
  cleave_arena *a = calloc(1, sizeof *a);
  if (a == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot allocate an arena");
  }
  if (pthread_mutex_init(&a->lock, NULL) != 0) {
    free(a);
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY, "cannot create the arena's mutex");
  }
  if (backing != NULL) {
    a->backing = *backing;
  } else {
    /* Huge pages for blocks that are touched once and then kept (see allocator.c). */
    a->backing.alloc = cleave_huge_alloc;
    a->backing.free = cleave_system_free;
    a->backing.user = NULL;
  }
  a->limit = limit_bytes;
  *arena = a;
  return cleave_succeed(err);
}

void cleave_arena_destroy(cleave_arena *arena) {
  if (arena == NULL) {
    return;
  }
  size_t bytes = 0;
  pthread_mutex_lock(&arena->lock);
  /* Once the lock is left, the last used block's free may release the arena. */
  cleave_allocator backing = arena->backing;
  arena->destroyed = true;
  kept_block *chain = take_oldest(arena, 0, &bytes);
  bool release_arena = arena->used_blocks == 0;
  pthread_mutex_unlock(&arena->lock);
  release_chain(backing, chain);
  if (release_arena) {
    arena_release(arena);
  }
}

size_t cleave_arena_trim(cleave_arena *arena, size_t keep_bytes) {
  if (arena == NULL) {
    return 0;
  }
  size_t bytes = 0;
  pthread_mutex_lock(&arena->lock);
  kept_block *chain = take_oldest(arena, keep_bytes, &bytes);
  pthread_mutex_unlock(&arena->lock);
  release_chain(arena->backing, chain);
  return bytes;
}

cleave_arena_stats cleave_arena_get_stats(cleave_arena *arena) {
  cleave_arena_stats s = {0, 0, 0, 0, 0, 0, 0};
  if (arena == NULL) {
    return s;
  }
  pthread_mutex_lock(&arena->lock);
  s.limit_bytes = arena->limit;
  s.kept_bytes = arena->kept_bytes;
  s.kept_blocks = arena->kept_blocks;
  s.used_bytes = arena->used_bytes;
  s.used_blocks = arena->used_blocks;
  s.reused = arena->reused;
  s.allocated = arena->allocated;
  pthread_mutex_unlock(&arena->lock);
  return s;
}

cleave_allocator cleave_arena_allocator(cleave_arena *arena) {
  cleave_allocator a = {NULL, NULL, NULL};
  if (arena != NULL) {
    a = (cleave_allocator){arena_alloc, arena_free, arena};
  }
  return a;
}
