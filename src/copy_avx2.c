/*
 * The AVX2 kernel family: 32-byte streaming copies and register transpositions of 1, 2, 4 and
 * 8-byte units. Compiled with -mavx2 (this file only) and used only after the plan checked that
 * the CPU runs AVX2 code.
 */
#include "engine.h"

#include <immintrin.h>
#include <string.h>

#define CLEAVE_K(name) name##_avx2

/* Below this a streamed copy is not worth aligning: a plain copy of a few lines. */
#define NT_MIN 256

static inline void CLEAVE_K(copy_nt)(unsigned char *dst, const unsigned char *src, size_t n) {
  if (n < NT_MIN) {
    memcpy(dst, src, n);
    return;
  }
  /* Streaming stores need aligned destinations and only pay off on whole lines: copy up to the
   * next line boundary normally. */
  size_t head = (size_t)(-(uintptr_t)dst) & 63;
  memcpy(dst, src, head);
  dst += head;
  src += head;
  n -= head;
  for (; n >= 128; n -= 128, dst += 128, src += 128) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)src);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + 32));
    __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(src + 64));
    __m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(src + 96));
    _mm256_stream_si256((__m256i *)(void *)dst, a);
    _mm256_stream_si256((__m256i *)(void *)(dst + 32), b);
    _mm256_stream_si256((__m256i *)(void *)(dst + 64), c);
    _mm256_stream_si256((__m256i *)(void *)(dst + 96), d);
  }
  if (n >= 64) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)src);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + 32));
    _mm256_stream_si256((__m256i *)(void *)dst, a);
    _mm256_stream_si256((__m256i *)(void *)(dst + 32), b);
    dst += 64;
    src += 64;
    n -= 64;
  }
  memcpy(dst, src, n);
}

#include "copy_walk.h"

/* ---- transpositions ---------------------------------------------------------------------- */

static inline __m128i load16(const unsigned char *p) {
  return _mm_loadu_si128((const __m128i *)(const void *)p);
}
static inline void store16(unsigned char *p, __m128i v) {
  _mm_storeu_si128((__m128i *)(void *)p, v);
}
static inline __m256i load32(const unsigned char *p) {
  return _mm256_loadu_si256((const __m256i *)(const void *)p);
}
static inline void store32(unsigned char *p, __m256i v) {
  _mm256_storeu_si256((__m256i *)(void *)p, v);
}

/* The units of outputs [j, j + group) for rows [o, o1), one at a time: the edges of a tile. */
static void transpose_tail(const cleave_seg *seg, const unsigned char *in, int64_t stride,
                           void *const *outs, int64_t j, int64_t group, int64_t o, int64_t o1) {
  int64_t w = seg->unit;
  for (int64_t m = 0; m < group; m++) {
    unsigned char *dst = (unsigned char *)outs[seg->first + j + m] + o * w;
    const unsigned char *src = in + o * stride + seg->col + (j + m) * w;
    for (int64_t r = o; r < o1; r++, dst += w, src += stride) {
      memcpy(dst, src, (size_t)w);
    }
  }
}

/* 16 x 16 bytes: 16 rows of 16 outputs in, 16 rows of each output out. */
static void transpose1_avx2(const cleave_seg *seg, const unsigned char *in, int64_t stride,
                            void *const *outs, int64_t o0, int64_t o1) {
  int64_t j = 0;
  for (; j + 16 <= seg->count; j += 16) {
    unsigned char *dst[16];
    for (int m = 0; m < 16; m++) {
      dst[m] = (unsigned char *)outs[seg->first + j + m];
    }
    int64_t o = o0;
    for (; o + 16 <= o1; o += 16) {
      const unsigned char *src = in + o * stride + seg->col + j;
      __m128i r[16], a[16], b[16], c[16];
      for (int k = 0; k < 16; k++) {
        r[k] = load16(src + k * stride);
      }
      /* a[2k] / a[2k+1]: rows 2k and 2k+1 interleaved, columns 0-7 / 8-15. */
      for (int k = 0; k < 8; k++) {
        a[2 * k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
        a[2 * k + 1] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
      }
      /* b[4q + g]: rows 4q..4q+3, columns 4g..4g+3. */
      for (int q = 0; q < 4; q++) {
        b[4 * q + 0] = _mm_unpacklo_epi16(a[4 * q], a[4 * q + 2]);
        b[4 * q + 1] = _mm_unpackhi_epi16(a[4 * q], a[4 * q + 2]);
        b[4 * q + 2] = _mm_unpacklo_epi16(a[4 * q + 1], a[4 * q + 3]);
        b[4 * q + 3] = _mm_unpackhi_epi16(a[4 * q + 1], a[4 * q + 3]);
      }
      /* c[8h + p]: rows 8h..8h+7, columns 2p and 2p+1. */
      for (int h = 0; h < 2; h++) {
        for (int g = 0; g < 4; g++) {
          c[8 * h + 2 * g] = _mm_unpacklo_epi32(b[8 * h + g], b[8 * h + 4 + g]);
          c[8 * h + 2 * g + 1] = _mm_unpackhi_epi32(b[8 * h + g], b[8 * h + 4 + g]);
        }
      }
      for (int p = 0; p < 8; p++) {
        store16(dst[2 * p] + o, _mm_unpacklo_epi64(c[p], c[8 + p]));
        store16(dst[2 * p + 1] + o, _mm_unpackhi_epi64(c[p], c[8 + p]));
      }
    }
    transpose_tail(seg, in, stride, outs, j, 16, o, o1);
  }
  transpose_tail(seg, in, stride, outs, j, seg->count - j, o0, o1);
}

/* 8 x 8 units of 2 bytes. */
static void transpose2_avx2(const cleave_seg *seg, const unsigned char *in, int64_t stride,
                            void *const *outs, int64_t o0, int64_t o1) {
  int64_t j = 0;
  for (; j + 8 <= seg->count; j += 8) {
    unsigned char *dst[8];
    for (int m = 0; m < 8; m++) {
      dst[m] = (unsigned char *)outs[seg->first + j + m];
    }
    int64_t o = o0;
    for (; o + 8 <= o1; o += 8) {
      const unsigned char *src = in + o * stride + seg->col + j * 2;
      __m128i r[8], a[8], b[8];
      for (int k = 0; k < 8; k++) {
        r[k] = load16(src + k * stride);
      }
      /* a[2k] / a[2k+1]: rows 2k, 2k+1 interleaved, columns 0-3 / 4-7. */
      for (int k = 0; k < 4; k++) {
        a[2 * k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
        a[2 * k + 1] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
      }
      /* b[4h + g]: rows 4h..4h+3, columns 2g and 2g+1. */
      for (int h = 0; h < 2; h++) {
        b[4 * h + 0] = _mm_unpacklo_epi32(a[4 * h], a[4 * h + 2]);
        b[4 * h + 1] = _mm_unpackhi_epi32(a[4 * h], a[4 * h + 2]);
        b[4 * h + 2] = _mm_unpacklo_epi32(a[4 * h + 1], a[4 * h + 3]);
        b[4 * h + 3] = _mm_unpackhi_epi32(a[4 * h + 1], a[4 * h + 3]);
      }
      for (int g = 0; g < 4; g++) {
        store16(dst[2 * g] + o * 2, _mm_unpacklo_epi64(b[g], b[4 + g]));
        store16(dst[2 * g + 1] + o * 2, _mm_unpackhi_epi64(b[g], b[4 + g]));
      }
    }
    transpose_tail(seg, in, stride, outs, j, 8, o, o1);
  }
  transpose_tail(seg, in, stride, outs, j, seg->count - j, o0, o1);
}

/* 8 x 8 units of 4 bytes, in 256-bit registers. */
static void transpose4_avx2(const cleave_seg *seg, const unsigned char *in, int64_t stride,
                            void *const *outs, int64_t o0, int64_t o1) {
  int64_t j = 0;
  for (; j + 8 <= seg->count; j += 8) {
    unsigned char *dst[8];
    for (int m = 0; m < 8; m++) {
      dst[m] = (unsigned char *)outs[seg->first + j + m];
    }
    int64_t o = o0;
    for (; o + 8 <= o1; o += 8) {
      const unsigned char *src = in + o * stride + seg->col + j * 4;
      __m256 r[8], t[8], u[8];
      for (int k = 0; k < 8; k++) {
        r[k] = _mm256_castsi256_ps(load32(src + k * stride));
      }
      /* Shuffles never interpret the bits, so the float forms are safe on any data. */
      for (int k = 0; k < 4; k++) {
        t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
      }
      for (int h = 0; h < 2; h++) {
        u[4 * h + 0] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
      }
      for (int g = 0; g < 4; g++) {
        store32(dst[g] + o * 4, _mm256_castps_si256(_mm256_permute2f128_ps(u[g], u[4 + g], 0x20)));
        store32(dst[g + 4] + o * 4,
                _mm256_castps_si256(_mm256_permute2f128_ps(u[g], u[4 + g], 0x31)));
      }
    }
    transpose_tail(seg, in, stride, outs, j, 8, o, o1);
  }
  transpose_tail(seg, in, stride, outs, j, seg->count - j, o0, o1);
}

/* 4 x 4 units of 8 bytes, two tiles down so that each output gets a whole line per step. */
static void transpose8_avx2(const cleave_seg *seg, const unsigned char *in, int64_t stride,
                            void *const *outs, int64_t o0, int64_t o1) {
  int64_t j = 0;
  for (; j + 4 <= seg->count; j += 4) {
    unsigned char *dst[4];
    for (int m = 0; m < 4; m++) {
      dst[m] = (unsigned char *)outs[seg->first + j + m];
    }
    int64_t o = o0;
    for (; o + 4 <= o1; o += 4) {
      const unsigned char *src = in + o * stride + seg->col + j * 8;
      __m256d r0 = _mm256_castsi256_pd(load32(src));
      __m256d r1 = _mm256_castsi256_pd(load32(src + stride));
      __m256d r2 = _mm256_castsi256_pd(load32(src + 2 * stride));
      __m256d r3 = _mm256_castsi256_pd(load32(src + 3 * stride));
      __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
      __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
      store32(dst[0] + o * 8, _mm256_castpd_si256(_mm256_permute2f128_pd(t0, t2, 0x20)));
      store32(dst[1] + o * 8, _mm256_castpd_si256(_mm256_permute2f128_pd(t1, t3, 0x20)));
      store32(dst[2] + o * 8, _mm256_castpd_si256(_mm256_permute2f128_pd(t0, t2, 0x31)));
      store32(dst[3] + o * 8, _mm256_castpd_si256(_mm256_permute2f128_pd(t1, t3, 0x31)));
    }
    transpose_tail(seg, in, stride, outs, j, 4, o, o1);
  }
  transpose_tail(seg, in, stride, outs, j, seg->count - j, o0, o1);
}

static void fence_avx2(void) {
  _mm_sfence();
}

const cleave_kernels cleave_kernels_avx2 = {
    .name = "avx2",
    .walk = walk_avx2,
    .tiny = {NULL, transpose1_avx2, transpose2_avx2, transpose4_avx2, transpose8_avx2, gather_avx2},
    .fence = fence_avx2,
};
