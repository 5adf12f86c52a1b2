/*
 * The system allocator behind library-allocated outputs (`cleave_allocator_system`), and its
 * variant with transparent-huge-page advice that the output arena uses by default.
 *
 * Large blocks are mapped directly, 2 MiB-aligned. Only the arena's are advised for huge pages.
 * Measured on this project's VM (whose host takes freed guest memory back after about a second,
 * and whose kernel compacts synchronously for advised regions: defrag=madvise): first touch of
 * 256 MiB costs 42 ms with huge pages when free memory is at hand but 460-690 ms after a pause
 * of 1 s, against a steady 121-130 ms with 4 KiB pages; an allocating split of (b) took
 * 38-745 ms with the advice and 152-170 ms (1 thread) / 86-90 ms (2 threads) without. One-shot
 * allocations therefore take 4 KiB pages (predictable, and 2 threads faster than 1), while the
 * arena, which touches a block once and then keeps it, takes huge pages (fewer TLB misses on
 * every reuse). Smaller blocks come from posix_memalign.
 */
/* mmap's MAP_ANONYMOUS and posix_memalign are POSIX/BSD, outside strict C11. */
#define _DEFAULT_SOURCE 1

#include "memory/allocator.h"

#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#define CLEAVE_HAVE_MMAP 1
#endif

#define HUGE_PAGE ((size_t)2 * 1024 * 1024)
/* Blocks from this size on are mapped. */
#define MAP_MIN ((size_t)4 * 1024 * 1024)

/* The mapped length of a block of `size` bytes: whole huge pages. */
static size_t mapped_length(size_t size) {
  return (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/* Whether a block of `size` bytes is mapped (decided by the size alone, so that free knows). */
static bool maps(size_t size) {
#if defined(CLEAVE_HAVE_MMAP)
  return size >= MAP_MIN && size <= SIZE_MAX - 2 * HUGE_PAGE;
#else
  (void)size;
  return false;
#endif
}

static void *map_alloc(size_t size, size_t alignment, bool huge) {
  if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0 ||
      alignment > CLEAVE_ALLOCATOR_MAX_ALIGNMENT) {
    return NULL;
  }
#if defined(CLEAVE_HAVE_MMAP)
  if (maps(size)) {
    /* Map one huge page more than needed, keep the 2 MiB-aligned part, unmap the slack. */
    size_t len = mapped_length(size), map_len = len + HUGE_PAGE;
    unsigned char *map =
        mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
      return NULL;
    }
    uintptr_t at = ((uintptr_t)map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    unsigned char *data = map + (at - (uintptr_t)map), *end = data + len;
    if (data > map) {
      munmap(map, (size_t)(data - map));
    }
    if (map + map_len > end) {
      munmap(end, (size_t)(map + map_len - end));
    }
#if defined(MADV_HUGEPAGE)
    /* Advice only: without transparent huge pages the block still works. */
    if (huge) {
      madvise(data, len, MADV_HUGEPAGE);
    }
#else
    (void)huge;
#endif
    return data;
  }
#endif
  void *p = NULL;
  if (posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, size) != 0) {
    return NULL;
  }
  return p;
}

void *cleave_system_alloc(size_t size, size_t alignment, void *user) {
  (void)user;
  return map_alloc(size, alignment, false);
}

void *cleave_huge_alloc(size_t size, size_t alignment, void *user) {
  (void)user;
  return map_alloc(size, alignment, true);
}

void cleave_system_free(void *ptr, size_t size, void *user) {
  (void)user;
  if (ptr == NULL) {
    return;
  }
#if defined(CLEAVE_HAVE_MMAP)
  if (maps(size)) {
    munmap(ptr, mapped_length(size));
    return;
  }
#endif
  free(ptr);
}

cleave_allocator cleave_allocator_system(void) {
  return cleave_default_allocator();
}

bool cleave_memory_resident(const void *ptr, size_t size) {
#if defined(CLEAVE_HAVE_MMAP)
  long page_size = sysconf(_SC_PAGESIZE);
  if (page_size <= 0 || size == 0) {
    return false;
  }
  uintptr_t page = (uintptr_t)page_size;
  uintptr_t first = (uintptr_t)ptr & ~(page - 1);
  uintptr_t last = ((uintptr_t)ptr + size - 1) & ~(page - 1);
  /* Three probes (first, middle and last page): a block is either reused whole or fresh. */
  uintptr_t probes[3] = {first, first + ((last - first) / 2 & ~(page - 1)), last};
  for (int i = 0; i < 3; i++) {
    unsigned char vec = 0;
    if (mincore((void *)probes[i], (size_t)page, &vec) != 0 || (vec & 1) == 0) {
      return false;
    }
  }
  return true;
#else
  (void)ptr;
  (void)size;
  return false;
#endif
}

bool cleave_memory_populate(void *ptr, size_t size) {
#if defined(CLEAVE_HAVE_MMAP) && defined(MADV_POPULATE_WRITE)
  long page_size = sysconf(_SC_PAGESIZE);
  if (page_size <= 0 || size == 0) {
    return false;
  }
  uintptr_t page = (uintptr_t)page_size;
  uintptr_t first = (uintptr_t)ptr & ~(page - 1);
  uintptr_t end = ((uintptr_t)ptr + size + page - 1) & ~(page - 1);
  return madvise((void *)first, (size_t)(end - first), MADV_POPULATE_WRITE) == 0;
#else
  (void)ptr;
  (void)size;
  return false;
#endif
}
