/*
 * The bit-stream copy for packed sub-byte types whose blocks do not fall on byte boundaries.
 *
 * A packed tensor is a stream of bits. In LSB-first order (the 4-bit types, ONNX int2/uint2),
 * stream bit k is bit k % 8 of byte k / 8; in MSB-first order (OpenVINO u1, u2) it is bit
 * 7 - k % 8. Either way an element's bits are consecutive in the stream, so splitting moves runs
 * of stream bits. The kernel reads 64 stream bits at a time from any bit position (two shifts)
 * and appends them to the output through a 64-bit accumulator, so the cost per word does not
 * depend on the element width. It never reads past the input's last byte and always writes whole
 * output bytes, zeroing the bits after the output's last element.
 */
#include "internal.h"

#include <string.h>

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

void cleave_copy_bits(const void *input, uint64_t input_bytes, void *output, int64_t rows,
                      uint64_t first_bit, uint64_t row_stride_bits, uint64_t row_bits,
                      bool msb_first) {
  const unsigned char *in = input;
  bit_writer bw = {output, 0, 0};
  if (rows <= 0 || row_bits == 0) {
    return;
  }
  for (int64_t r = 0; r < rows; r++) {
    uint64_t bit = first_bit + (uint64_t)r * row_stride_bits;
    uint64_t left = row_bits;
    if (msb_first) {
      for (; left >= 64; left -= 64, bit += 64) {
        put_msb(&bw, read_msb(in, input_bytes, bit), 64);
      }
      if (left > 0) {
        uint64_t mask = ~(~(uint64_t)0 >> left);
        put_msb(&bw, read_msb(in, input_bytes, bit) & mask, (unsigned)left);
      }
    } else {
      for (; left >= 64; left -= 64, bit += 64) {
        put_lsb(&bw, read_lsb(in, input_bytes, bit), 64);
      }
      if (left > 0) {
        uint64_t mask = ((uint64_t)1 << left) - 1;
        put_lsb(&bw, read_lsb(in, input_bytes, bit) & mask, (unsigned)left);
      }
    }
  }
  flush(&bw, msb_first);
}

void cleave_copy_packed(const cleave_geometry *geom, const void *input, void *const *outputs) {
  if (!cleave_geometry_has_data(geom)) {
    return;
  }
  uint64_t input_bytes = (uint64_t)cleave_packed_bytes(geom->input_bits / geom->info.element_bits,
                                                       geom->info.element_bits);
  uint64_t stride = (uint64_t)geom->info.axis_dim * (uint64_t)geom->inner_bits;
  int64_t offset = 0;
  for (int64_t i = 0; i < geom->info.num_outputs; i++) {
    int64_t length = cleave_geometry_length(geom, i);
    /* Every bit count below is at most the input's, which fits (bits_fit). */
    cleave_copy_bits(input, input_bytes, outputs[i], geom->outer,
                     (uint64_t)offset * (uint64_t)geom->inner_bits, stride,
                     (uint64_t)length * (uint64_t)geom->inner_bits, geom->msb_first);
    offset += length;
  }
}
