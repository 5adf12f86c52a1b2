/* Plain-copy baselines (see bench_copy.h). This file is compiled with -mavx2 on x86-64; its
 * AVX2 code only runs after bench_has_avx2(). */
#include "bench_copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__AVX2__)
#include <immintrin.h>

int bench_has_avx2(void) {
  return __builtin_cpu_supports("avx2") != 0;
}

void bench_copy_nt(void *dst_, const void *src_, size_t n) {
  unsigned char *dst = dst_;
  const unsigned char *src = src_;
  size_t head = (size_t)(-(uintptr_t)dst) & 63;
  if (head > n) {
    head = n;
  }
  memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  /* 256 bytes per iteration: 8 loads, then 8 streaming stores. */
  for (; n >= 256; n -= 256, dst += 256, src += 256) {
    __m256i v[8];
    for (int k = 0; k < 8; k++) {
      v[k] = _mm256_loadu_si256((const __m256i *)(const void *)(src + 32 * k));
    }
    for (int k = 0; k < 8; k++) {
      _mm256_stream_si256((__m256i *)(void *)(dst + 32 * k), v[k]);
    }
  }
  for (; n >= 32; n -= 32, dst += 32, src += 32) {
    _mm256_stream_si256((__m256i *)(void *)dst,
                        _mm256_loadu_si256((const __m256i *)(const void *)src));
  }
  memcpy(dst, src, n);
  _mm_sfence();
}

void bench_copy_movsb(void *dst, const void *src, size_t n) {
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

#else

int bench_has_avx2(void) {
  return 0;
}

void bench_copy_nt(void *dst, const void *src, size_t n) {
  memcpy(dst, src, n);
}

void bench_copy_movsb(void *dst, const void *src, size_t n) {
  memcpy(dst, src, n);
}

#endif
