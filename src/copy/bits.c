/*
 * The bit-stream copy for packed sub-byte types whose blocks do not fall on byte boundaries, in
 * both directions (a split's parts out of the whole tensor; a join's parts into it).
 *
 * A packed tensor is a stream of bits. In LSB-first order (the 4-bit types, ONNX int2/uint2),
 * stream bit k is bit k % 8 of byte k / 8; in MSB-first order (OpenVINO u1, u2) it is bit
 * 7 - k % 8. Either way an element's bits are consecutive in the stream, so splitting moves runs
 * of stream bits. Each output keeps its unfinished 64-bit word in an accumulator; a run of 64
 * bits or more is written as whole output words funnelled straight from pairs of input words
 * with one shift pair for the whole run (run_lsb, run_msb), shorter runs go through the
 * accumulator 64 stream bits at a time (two shifts per read), so the cost per word does not
 * depend on the element width. Outputs are written row by row, so the input is read once, in
 * order. It never reads past the input's last byte and always writes whole output bytes, zeroing
 * the bits after the output's last element.
 */
#include "copy/engine.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static inline uint64_t load_le(const unsigned char *p) {
  uint64_t w;
  memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

static inline uint64_t load_be(const unsigned char *p) {
  uint64_t w;
  memcpy(&w, p, sizeof w);
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

static inline void store_le(unsigned char *p, uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  memcpy(p, &w, sizeof w);
}

static inline void store_be(unsigned char *p, uint64_t w) {
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  memcpy(p, &w, sizeof w);
}

/* Nine bytes from `byte` (those past `size` read as zero): the slow path at the input's end. */
static void load_tail(const unsigned char *in, uint64_t size, uint64_t byte, unsigned char *nine) {
  for (uint64_t k = 0; k < 9; k++) {
    nine[k] = byte + k < size ? in[byte + k] : 0;
  }
}

/* 64 stream bits starting at stream bit `bit`, first bit in the low (LSB) or high (MSB) end. */
static inline uint64_t read_lsb(const unsigned char *in, uint64_t size, uint64_t bit) {
  uint64_t byte = bit >> 3;
  unsigned shift = (unsigned)(bit & 7);
  unsigned char nine[9];
  const unsigned char *p = in + byte;
  if (byte + 9 > size) {
    load_tail(in, size, byte, nine);
    p = nine;
  }
  uint64_t w = load_le(p);
  return shift == 0 ? w : (w >> shift) | ((uint64_t)p[8] << (64 - shift));
}

static inline uint64_t read_msb(const unsigned char *in, uint64_t size, uint64_t bit) {
  uint64_t byte = bit >> 3;
  unsigned shift = (unsigned)(bit & 7);
  unsigned char nine[9];
  const unsigned char *p = in + byte;
  if (byte + 9 > size) {
    load_tail(in, size, byte, nine);
    p = nine;
  }
  uint64_t w = load_be(p);
  return shift == 0 ? w : (w << shift) | ((uint64_t)p[8] >> (8 - shift));
}

/* Appends stream bits to an output through a 64-bit accumulator holding `used` pending bits. */
typedef struct bit_writer {
  unsigned char *out;
  uint64_t acc;
  unsigned used;
} bit_writer;

/* Appends the first `n` (1..64) stream bits of `w`; bits of `w` after them must be zero. */
static inline void put_lsb(bit_writer *bw, uint64_t w, unsigned n) {
  bw->acc |= w << bw->used;
  if (bw->used + n >= 64) {
    store_le(bw->out, bw->acc);
    bw->out += 8;
    bw->acc = bw->used == 0 ? 0 : w >> (64 - bw->used);
    bw->used = bw->used + n - 64;
  } else {
    bw->used += n;
  }
}

static inline void put_msb(bit_writer *bw, uint64_t w, unsigned n) {
  bw->acc |= w >> bw->used;
  if (bw->used + n >= 64) {
    store_be(bw->out, bw->acc);
    bw->out += 8;
    bw->acc = bw->used == 0 ? 0 : w << (64 - bw->used);
    bw->used = bw->used + n - 64;
  } else {
    bw->used += n;
  }
}

/* Writes the pending bits as whole bytes; the bits after them are already zero. */
static void flush(bit_writer *bw, bool msb_first) {
  unsigned bytes = (bw->used + 7) / 8;
  for (unsigned k = 0; k < bytes; k++) {
    bw->out[k] = (unsigned char)(msb_first ? bw->acc >> (56 - 8 * k) : bw->acc >> (8 * k));
  }
}

/* The word-by-word path: appends `count` stream bits from stream bit `bit`. */
static void run_slow(bit_writer *bw, const unsigned char *in, uint64_t size, uint64_t bit,
                     uint64_t count, bool msb_first) {
  if (msb_first) {
    for (; count >= 64; count -= 64, bit += 64) {
      put_msb(bw, read_msb(in, size, bit), 64);
    }
    if (count > 0) {
      put_msb(bw, read_msb(in, size, bit) & ~(~(uint64_t)0 >> count), (unsigned)count);
    }
  } else {
    for (; count >= 64; count -= 64, bit += 64) {
      put_lsb(bw, read_lsb(in, size, bit), 64);
    }
    if (count > 0) {
      put_lsb(bw, read_lsb(in, size, bit) & (((uint64_t)1 << count) - 1), (unsigned)count);
    }
  }
}

/*
 * The fast path: appends `count` stream bits from stream bit `bit`. With `used` bits pending in
 * the writer, output word k (of the (used + count) / 64 it completes) holds the stream bits that
 * start `used` bits before bit + 64k, the first word's first `used` bits being the pending ones;
 * so the loop reads consecutive input words from one byte address and funnels each pair through
 * one fixed shift pair, with no per-word bookkeeping, and the bits after the last whole word
 * become the pending ones with one more read. Words whose loads would pass the input's last byte
 * are read one by one. Returns false (having done nothing) when the slow path must do it all:
 * fewer than 64 bits in all, a start less than `used` bits into the input, or too near its end.
 */
static bool run_lsb(bit_writer *bw, const unsigned char *in, uint64_t size, uint64_t bit,
                    uint64_t count) {
  unsigned used = bw->used;
  uint64_t total = used + count, start = bit - used, byte = start >> 3;
  if (total < 64 || bit < used || byte + 16 > size) {
    return false;
  }
  unsigned t = (unsigned)(start & 7), rest = (unsigned)(total % 64);
  uint64_t words = total / 64;
  /* Word k loads bytes [byte + 8k, byte + 8k + 16). */
  uint64_t n = (size - byte - 8) / 8;
  n = n < words ? n : words;
  const unsigned char *q = in + byte;
  unsigned char *out = bw->out;
  uint64_t keep = used == 0 ? 0 : ~(uint64_t)0 >> (64 - used); /* the pending (first) bits */
  uint64_t lo = load_le(q), hi = load_le(q + 8);
  uint64_t w = t == 0 ? lo : (lo >> t) | (hi << (64 - t));
  store_le(out, (w & ~keep) | bw->acc);
  if (t == 0) {
    memcpy(out + 8, q + 8, (size_t)(8 * (n - 1)));
  } else {
    uint64_t k = 1;
#if defined(__SSE2__)
    /* Two words at a time; word k + 1's loads end at byte + 8k + 24 <= byte + 8n + 8. */
    __m128i right = _mm_cvtsi32_si128((int)t), left = _mm_cvtsi32_si128((int)(64 - t));
    for (; k + 2 <= n; k += 2) {
      __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(q + 8 * k));
      __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(q + 8 * k + 8));
      _mm_storeu_si128((__m128i *)(void *)(out + 8 * k),
                       _mm_or_si128(_mm_srl_epi64(a, right), _mm_sll_epi64(b, left)));
    }
    hi = load_le(q + 8 * k);
#endif
    for (; k < n; k++) {
      lo = hi;
      hi = load_le(q + 8 * k + 8);
      store_le(out + 8 * k, (lo >> t) | (hi << (64 - t)));
    }
  }
  for (uint64_t k = n; k < words; k++) {
    store_le(out + 8 * k, read_lsb(in, size, start + 64 * k));
  }
  bw->out = out + 8 * words;
  bw->acc = rest == 0 ? 0 : read_lsb(in, size, start + 64 * words) & (((uint64_t)1 << rest) - 1);
  bw->used = rest;
  return true;
}

static bool run_msb(bit_writer *bw, const unsigned char *in, uint64_t size, uint64_t bit,
                    uint64_t count) {
  unsigned used = bw->used;
  uint64_t total = used + count, start = bit - used, byte = start >> 3;
  if (total < 64 || bit < used || byte + 16 > size) {
    return false;
  }
  unsigned t = (unsigned)(start & 7), rest = (unsigned)(total % 64);
  uint64_t words = total / 64;
  uint64_t n = (size - byte - 8) / 8;
  n = n < words ? n : words;
  const unsigned char *q = in + byte;
  unsigned char *out = bw->out;
  uint64_t keep = used == 0 ? 0 : ~(~(uint64_t)0 >> used);
  uint64_t lo = load_be(q), hi = load_be(q + 8);
  uint64_t w = t == 0 ? lo : (lo << t) | (hi >> (64 - t));
  store_be(out, (w & ~keep) | bw->acc);
  if (t == 0) {
    memcpy(out + 8, q + 8, (size_t)(8 * (n - 1)));
  } else {
    /* Output byte j is input byte j shifted up by t over the top t bits of byte j + 1: in
     * little-endian words, one shift pair and a per-byte mask, with no byte swaps. */
    uint64_t high = 0x0101010101010101u * ((0xffu << t) & 0xffu);
    uint64_t k = 1;
#if defined(__SSE2__)
    __m128i up = _mm_cvtsi32_si128((int)t), down = _mm_cvtsi32_si128((int)(8 - t));
    __m128i mask = _mm_set1_epi64x((long long)high);
    for (; k + 2 <= n; k += 2) {
      __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(q + 8 * k));
      __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(q + 8 * k + 1));
      _mm_storeu_si128((__m128i *)(void *)(out + 8 * k),
                       _mm_or_si128(_mm_and_si128(_mm_sll_epi64(a, up), mask),
                                    _mm_andnot_si128(mask, _mm_srl_epi64(b, down))));
    }
#endif
    for (; k < n; k++) {
      uint64_t a = load_le(q + 8 * k), b = load_le(q + 8 * k + 1);
      store_le(out + 8 * k, ((a << t) & high) | ((b >> (8 - t)) & ~high));
    }
  }
  for (uint64_t k = n; k < words; k++) {
    store_be(out + 8 * k, read_msb(in, size, start + 64 * k));
  }
  bw->out = out + 8 * words;
  bw->acc = rest == 0 ? 0 : read_msb(in, size, start + 64 * words) & ~(~(uint64_t)0 >> rest);
  bw->used = rest;
  return true;
}

/* Appends `row_bits` stream bits from stream bit `bit` to the writer. */
static void copy_row(bit_writer *bw, const unsigned char *in, uint64_t input_bytes, uint64_t bit,
                     uint64_t row_bits, bool msb_first) {
  bool done = msb_first ? run_msb(bw, in, input_bytes, bit, row_bits)
                        : run_lsb(bw, in, input_bytes, bit, row_bits);
  if (!done) {
    run_slow(bw, in, input_bytes, bit, row_bits, msb_first);
  }
}

/* Outputs written together, row by row (their writers live on the stack). */
#define PACKED_GROUP 64

/* Copies input rows [r0, r1) of every output. r0 is a multiple of 8 (or 0), so row r0 of every
 * output starts on a byte boundary: r0 * width bits is whole bytes. */
static void copy_packed_rows(const cleave_geometry *geom, const void *input, void *const *outputs,
                             int64_t r0, int64_t r1) {
  uint64_t input_bytes = (uint64_t)cleave_packed_bytes(geom->input_bits / geom->info.element_bits,
                                                       geom->info.element_bits);
  uint64_t stride = (uint64_t)geom->info.axis_dim * (uint64_t)geom->inner_bits;
  bool msb = geom->msb_first;
  bit_writer bw[PACKED_GROUP];
  uint64_t col[PACKED_GROUP], width[PACKED_GROUP];
  int64_t offset = 0;
  /* Row by row, each output's piece in turn: the input is read once, in order, whatever the
   * pieces' sizes (output by output, pieces shorter than a page read the input in strides that
   * defeat the hardware prefetchers: measured 2x slower for 2 KiB pieces). */
  for (int64_t g0 = 0; g0 < geom->info.num_outputs; g0 += PACKED_GROUP) {
    int64_t g1 =
        geom->info.num_outputs - g0 < PACKED_GROUP ? geom->info.num_outputs : g0 + PACKED_GROUP;
    for (int64_t i = g0; i < g1; i++) {
      int64_t length = cleave_geometry_length(geom, i);
      /* Every bit count below is at most the input's, which fits (bits_fit). */
      width[i - g0] = (uint64_t)length * (uint64_t)geom->inner_bits;
      col[i - g0] = (uint64_t)offset * (uint64_t)geom->inner_bits;
      /* An empty output may be NULL (the header allows it): no offset is applied to it, as
       * NULL + 0 is undefined. Its writer is never used (width 0). */
      unsigned char *out = outputs[i];
      bw[i - g0] =
          (bit_writer){width[i - g0] > 0 ? out + (uint64_t)r0 * width[i - g0] / 8 : out, 0, 0};
      offset += length;
    }
    for (int64_t r = r0; r < r1; r++) {
      uint64_t row = (uint64_t)r * stride;
      for (int64_t k = 0; k < g1 - g0; k++) {
        if (width[k] > 0) {
          copy_row(&bw[k], input, input_bytes, row + col[k], width[k], msb);
        }
      }
    }
    /* Before the last row, (r1 - r0) * width is whole bytes (both multiples of 8 rows): the flush
     * writes only this range's own bytes. After the last row it also zeroes the tail bits. */
    for (int64_t k = 0; k < g1 - g0; k++) {
      flush(&bw[k], msb);
    }
  }
}

typedef struct packed_job {
  const cleave_geometry *geom;
  const void *input;
  void *const *outputs;
  int64_t rows_per_task;
} packed_job;

static void packed_task(void *context, size_t index) {
  const packed_job *job = context;
  int64_t r0 = (int64_t)index * job->rows_per_task;
  int64_t r1 =
      job->geom->outer - r0 < job->rows_per_task ? job->geom->outer : r0 + job->rows_per_task;
  copy_packed_rows(job->geom, job->input, job->outputs, r0, r1);
}

void cleave_copy_packed(const cleave_geometry *geom, const void *input, void *const *outputs,
                        const cleave_exec *exec, int64_t parallel_bytes) {
  if (!cleave_geometry_has_data(geom)) {
    return;
  }
  int64_t bytes =
      cleave_packed_bytes(geom->input_bits / geom->info.element_bits, geom->info.element_bits);
  /* Threads take ranges of whole groups of 8 rows, so that no two write the same byte. */
  bool threads = exec != NULL && exec->parallel_for != NULL && exec->num_threads > 1 &&
                 bytes >= parallel_bytes && geom->outer >= 16;
  if (!threads) {
    copy_packed_rows(geom, input, outputs, 0, geom->outer);
    return;
  }
  int64_t count = exec->num_threads > 64 ? 256 : (int64_t)exec->num_threads * 4;
  int64_t rows = (geom->outer + count - 1) / count;
  rows = (rows + 7) / 8 * 8;
  packed_job job = {geom, input, outputs, rows};
  exec->parallel_for(exec->context, packed_task, &job, (size_t)((geom->outer + rows - 1) / rows));
}

/* ---- the join (Concat): the parts into one packed output --------------------------------- */

/* Writes output rows [r0, r1) of a join, row by row, each input's piece of the row in turn, through
 * the output's one writer: the output is written once, in order. r0 is a multiple of 8 (or 0),
 * so row r0 starts on a byte boundary of the output. */
static void join_packed_rows(const cleave_geometry *geom, cleave_parts inputs, void *output,
                             int64_t r0, int64_t r1) {
  uint64_t inner = (uint64_t)geom->inner_bits, outer = (uint64_t)geom->outer;
  uint64_t row = (uint64_t)geom->info.axis_dim * inner;
  bool msb = geom->msb_first;
  bit_writer bw = {(unsigned char *)output + (uint64_t)r0 * row / 8, 0, 0};
  for (int64_t r = r0; r < r1; r++) {
    for (int64_t i = 0; i < geom->info.num_outputs; i++) {
      /* Every bit count below is at most the output's, which fits (bits_fit). */
      uint64_t width = (uint64_t)cleave_geometry_length(geom, i) * inner;
      if (width > 0) {
        copy_row(&bw, cleave_part(inputs, i), (outer * width + 7) / 8, (uint64_t)r * width, width,
                 msb);
      }
    }
  }
  flush(&bw, msb);
}

typedef struct join_job {
  const cleave_geometry *geom;
  cleave_parts inputs;
  void *output;
  int64_t rows_per_task;
} join_job;

static void join_task(void *context, size_t index) {
  const join_job *job = context;
  int64_t r0 = (int64_t)index * job->rows_per_task;
  int64_t r1 =
      job->geom->outer - r0 < job->rows_per_task ? job->geom->outer : r0 + job->rows_per_task;
  join_packed_rows(job->geom, job->inputs, job->output, r0, r1);
}

void cleave_join_packed(const cleave_geometry *geom, cleave_parts inputs, void *output,
                        const cleave_exec *exec, int64_t parallel_bytes) {
  if (!cleave_geometry_has_data(geom)) {
    return;
  }
  int64_t bytes =
      cleave_packed_bytes(geom->input_bits / geom->info.element_bits, geom->info.element_bits);
  /* Threads take ranges of whole groups of 8 rows, so that no two write the same byte. */
  bool threads = exec != NULL && exec->parallel_for != NULL && exec->num_threads > 1 &&
                 bytes >= parallel_bytes && geom->outer >= 16;
  if (!threads) {
    join_packed_rows(geom, inputs, output, 0, geom->outer);
    return;
  }
  int64_t count = exec->num_threads > 64 ? 256 : (int64_t)exec->num_threads * 4;
  int64_t rows = (geom->outer + count - 1) / count;
  rows = (rows + 7) / 8 * 8;
  join_job job = {geom, inputs, output, rows};
  exec->parallel_for(exec->context, join_task, &job, (size_t)((geom->outer + rows - 1) / rows));
}
