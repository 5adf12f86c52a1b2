/* Small helpers every C benchmark shares: medians, failing fast, touched buffers. */
#ifndef CLEAVE_BENCH_UTIL_H
#define CLEAVE_BENCH_UTIL_H

#include "cleave.h"

#include <stddef.h>

/** The median of the `n` samples of `v` (n >= 1); `v` is left as it is. */
double bench_median(const double *v, int n);

/** Exits with "WHAT failed: message" when `st` is not CLEAVE_OK. */
void bench_check(cleave_status st, const cleave_error *err, const char *what);

/**
 * Returns `n` bytes, 64-byte aligned (as PyTorch's CPU allocator aligns tensors), with every page
 * already touched so that no timed run pays first-touch faults. Exits when out of memory.
 */
void *bench_alloc_touched(size_t n);

#endif /* CLEAVE_BENCH_UTIL_H */
