/*
 * The AVX2 register tiles (internal, included only by kernels_avx2.c, which is compiled with
 * -mavx2): unaligned loads and stores of 16 and 32 bytes, the square transpositions of 1, 2, 4
 * and 8-byte units that both directions of the copy engine use, and the plain and streaming
 * stores of their results.
 */
#ifndef CLEAVE_TILES_AVX2_H
#define CLEAVE_TILES_AVX2_H

#include <immintrin.h>
#include <stdint.h>

/* Loads and stores of 16 and 32 bytes at any address. */
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

/* Register tiles: each transposes the H x G block of W-byte units at `src` (rows `stride` apart)
 * into out[m], the H units of output column m. The float forms of the shuffles never interpret
 * the bits, so they are safe on any data. */

/* The tiles are square, so each is its own inverse: a join (Concat) loads each input's units of
 * H consecutive rows as the "rows" and gets each output row's units of G inputs back. The
 * `_regs` forms transpose registers already loaded. */

/* W = 1: 16 rows x 16 outputs, 16 bytes per output. */
static inline void tile1_regs(const __m128i r[16], __m128i out[16]) {
  __m128i a[16], b[16], c[16];
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
    out[2 * p] = _mm_unpacklo_epi64(c[p], c[8 + p]);
    out[2 * p + 1] = _mm_unpackhi_epi64(c[p], c[8 + p]);
  }
}

static inline void tile1(const unsigned char *src, int64_t stride, __m128i out[16]) {
  __m128i r[16];
  for (int k = 0; k < 16; k++) {
    r[k] = load16(src + k * stride);
  }
  tile1_regs(r, out);
}

/* W = 2: 8 rows x 8 outputs, 16 bytes per output. */
static inline void tile2_regs(const __m128i r[8], __m128i out[8]) {
  __m128i a[8], b[8];
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
    out[2 * g] = _mm_unpacklo_epi64(b[g], b[4 + g]);
    out[2 * g + 1] = _mm_unpackhi_epi64(b[g], b[4 + g]);
  }
}

static inline void tile2(const unsigned char *src, int64_t stride, __m128i out[8]) {
  __m128i r[8];
  for (int k = 0; k < 8; k++) {
    r[k] = load16(src + k * stride);
  }
  tile2_regs(r, out);
}

/* W = 4: 8 rows x 8 outputs, 32 bytes per output. */
static inline void tile4_regs(const __m256 r[8], __m256 out[8]) {
  __m256 t[8], u[8];
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
    out[g] = _mm256_permute2f128_ps(u[g], u[4 + g], 0x20);
    out[g + 4] = _mm256_permute2f128_ps(u[g], u[4 + g], 0x31);
  }
}

/* 32 bytes at any address as the 4-byte units of a W = 4 tile. */
static inline __m256 load4(const unsigned char *p) {
  return _mm256_castsi256_ps(load32(p));
}

static inline void tile4(const unsigned char *src, int64_t stride, __m256 out[8]) {
  __m256 r[8];
  for (int k = 0; k < 8; k++) {
    r[k] = load4(src + k * stride);
  }
  tile4_regs(r, out);
}

/* W = 8: 4 rows x 4 outputs, 32 bytes per output. */
static inline void tile8_regs(const __m256d r[4], __m256d out[4]) {
  __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  out[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  out[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  out[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  out[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* 32 bytes at any address as the 8-byte units of a W = 8 tile. */
static inline __m256d load8(const unsigned char *p) {
  return _mm256_castsi256_pd(load32(p));
}

static inline void tile8(const unsigned char *src, int64_t stride, __m256d out[4]) {
  __m256d r[4];
  for (int k = 0; k < 4; k++) {
    r[k] = load8(src + k * stride);
  }
  tile8_regs(r, out);
}

/* The stores of a tile's registers, by unit width (1 also serves 2): `put` at any address,
 * `stream` (streaming, past the caches) at an address aligned to the register's size. */
static inline void put1(unsigned char *p, __m128i v) {
  store16(p, v);
}
static inline void stream1(unsigned char *p, __m128i v) {
  _mm_stream_si128((__m128i *)(void *)p, v);
}
static inline void put4(unsigned char *p, __m256 v) {
  _mm256_storeu_ps((float *)(void *)p, v);
}
static inline void stream4(unsigned char *p, __m256 v) {
  _mm256_stream_ps((float *)(void *)p, v);
}
static inline void put8(unsigned char *p, __m256d v) {
  _mm256_storeu_pd((double *)(void *)p, v);
}
static inline void stream8(unsigned char *p, __m256d v) {
  _mm256_stream_pd((double *)(void *)p, v);
}

#endif /* CLEAVE_TILES_AVX2_H */
