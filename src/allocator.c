/*
 * The system allocator behind library-allocated outputs (`cleave_allocator_system`).
 *
 * Large blocks are mapped directly, aligned to 2 MiB and advised for transparent huge pages, so
 * that the first touch of each 2 MiB costs one page fault instead of 512; glibc would map them
 * too, but without the advice and only page-aligned. Smaller blocks come from posix_memalign.
 */
/* mmap's MAP_ANONYMOUS and posix_memalign are POSIX/BSD, outside strict C11. */
#define _DEFAULT_SOURCE 1

#include "allocator.h"

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

void *cleave_system_alloc(size_t size, size_t alignment, void *user) {
  (void)user;
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
    madvise(data, len, MADV_HUGEPAGE);
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
