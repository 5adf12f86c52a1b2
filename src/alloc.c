/*
 * Library-allocated outputs: one block holding every output, preceded by a small header that lets
 * `cleave_outputs_free` release it from the first output's address. Each output starts on a new
 * 64-byte line, at the offset within it of its first input byte.
 *
 * Large blocks are mapped directly, aligned to 2 MiB and advised for transparent huge pages, so
 * that the first touch of each 2 MiB costs one page fault instead of 512.
 */
/* mmap's MAP_ANONYMOUS and posix_memalign are POSIX/BSD, outside strict C11. */
#define _DEFAULT_SOURCE 1

#include "engine.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#define CLEAVE_HAVE_MMAP 1
#endif

#define ALIGNMENT 64
/* Outputs of at least PAGE_MATCH_MIN bytes start at their input's offset within a 4 KiB page. */
#define PAGE_GRAIN ((int64_t)4096)
#define PAGE_MATCH_MIN ((int64_t)1024 * 1024)
#define HEADER_SIZE 64
#define HUGE_PAGE ((size_t)2 * 1024 * 1024)
/* Blocks from this size on are mapped: glibc would map them anyway, without the advice. */
#define MAP_MIN ((size_t)4 * 1024 * 1024)

typedef struct block_header {
  void *base;  /* what to release */
  size_t size; /* mapped length, 0 for a malloc'd block */
} block_header;

_Static_assert(sizeof(block_header) <= HEADER_SIZE, "the header fits before the data");

/* Returns the (page-aligned) data address of a block of `size` data bytes, or NULL. */
static unsigned char *block_alloc(size_t size) {
#if defined(CLEAVE_HAVE_MMAP)
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (size >= MAP_MIN && page > 0 && page <= HUGE_PAGE && size <= SIZE_MAX - 2 * HUGE_PAGE) {
    /* Room for a header page before 2 MiB-aligned data, and data rounded up to whole huge
     * pages; the slack is unmapped again below. */
    size_t data_len = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    size_t map_len = data_len + 2 * HUGE_PAGE;
    unsigned char *map =
        mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map != MAP_FAILED) {
      uintptr_t start = (uintptr_t)map + page;
      unsigned char *data =
          map + (((start + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1)) - (uintptr_t)map);
      unsigned char *keep = data - page, *end = data + data_len;
      if (keep > map) {
        munmap(map, (size_t)(keep - map));
      }
      if (map + map_len > end) {
        munmap(end, (size_t)(map + map_len - end));
      }
#if defined(MADV_HUGEPAGE)
      /* Advice only: without transparent huge pages the block still works. */
      madvise(data, data_len, MADV_HUGEPAGE);
#endif
      block_header *h = (block_header *)(void *)(data - HEADER_SIZE);
      h->base = keep;
      h->size = (size_t)(end - keep);
      return data;
    }
  }
#endif
  /* The data starts on a page, after a page that holds the header at its end. */
  if (size > SIZE_MAX - (size_t)PAGE_GRAIN) {
    return NULL;
  }
  void *p = NULL;
  if (posix_memalign(&p, (size_t)PAGE_GRAIN, (size_t)PAGE_GRAIN + size) != 0) {
    return NULL;
  }
  unsigned char *data = (unsigned char *)p + PAGE_GRAIN;
  block_header *h = (block_header *)(void *)(data - HEADER_SIZE);
  h->base = p;
  h->size = 0;
  return data;
}

/* Releases the block whose first output starts at `first` (less than a page into the block's
 * page-aligned data). */
static void block_free(void *first) {
  unsigned char *data = (unsigned char *)((uintptr_t)first & ~(uintptr_t)(PAGE_GRAIN - 1));
  block_header *h = (block_header *)(void *)(data - HEADER_SIZE);
#if defined(CLEAVE_HAVE_MMAP)
  if (h->size > 0) {
    munmap(h->base, h->size);
    return;
  }
#endif
  free(h->base);
}

static void clear(void **outputs, int64_t n) {
  if (outputs != NULL) {
    for (int64_t i = 0; i < n; i++) {
      outputs[i] = NULL;
    }
  }
}

/* Places the outputs in a block at `data` (a page-aligned address; NULL only measures) and
 * stores their addresses in `outputs`, each at the offset modulo 64 (4096 for large outputs) of
 * its first input byte, and the block size in `*total`.
 * Returns false when the size overflows int64. */
static bool layout(const cleave_plan *plan, const void *input, unsigned char *data, void **outputs,
                   int64_t *total) {
  const cleave_geometry *g = &plan->geom;
  int64_t at = 0, offset = 0;
  for (int64_t i = 0; i < g->info.num_outputs; i++) {
    int64_t length = cleave_geometry_length(g, i);
    int64_t bytes = cleave_geometry_output_bytes(g, length); /* within the input's size */
    /* Large outputs match their input's offset within a page, small ones within a line. */
    int64_t grain = bytes >= PAGE_MATCH_MIN ? PAGE_GRAIN : ALIGNMENT, phase = 0;
    if (input != NULL && bytes > 0) {
      /* (Packed splits that are not byte-aligned: the phase of the byte holding the start.) */
      phase = (int64_t)(((uintptr_t)input + (uintptr_t)(g->packed ? offset * g->inner_bits / 8
                                                                  : offset * g->inner_bytes)) &
                        (uintptr_t)(grain - 1));
    }
    int64_t start = 0;
    if (cleave_add_overflows(at, grain - 1, &start)) {
      return false;
    }
    start = (start & ~(grain - 1)) + phase;
    if (cleave_add_overflows(start, bytes, &at)) {
      return false;
    }
    if (data != NULL) {
      outputs[i] = data + start;
    }
    offset += length;
  }
  *total = at;
  return true;
}

cleave_status cleave_plan_run_alloc(const cleave_plan *plan, const void *input,
                                    const cleave_exec *exec, void **outputs, cleave_error *err) {
  if (plan == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "the plan is NULL");
  }
  const cleave_geometry *g = &plan->geom;
  int64_t n = g->info.num_outputs;
  cleave_status st = cleave_check_array(outputs, "outputs", g, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  clear(outputs, n);
  st = cleave_check_input(g, input, err);
  if (st != CLEAVE_OK) {
    return st;
  }
  if (n == 0) {
    return cleave_succeed(err);
  }
  /* Each output starts at the offset modulo 64 of its first input byte (modulo 4096 for outputs
   * of 1 MiB or more): with the same relative alignment the copy never splits its loads across
   * lines, and the C library's copy takes its fastest path, which it avoids when source and
   * destination sit at different offsets within their pages (measured on (a): 22 ms, against
   * 34 ms with the input 64 bytes further into its page than the output). The outputs are as
   * aligned as the input. */
  int64_t total = 0;
  if (!layout(plan, input, NULL, NULL, &total)) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                       "the %" PRId64 " outputs' aligned sizes sum above 2^63-1 bytes", n);
  }
  if ((uint64_t)total > (uint64_t)SIZE_MAX) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                       "the outputs need %" PRId64 " bytes, above SIZE_MAX", total);
  }
  unsigned char *data = block_alloc((size_t)total);
  if (data == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_OUT_OF_MEMORY,
                       "cannot allocate %" PRId64 " bytes for %" PRId64 " outputs", total, n);
  }
  layout(plan, input, data, outputs, &total);
  /* The kernel zeroes each fresh page on first touch, which leaves it in the cache: ordinary
   * stores then overwrite it there, where streaming stores would first push the zeroes out to
   * memory (measured on (a): 30 ms instead of 38 ms for 256 MiB). */
  cleave_engine engine = plan->engine;
  engine.nontemporal = false;
  if (exec != NULL && exec->num_threads > 1) {
    /* One long range per thread: the C library's copy takes its fast path only for large
     * blocks, and each thread's first touches stay on its own pages. */
    engine.min_task_bytes = engine.total / (int64_t)exec->num_threads;
  }
  if (!g->bytes_aligned) {
    cleave_copy_packed(g, input, (void *const *)outputs, exec, plan->options.parallel_bytes);
  } else {
    cleave_engine_run(&engine, input, outputs, exec);
  }
  return cleave_succeed(err);
}

void cleave_outputs_free(void **outputs, size_t num_outputs) {
  if (outputs == NULL || num_outputs == 0 || outputs[0] == NULL) {
    return;
  }
  block_free(outputs[0]);
  for (size_t i = 0; i < num_outputs; i++) {
    outputs[i] = NULL;
  }
}
