/*
 * The AVX2 kernel family: 32-byte streaming copies and register transpositions of 1, 2, 4 and
 * 8-byte units. Compiled with -mavx2 (this file only) and used only after the plan checked that
 * the CPU runs AVX2 code.
 */
#include "copy/engine.h"

#include <immintrin.h>
#include <string.h>

#define CLEAVE_K(name) name##_avx2

/* Below this a streamed copy is not worth aligning: a plain copy of a few lines. */
#define NT_MIN 256

/* One 256-byte step of streaming stores to a line-aligned `dst`, line by line (loading all 256
 * bytes before storing was 10% slower on the Intel Xeon of 2026-11-24, bench_split (a)-(c)). */
static inline void CLEAVE_K(stream_step)(unsigned char *dst, const unsigned char *src) {
  for (int q = 0; q < 256; q += 64) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + q));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + q + 32));
    _mm256_stream_si256((__m256i *)(void *)(dst + q), a);
    _mm256_stream_si256((__m256i *)(void *)(dst + q + 32), b);
  }
}

static inline void CLEAVE_K(copy_nt_seq)(unsigned char *dst, const unsigned char *src, size_t n) {
  if (n < NT_MIN) {
    memcpy(dst, src, n);
    return;
  }
  /* Streaming stores need aligned destinations and only pay off on whole lines: copy up to the
   * next line boundary normally. */
  size_t head = (size_t)(-(uintptr_t)dst) & 63;
  if (head != 0) {
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
  }
  for (; n >= 256; n -= 256, dst += 256, src += 256) {
    CLEAVE_K(stream_step)(dst, src);
  }
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
  if (n != 0) {
    memcpy(dst, src, n);
  }
}

/* Byte masks: the 64 bytes from `join_mask + 64 - t` select t bytes, then 64 - t. */
static const unsigned char join_mask[128] = {
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};

static inline void CLEAVE_K(stream_join)(unsigned char *line, const unsigned char *a, size_t t,
                                         const unsigned char *b) {
  const unsigned char *m = join_mask + 64 - t;
  for (int h = 0; h < 64; h += 32) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(a + h));
    __m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(b - t + h));
    __m256i k = _mm256_loadu_si256((const __m256i *)(const void *)(m + h));
    _mm256_stream_si256((__m256i *)(void *)(line + h), _mm256_blendv_epi8(y, x, k));
  }
}

/* Blocks of this size are copied inline; outside it glibc's memcpy is as fast (small blocks) or
 * faster (large ones, with rep movsb), and the call costs little against the copy. */
#define CACHED_MIN 256
#define CACHED_MAX 16384

/* An in-cache copy without a library call: the split's row blocks are copied one after another,
 * and for blocks of a few KiB (e.g. 3840 bytes, 18 per call in case (f)) the call and the size
 * dispatch of memcpy are a visible share of the time. */
static inline void CLEAVE_K(copy_cached)(unsigned char *dst, const unsigned char *src, size_t n) {
  if (n < CACHED_MIN || n > CACHED_MAX) {
    memcpy(dst, src, n);
    return;
  }
  /* The first 32 bytes with an unaligned store, then aligned stores from the destination's next
   * 32-byte boundary: a store that straddles two lines costs both (case (f) into 16-byte aligned
   * outputs, as NumPy allocates them: 1.65 us instead of 1.40 us per call on the Intel Xeon of
   * 2026-11-24; the loads may straddle lines at no such cost). */
  size_t first = (size_t)(-(uintptr_t)dst) & 31;
  if (first != 0) {
    _mm256_storeu_si256((__m256i *)(void *)dst,
                        _mm256_loadu_si256((const __m256i *)(const void *)src));
  }
  size_t last = n - 128;
  for (size_t at = first; at < last; at += 128) {
    /* Asking for the destination lines (for writing) 256 bytes ahead hides part of their
     * transfer: case (f), blocks of 3840 bytes in L2, 1.39 us instead of 1.50 us per call on the
     * same host. A prefetch never faults, so asking past the end is harmless (the address is
     * formed as an integer: no pointer leaves the block). */
    __builtin_prefetch((const void *)((uintptr_t)dst + at + 256), 1, 3);
    __builtin_prefetch((const void *)((uintptr_t)dst + at + 320), 1, 3);
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + at));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + at + 32));
    __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(src + at + 64));
    __m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(src + at + 96));
    _mm256_store_si256((__m256i *)(void *)(dst + at), a);
    _mm256_store_si256((__m256i *)(void *)(dst + at + 32), b);
    _mm256_store_si256((__m256i *)(void *)(dst + at + 64), c);
    _mm256_store_si256((__m256i *)(void *)(dst + at + 96), d);
  }
  /* The last 128 bytes, overlapping what was copied: the same bytes again. */
  __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + last));
  __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(src + last + 32));
  __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(src + last + 64));
  __m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(src + last + 96));
  _mm256_storeu_si256((__m256i *)(void *)(dst + last), a);
  _mm256_storeu_si256((__m256i *)(void *)(dst + last + 32), b);
  _mm256_storeu_si256((__m256i *)(void *)(dst + last + 64), c);
  _mm256_storeu_si256((__m256i *)(void *)(dst + last + 96), d);
}

#include "copy/kernels_walk.h"

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
#define TAIL_LOOP(W)                                                                               \
  for (int64_t m = 0; m < group; m++) {                                                            \
    unsigned char *dst = (unsigned char *)outs[seg->first + j + m] + o * (W);                      \
    const unsigned char *src = in + o * stride + seg->col + (j + m) * (W);                         \
    for (int64_t r = o; r < o1; r++, dst += (W), src += stride) {                                  \
      memcpy(dst, src, W);                                                                         \
    }                                                                                              \
  }

static void transpose_tail(const cleave_seg *seg, const unsigned char *in, int64_t stride,
                           void *const *outs, int64_t j, int64_t group, int64_t o, int64_t o1) {
  switch (seg->unit) {
  case 1:
    TAIL_LOOP(1);
    break;
  case 2:
    TAIL_LOOP(2);
    break;
  case 4:
    TAIL_LOOP(4);
    break;
  default:
    TAIL_LOOP(8);
    break;
  }
}

#undef TAIL_LOOP

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

/*
 * A transposition kernel for W-byte units with G x H register tiles (VEC per output column).
 * Tiles go in row-major order, so the input is read as H * Q sequential streams, and Q tiles are
 * stacked so that every output receives one whole 64-byte line per step: a line is never left
 * half-written in the cache, where outputs sitting at the same offset within their pages would
 * evict it before it is complete. For a large run, aligned lines are written with streaming
 * stores (no read-for-ownership, no cache pollution). Edges: transpose_tail.
 */
#define TRANSPOSE_KERNEL(W, G, H, Q, VEC, TILE, PUT, STREAM)                                       \
  static void transpose##W##_avx2(const cleave_engine *e, const cleave_seg *seg,                   \
                                  const unsigned char *in, void *const *outs, int64_t o0,          \
                                  int64_t o1) {                                                    \
    int64_t stride = e->stride, full = seg->count / (G) * (G);                                     \
    void *const *out = outs + seg->first;                                                          \
    int64_t o = o0;                                                                                \
    {                                                                                              \
      for (; o + (H) * (Q) <= o1; o += (H) * (Q)) {                                                \
        const unsigned char *src = in + o * stride + seg->col;                                     \
        for (int64_t j = 0; j < full; j += (G)) {                                                  \
          VEC t[Q][G];                                                                             \
          for (int q = 0; q < (Q); q++) {                                                          \
            TILE(src + q * (H)*stride + j * (W), stride, t[q]);                                    \
          }                                                                                        \
          uintptr_t misaligned = e->nontemporal ? 0 : 1;                                           \
          for (int m = 0; m < (G); m++) {                                                          \
            misaligned |= (uintptr_t)((unsigned char *)out[j + m] + o * (W));                      \
          }                                                                                        \
          for (int m = 0; m < (G); m++) {                                                          \
            unsigned char *d = (unsigned char *)out[j + m] + o * (W);                              \
            for (int q = 0; q < (Q); q++) {                                                        \
              if ((misaligned & 63) == 0) {                                                        \
                STREAM(d + q * (H) * (W), t[q][m]);                                                \
              } else {                                                                             \
                PUT(d + q * (H) * (W), t[q][m]);                                                   \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    for (; o + (H) <= o1; o += (H)) {                                                              \
      const unsigned char *src = in + o * stride + seg->col;                                       \
      for (int64_t j = 0; j < full; j += (G)) {                                                    \
        VEC t[G];                                                                                  \
        TILE(src + j * (W), stride, t);                                                            \
        for (int m = 0; m < (G); m++) {                                                            \
          PUT((unsigned char *)out[j + m] + o * (W), t[m]);                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    transpose_tail(seg, in, stride, outs, 0, full, o, o1);                                         \
    transpose_tail(seg, in, stride, outs, full, seg->count - full, o0, o1);                        \
  }

TRANSPOSE_KERNEL(1, 16, 16, 4, __m128i, tile1, put1, stream1)
TRANSPOSE_KERNEL(2, 8, 8, 4, __m128i, tile2, put1, stream1)
TRANSPOSE_KERNEL(4, 8, 8, 2, __m256, tile4, put4, stream4)
TRANSPOSE_KERNEL(8, 4, 4, 2, __m256d, tile8, put8, stream8)

#undef TRANSPOSE_KERNEL

/* The units of inputs [j, j + group) for rows [o, o1), one at a time: the edges of a join's
 * tile. */
#define JOIN_TAIL_LOOP(W)                                                                          \
  for (int64_t m = 0; m < group; m++) {                                                            \
    const unsigned char *src = cleave_part(ins, seg->first + j + m) + o * (W);                     \
    unsigned char *dst = out + o * stride + seg->col + (j + m) * (W);                              \
    for (int64_t r = o; r < o1; r++, src += (W), dst += stride) {                                  \
      memcpy(dst, src, W);                                                                         \
    }                                                                                              \
  }

static void join_transpose_tail(const cleave_seg *seg, unsigned char *out, int64_t stride,
                                cleave_parts ins, int64_t j, int64_t group, int64_t o, int64_t o1) {
  switch (seg->unit) {
  case 1:
    JOIN_TAIL_LOOP(1);
    break;
  case 2:
    JOIN_TAIL_LOOP(2);
    break;
  case 4:
    JOIN_TAIL_LOOP(4);
    break;
  default:
    JOIN_TAIL_LOOP(8);
    break;
  }
}

#undef JOIN_TAIL_LOOP

/*
 * The join's transposition (Concat) with the same square tiles: G inputs' units of G consecutive
 * rows (one register each, read sequentially from every input) become G output rows' units of
 * those inputs. Q tiles side by side along the inputs give every output row one whole 64-byte
 * line per step, streamed in a large run when aligned. Edges: join_transpose_tail.
 */
#define JOIN_TRANSPOSE_KERNEL(W, G, Q, VEC, LOAD, REGS, PUT, STREAM)                               \
  static void join_transpose##W##_avx2(const cleave_engine *e, const cleave_seg *seg,              \
                                       unsigned char *out, cleave_parts ins, int64_t o0,           \
                                       int64_t o1) {                                               \
    int64_t stride = e->stride, count = seg->count, first = seg->first;                            \
    int64_t wide = count / ((G) * (Q)) * ((G) * (Q)), full = count / (G) * (G);                    \
    int64_t o = o0;                                                                                \
    for (; o + (G) <= o1; o += (G)) {                                                              \
      unsigned char *row = out + o * stride + seg->col;                                            \
      /* In a large run each input's next lines are asked for ahead, once per line: the inputs     \
       * are too many streams for the hardware prefetchers (case (d) joined, 1024 inputs:          \
       * 1.2-1.5 ms instead of 1.5-2.2 ms on the Intel Xeon of 2026-11-24). */                     \
      bool ahead = e->nontemporal && ((o * (W)) & 63) < (G) * (W);                                 \
      int64_t j = 0;                                                                               \
      for (; j < wide; j += (G) * (Q)) {                                                           \
        if (ahead) {                                                                               \
          for (int m = 0; m < (G) * (Q); m++) {                                                    \
            _mm_prefetch((const char *)cleave_part(ins, first + j + m) + o * (W) + 128,            \
                         _MM_HINT_T0);                                                             \
          }                                                                                        \
        }                                                                                          \
        VEC t[Q][G];                                                                               \
        for (int q = 0; q < (Q); q++) {                                                            \
          VEC r[G];                                                                                \
          for (int m = 0; m < (G); m++) {                                                          \
            r[m] = LOAD(cleave_part(ins, first + j + q * (G) + m) + o * (W));                      \
          }                                                                                        \
          REGS(r, t[q]);                                                                           \
        }                                                                                          \
        uintptr_t misaligned = e->nontemporal ? 0 : 1;                                             \
        for (int k = 0; k < (G); k++) {                                                            \
          misaligned |= (uintptr_t)(row + k * stride + j * (W));                                   \
        }                                                                                          \
        for (int k = 0; k < (G); k++) {                                                            \
          unsigned char *d = row + k * stride + j * (W);                                           \
          for (int q = 0; q < (Q); q++) {                                                          \
            if ((misaligned & 63) == 0) {                                                          \
              STREAM(d + q * (G) * (W), t[q][k]);                                                  \
            } else {                                                                               \
              PUT(d + q * (G) * (W), t[q][k]);                                                     \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
      for (; j < full; j += (G)) {                                                                 \
        VEC r[G], t[G];                                                                            \
        for (int m = 0; m < (G); m++) {                                                            \
          r[m] = LOAD(cleave_part(ins, first + j + m) + o * (W));                                  \
        }                                                                                          \
        REGS(r, t);                                                                                \
        for (int k = 0; k < (G); k++) {                                                            \
          PUT(row + k * stride + j * (W), t[k]);                                                   \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    join_transpose_tail(seg, out, stride, ins, 0, full, o, o1);                                    \
    join_transpose_tail(seg, out, stride, ins, full, count - full, o0, o1);                        \
  }

JOIN_TRANSPOSE_KERNEL(1, 16, 4, __m128i, load16, tile1_regs, put1, stream1)
JOIN_TRANSPOSE_KERNEL(2, 8, 4, __m128i, load16, tile2_regs, put1, stream1)
JOIN_TRANSPOSE_KERNEL(4, 8, 2, __m256, load4, tile4_regs, put4, stream4)
JOIN_TRANSPOSE_KERNEL(8, 4, 2, __m256d, load8, tile8_regs, put8, stream8)

#undef JOIN_TRANSPOSE_KERNEL

/* Gathers of 16- and 32-byte units in a large run: 4 or 2 rows give each output one whole line,
 * streamed when aligned. Other units, or a run that stays in cache: the generic gather. */
static void gather_stream_avx2(const cleave_engine *e, const cleave_seg *seg,
                               const unsigned char *in, void *const *outs, int64_t o0, int64_t o1) {
  int64_t unit = seg->unit, stride = e->stride;
  if (!e->nontemporal || (unit != 16 && unit != 32)) {
    gather_avx2(e, seg, in, outs, o0, o1);
    return;
  }
  void *const *out = outs + seg->first;
  int64_t rows = 64 / unit, o = o0;
  for (; o + rows <= o1; o += rows) {
    const unsigned char *src = in + o * stride + seg->col;
    for (int64_t j = 0; j < seg->count; j++, src += unit) {
      unsigned char *d = (unsigned char *)out[j] + o * unit;
      if (unit == 16) {
        __m128i a = load16(src), b = load16(src + stride);
        __m128i c = load16(src + 2 * stride), f = load16(src + 3 * stride);
        if (((uintptr_t)d & 63) == 0) {
          stream1(d, a);
          stream1(d + 16, b);
          stream1(d + 32, c);
          stream1(d + 48, f);
        } else {
          put1(d, a);
          put1(d + 16, b);
          put1(d + 32, c);
          put1(d + 48, f);
        }
      } else {
        __m256i a = load32(src), b = load32(src + stride);
        if (((uintptr_t)d & 63) == 0) {
          _mm256_stream_si256((__m256i *)(void *)d, a);
          _mm256_stream_si256((__m256i *)(void *)(d + 32), b);
        } else {
          store32(d, a);
          store32(d + 32, b);
        }
      }
    }
  }
  if (o < o1) {
    gather_avx2(e, seg, in, outs, o, o1);
  }
}

static void fence_avx2(void) {
  _mm_sfence();
}

/* The transpositions stream aligned lines of a non-temporal run; the gather streams 16- and
 * 32-byte units (gather_stream_avx2). */
static bool tiny_streams_avx2(const cleave_seg *seg) {
  return seg->kind != CLEAVE_SEG_GATHER || seg->unit == 16 || seg->unit == 32;
}

/* The join's transpositions stream aligned lines of a non-temporal run; its gather does not
 * (each row's units of one input are a few bytes of a line the next inputs complete). */
static bool join_tiny_streams_avx2(const cleave_seg *seg) {
  return seg->kind != CLEAVE_SEG_GATHER;
}

const cleave_kernels cleave_kernels_avx2 = {
    .name = "avx2",
    .walk = walk_avx2,
    .tiny = {NULL, transpose1_avx2, transpose2_avx2, transpose4_avx2, transpose8_avx2,
             gather_stream_avx2},
    .fence = fence_avx2,
    .tiny_streams = tiny_streams_avx2,
    .join_walk = join_walk_avx2,
    .join_tiny = {NULL, join_transpose1_avx2, join_transpose2_avx2, join_transpose4_avx2,
                  join_transpose8_avx2, join_gather_avx2},
    .join_tiny_streams = join_tiny_streams_avx2,
};
