/*
 * The plain-copy baselines of the benchmark, written here independently of the library: glibc
 * memcpy, `rep movsb`, and a copy with AVX2 non-temporal stores.
 */
#ifndef CLEAVE_BENCH_COPY_H
#define CLEAVE_BENCH_COPY_H

#include <stddef.h>

/** Whether the AVX2 streaming copy can run here. */
int bench_has_avx2(void);

/** Copies n bytes with AVX2 non-temporal stores (destination lines aligned first), four pages at
 * a time interleaved line by line, then sfence. */
void bench_copy_nt(void *dst, const void *src, size_t n);

/** Copies n bytes with `rep movsb` (x86-64; memcpy elsewhere). */
void bench_copy_movsb(void *dst, const void *src, size_t n);

#endif /* CLEAVE_BENCH_COPY_H */
