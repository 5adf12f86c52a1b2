/*
 * The portable kernel family: plain C, plus SSE2 streaming stores when the compiler targets
 * x86-64 (SSE2 is part of that baseline, so this file still runs on every x86-64 CPU).
 */
#include "copy/engine.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define CLEAVE_K(name) name##_portable

static inline void CLEAVE_K(copy_cached)(unsigned char *dst, const unsigned char *src, size_t n) {
  memcpy(dst, src, n);
}

/* Below this a streamed copy is not worth aligning: a plain copy of a few lines. */
#define NT_MIN 256

#if defined(__SSE2__)
/* One 64-byte line of streaming stores to a line-aligned `dst`. */
static inline void CLEAVE_K(stream_line)(unsigned char *dst, const unsigned char *src) {
  __m128i a = _mm_loadu_si128((const __m128i *)(const void *)src);
  __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + 16));
  __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + 32));
  __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(src + 48));
  _mm_stream_si128((__m128i *)(void *)dst, a);
  _mm_stream_si128((__m128i *)(void *)(dst + 16), b);
  _mm_stream_si128((__m128i *)(void *)(dst + 32), c);
  _mm_stream_si128((__m128i *)(void *)(dst + 48), d);
}
#endif

/* One 256-byte step of streaming stores to a line-aligned `dst`. */
static inline void CLEAVE_K(stream_step)(unsigned char *dst, const unsigned char *src) {
#if defined(__SSE2__)
  for (int q = 0; q < 256; q += 64) {
    CLEAVE_K(stream_line)(dst + q, src + q);
  }
#else
  memcpy(dst, src, 256);
#endif
}

static inline void CLEAVE_K(copy_nt_seq)(unsigned char *dst, const unsigned char *src, size_t n) {
#if defined(__SSE2__)
  if (n < NT_MIN) {
    memcpy(dst, src, n);
    return;
  }
  /* Streaming stores need 16-byte aligned destinations, and only pay off on whole lines:
   * copy up to the next line boundary normally. */
  size_t head = (size_t)(-(uintptr_t)dst) & 63;
  if (head != 0) {
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
  }
  for (; n >= 64; n -= 64, dst += 64, src += 64) {
    CLEAVE_K(stream_line)(dst, src);
  }
  if (n != 0) {
    memcpy(dst, src, n);
  }
#else
  memcpy(dst, src, n);
#endif
}

static inline void CLEAVE_K(stream_join)(unsigned char *line, const unsigned char *a, size_t t,
                                         const unsigned char *b) {
  unsigned char joined[64];
  memcpy(joined, a, t);
  memcpy(joined + t, b, 64 - t);
#if defined(__SSE2__)
  for (int q = 0; q < 64; q += 16) {
    _mm_stream_si128((__m128i *)(void *)(line + q),
                     _mm_loadu_si128((const __m128i *)(const void *)(joined + q)));
  }
#else
  memcpy(line, joined, 64);
#endif
}

#include "copy/kernels_walk.h"

/* Transposition of W-byte units, 8 outputs at a time: each input row gives one unit to each of
 * the 8 outputs, which are all written sequentially. Plain C; the AVX2 family does it with
 * register transposes. */
#define CLEAVE_PORTABLE_TRANSPOSE(W)                                                               \
  static void transpose##W##_portable(const cleave_engine *e, const cleave_seg *seg,               \
                                      const unsigned char *in, void *const *outs, int64_t o0,      \
                                      int64_t o1) {                                                \
    int64_t stride = e->stride;                                                                    \
    for (int64_t j = 0; j < seg->count; j += 8) {                                                  \
      int64_t group = seg->count - j < 8 ? seg->count - j : 8;                                     \
      unsigned char *dst[8];                                                                       \
      for (int64_t m = 0; m < group; m++) {                                                        \
        dst[m] = (unsigned char *)outs[seg->first + j + m] + o0 * W;                               \
      }                                                                                            \
      const unsigned char *src = in + o0 * stride + seg->col + j * W;                              \
      if (group == 8) {                                                                            \
        for (int64_t o = o0; o < o1; o++, src += stride) {                                         \
          for (int m = 0; m < 8; m++) {                                                            \
            memcpy(dst[m], src + m * W, W);                                                        \
            dst[m] += W;                                                                           \
          }                                                                                        \
        }                                                                                          \
      } else {                                                                                     \
        for (int64_t o = o0; o < o1; o++, src += stride) {                                         \
          for (int64_t m = 0; m < group; m++) {                                                    \
            memcpy(dst[m], src + m * W, W);                                                        \
            dst[m] += W;                                                                           \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

CLEAVE_PORTABLE_TRANSPOSE(1)
CLEAVE_PORTABLE_TRANSPOSE(2)
CLEAVE_PORTABLE_TRANSPOSE(4)
CLEAVE_PORTABLE_TRANSPOSE(8)

/* The join's transposition (Concat): 8 inputs at a time, each giving one unit to every output
 * row, which receives them side by side; every input is read sequentially. */
#define CLEAVE_PORTABLE_JOIN_TRANSPOSE(W)                                                          \
  static void join_transpose##W##_portable(const cleave_engine *e, const cleave_seg *seg,          \
                                           unsigned char *out, cleave_parts ins, int64_t o0,       \
                                           int64_t o1) {                                           \
    int64_t stride = e->stride;                                                                    \
    for (int64_t j = 0; j < seg->count; j += 8) {                                                  \
      int64_t group = seg->count - j < 8 ? seg->count - j : 8;                                     \
      const unsigned char *src[8];                                                                 \
      for (int64_t m = 0; m < group; m++) {                                                        \
        src[m] = cleave_part(ins, seg->first + j + m) + o0 * W;                                    \
      }                                                                                            \
      unsigned char *dst = out + o0 * stride + seg->col + j * W;                                   \
      if (group == 8) {                                                                            \
        for (int64_t o = o0; o < o1; o++, dst += stride) {                                         \
          for (int m = 0; m < 8; m++) {                                                            \
            memcpy(dst + m * W, src[m], W);                                                        \
            src[m] += W;                                                                           \
          }                                                                                        \
        }                                                                                          \
      } else {                                                                                     \
        for (int64_t o = o0; o < o1; o++, dst += stride) {                                         \
          for (int64_t m = 0; m < group; m++) {                                                    \
            memcpy(dst + m * W, src[m], W);                                                        \
            src[m] += W;                                                                           \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

CLEAVE_PORTABLE_JOIN_TRANSPOSE(1)
CLEAVE_PORTABLE_JOIN_TRANSPOSE(2)
CLEAVE_PORTABLE_JOIN_TRANSPOSE(4)
CLEAVE_PORTABLE_JOIN_TRANSPOSE(8)

static void fence_portable(void) {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

const cleave_kernels cleave_kernels_portable = {
    .name = "portable",
    .walk = walk_portable,
    .tiny = {NULL, transpose1_portable, transpose2_portable, transpose4_portable,
             transpose8_portable, gather_portable},
    .fence = fence_portable,
    .tiny_streams = NULL, /* the portable tiny kernels use plain stores */
    .join_walk = join_walk_portable,
    .join_tiny = {NULL, join_transpose1_portable, join_transpose2_portable,
                  join_transpose4_portable, join_transpose8_portable, join_gather_portable},
    .join_tiny_streams = NULL,
};
