/* Internal: the system allocator's functions, the arena's size classes and a residency probe,
 * shared by allocator.c, arena.c and run/allocated.c. Never installed. */
#ifndef CLEAVE_ALLOCATOR_H
#define CLEAVE_ALLOCATOR_H

#include "core/core.h"

/** The system allocator's `alloc` (see `cleave_allocator_system`): NULL for size 0 or an
 * alignment that is not a power of two up to CLEAVE_ALLOCATOR_MAX_ALIGNMENT. */
void *cleave_system_alloc(size_t size, size_t alignment, void *user);

/** The same with transparent-huge-page advice for mapped blocks: the arena's default backing.
 * Its blocks are released by `cleave_system_free`. */
void *cleave_huge_alloc(size_t size, size_t alignment, void *user);

/** The system allocator's `free`. */
void cleave_system_free(void *ptr, size_t size, void *user);

/**
 * The system allocator as the library's own code takes it (what `cleave_allocator_system`
 * returns). The library does not call the public function itself: a call from another file
 * leaves a declaration in that file's debug info which abidw (libabigail 2.2) then takes for the
 * function, so the ABI baseline would track it as a bare symbol without its signature.
 */
static inline cleave_allocator cleave_default_allocator(void) {
  cleave_allocator a = {cleave_system_alloc, cleave_system_free, NULL};
  return a;
}

/**
 * Whether the pages of [ptr, ptr + size) are resident (already touched), judged from its first,
 * middle and last page; false when it cannot be told. One cheap system call per probe: meant for
 * blocks of megabytes, to choose between the schedules for fresh and for reused memory.
 */
bool cleave_memory_resident(const void *ptr, size_t size);

/**
 * Makes the pages of [ptr, ptr + size) resident and writable in one system call (Linux 5.14's
 * MADV_POPULATE_WRITE; the contents are unchanged: fresh pages read as zero, touched ones keep
 * their bytes). Whole pages, including those the range only shares. False when it cannot be
 * done (another system, an older kernel, memory that cannot be populated); nothing is lost then.
 */
bool cleave_memory_populate(void *ptr, size_t size);

#endif /* CLEAVE_ALLOCATOR_H */
