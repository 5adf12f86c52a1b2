/* Small helpers every C benchmark shares: medians, failing fast, touched buffers. */
#ifndef CLEAVE_BENCH_UTIL_H
#define CLEAVE_BENCH_UTIL_H

#include "cleave.h"

#include <stddef.h>

/** A monotonic clock in seconds, for timing samples. */
double bench_now(void);

/** The median of the `n` samples of `v` (n >= 1); `v` is left as it is. */
double bench_median(const double *v, int n);

/** Exits with "WHAT failed: message" when `st` is not CLEAVE_OK. */
void bench_check(cleave_status st, const cleave_error *err, const char *what);

/**
 * Returns `n` bytes, 64-byte aligned (as PyTorch's CPU allocator aligns tensors), with every page
 * already touched so that no timed run pays first-touch faults. Exits when out of memory.
 */
void *bench_alloc_touched(size_t n);

/** `bench_alloc_touched(n)` filled with the benchmarks' input pattern (a byte of i * 131 +
 * i / 4096 at offset i: no two neighbouring lines alike, so a misplaced copy shows). */
unsigned char *bench_alloc_input(size_t n);

/** Writes `s` seconds as "X.YZ us" below a millisecond, else in milliseconds with
 * `ms_decimals` decimals. */
void bench_fmt_time(char *buf, size_t size, double s, int ms_decimals);

#endif /* CLEAVE_BENCH_UTIL_H */
