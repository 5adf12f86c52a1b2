/*
 * A preloaded stand-in for madvise that refuses MADV_POPULATE_WRITE as a kernel before Linux 5.14
 * does (EINVAL) and passes every other advice on: it lets arena.test_allocator_no_populate run
 * the allocating calls' fallback for systems that cannot populate memory.
 */
#define _GNU_SOURCE 1 /* RTLD_NEXT */

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int madvise(void *addr, size_t length, int advice) {
  if (advice == MADV_POPULATE_WRITE) {
    errno = EINVAL;
    return -1;
  }
  int (*next)(void *, size_t, int) = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "madvise");
  if (next == NULL) {
    errno = ENOSYS;
    return -1;
  }
  return next(addr, length, advice);
}
