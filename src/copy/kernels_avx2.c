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
#include "copy/tiles_avx2.h"

/* ---- transpositions ---------------------------------------------------------------------- */

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

/* How far ahead a large join asks for its inputs' lines, in input lines (each a step of the
 * join): into L2, since a step's lines of 1024 inputs (64 KiB) do not stay in L1. Three, not
 * four: fewer lines wait in L2, where the inputs' pages fill some sets more than others
 * (bench_concat's (d): 0.85-1.12x the nt copy against 0.76-1.06x with four, eight invocations of
 * each alternating; bench/RESULTS.md).
 */
#define JOIN_AHEAD_LINES 3
/* How far ahead, in groups of inputs, a large join moves the lines it reads next from L2 into
 * L1. */
#define JOIN_NEAR_GROUPS 2

/* Asks for the line holding byte `at` of inputs [first, first + n) ahead of their use, into L2
 * (`near` false) or L1. A prefetch never faults: the address is formed as an integer, so no
 * pointer leaves its input even when `at` is past the input's end. */
static inline void join_prefetch(cleave_parts ins, int64_t first, int64_t n, int64_t at,
                                 bool near) {
  for (int64_t m = 0; m < n; m++) {
    const char *p = (const char *)((uintptr_t)cleave_part(ins, first + m) + (uintptr_t)at);
    if (near) {
      _mm_prefetch(p, _MM_HINT_T0);
    } else {
      _mm_prefetch(p, _MM_HINT_T1);
    }
  }
}

/*
 * The join's transposition (Concat) with the same square tiles: G inputs' units of G consecutive
 * rows (one register each, read sequentially from every input) become G output rows' units of
 * those inputs. Q tiles side by side along the inputs (a span of G * Q inputs) give every output
 * row one whole 64-byte line per span, streamed in a large run when the output's lines are
 * aligned (join_lines). Edges: join_transpose_tail.
 *
 * A large run (non-temporal) steps by the rows of one whole input line (64 / W) and reads each
 * span's lines whole before the next span, asking for every input's line JOIN_AHEAD_LINES
 * steps ahead into L2 and for the next spans' lines into L1: its inputs are too many streams for
 * the hardware prefetchers (case (d) joined, 1024 inputs of 16 KiB: bench/RESULTS.md).
 *
 * Whether the lines are streamed is decided once per run, and the span the L1 prefetch asks for
 * next is found without a division: with an alignment test and branch per store and a 64-bit
 * division per span, a join of case (d) ran 8.9M instructions instead of 6.9M and took 2-15%
 * longer. The inputs' pointers are read through `ins` where they are used: holding a span's
 * pointers in a local array made the compiler spill them and the rows' addresses to the stack,
 * 5-10% slower (bench/RESULTS.md, 2026-11-28, third session).
 */
#define JOIN_TRANSPOSE_KERNEL(W, G, Q, VEC, LOAD, REGS, PUT, STREAM)                               \
  /* Rows [o, o + G) of the span of inputs [from, from + G * Q) (`at` = o * W) into `row`, row     \
   * o's first byte of the span's columns, with streaming stores when `stream`. */                 \
  static inline void join_lines##W(unsigned char *row, int64_t stride, cleave_parts ins,           \
                                   int64_t from, int64_t at, bool stream) {                        \
    VEC t[Q][G];                                                                                   \
    for (int q = 0; q < (Q); q++) {                                                                \
      VEC r[G];                                                                                    \
      for (int m = 0; m < (G); m++) {                                                              \
        r[m] = LOAD(cleave_part(ins, from + q * (G) + m) + at);                                    \
      }                                                                                            \
      REGS(r, t[q]);                                                                               \
    }                                                                                              \
    for (int k = 0; k < (G); k++) {                                                                \
      unsigned char *d = row + k * stride;                                                         \
      for (int q = 0; q < (Q); q++) {                                                              \
        if (stream) {                                                                              \
          STREAM(d + q * (G) * (W), t[q][k]);                                                      \
        } else {                                                                                   \
          PUT(d + q * (G) * (W), t[q][k]);                                                         \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* Rows [o, o + G) of inputs [j, j + G) (a group narrower than a span) into `row`. */            \
  static inline void join_tile##W(const cleave_engine *e, unsigned char *row, cleave_parts ins,    \
                                  int64_t first, int64_t o, int64_t j) {                           \
    VEC r[G], t[G];                                                                                \
    for (int m = 0; m < (G); m++) {                                                                \
      r[m] = LOAD(cleave_part(ins, first + j + m) + o * (W));                                      \
    }                                                                                              \
    REGS(r, t);                                                                                    \
    for (int k = 0; k < (G); k++) {                                                                \
      PUT(row + k * e->stride + j * (W), t[k]);                                                    \
    }                                                                                              \
  }                                                                                                \
                                                                                                   \
  /* The steps of whole input lines over rows [o, o1) (see above); returns the first row left. */  \
  static inline int64_t join_steps##W(const cleave_engine *e, const cleave_seg *seg,               \
                                      unsigned char *out, cleave_parts ins, int64_t o, int64_t o1, \
                                      bool stream) {                                               \
    const int64_t span = (G) * (Q), line = 64 / (W);                                               \
    int64_t stride = e->stride, count = seg->count, first = seg->first, outer = e->outer;          \
    int64_t wide = count / span * span, full = count / (G) * (G);                                  \
    /* The lines of the first steps, which no earlier step asked for (a thread's task starts       \
     * anywhere). */                                                                               \
    for (int64_t a = o; a < o + line * JOIN_AHEAD_LINES && a + line <= o1; a += line) {            \
      join_prefetch(ins, first, wide, a *(W), false);                                              \
    }                                                                                              \
    for (; o + line <= o1; o += line) {                                                            \
      unsigned char *row = out + o * stride + seg->col;                                            \
      int64_t far = o + line * JOIN_AHEAD_LINES;                                                   \
      int64_t j = 0;                                                                               \
      for (; j < wide; j += span) {                                                                \
        if (far < outer) {                                                                         \
          join_prefetch(ins, first + j, span, far * (W), false);                                   \
        }                                                                                          \
        /* The span JOIN_NEAR_GROUPS on, in this step or at the start of the next. */              \
        int64_t next = j + JOIN_NEAR_GROUPS * span, near_o = o;                                    \
        if (next >= wide) {                                                                        \
          next -= wide;                                                                            \
          near_o += line;                                                                          \
        }                                                                                          \
        if (near_o < o1 && next < wide) {                                                          \
          join_prefetch(ins, first + next, span, near_o * (W), true);                              \
        }                                                                                          \
        for (int64_t s = 0; s < line; s += (G)) {                                                  \
          join_lines##W(row + s * stride + j * (W), stride, ins, first + j, (o + s) * (W),         \
                        stream);                                                                   \
        }                                                                                          \
      }                                                                                            \
      for (; j < full; j += (G)) {                                                                 \
        for (int64_t s = 0; s < line; s += (G)) {                                                  \
          join_tile##W(e, row + s * stride, ins, first, o + s, j);                                 \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return o;                                                                                      \
  }                                                                                                \
                                                                                                   \
  static void join_transpose##W##_avx2(const cleave_engine *e, const cleave_seg *seg,              \
                                       unsigned char *out, cleave_parts ins, int64_t o0,           \
                                       int64_t o1) {                                               \
    const int64_t span = (G) * (Q);                                                                \
    int64_t stride = e->stride, count = seg->count, first = seg->first;                            \
    int64_t wide = count / span * span, full = count / (G) * (G);                                  \
    int64_t o = o0;                                                                                \
    if (e->nontemporal) {                                                                          \
      /* Every span's lines start on a line boundary when the segment's first row does and the     \
       * rows are whole lines apart (span * W is 64 bytes): then they are all streamed. */         \
      if (stride % 64 == 0 && ((uintptr_t)(out + seg->col) & 63) == 0) {                           \
        o = join_steps##W(e, seg, out, ins, o, o1, true);                                          \
      } else {                                                                                     \
        o = join_steps##W(e, seg, out, ins, o, o1, false);                                         \
      }                                                                                            \
    }                                                                                              \
    for (; o + (G) <= o1; o += (G)) {                                                              \
      unsigned char *row = out + o * stride + seg->col;                                            \
      int64_t j = 0;                                                                               \
      for (; j < wide; j += span) {                                                                \
        join_lines##W(row + j * (W), stride, ins, first + j, o * (W), false);                      \
      }                                                                                            \
      for (; j < full; j += (G)) {                                                                 \
        join_tile##W(e, row, ins, first, o, j);                                                    \
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
