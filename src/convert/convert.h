/*
 * convert/: arithmetic on element values (ggml's block formats). What the folders above may
 * call, and what the portable and AVX2 files of this folder share.
 */
#ifndef CLEAVE_CONVERT_H
#define CLEAVE_CONVERT_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cleave.h"

/* ---- shared by ggml_blocks.c and ggml_blocks_avx2.c ---- */

/* Little-endian loads, whatever the host (GGUF is little-endian). */
static inline uint16_t cleave_le16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t cleave_le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline float cleave_bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline uint32_t cleave_float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* IEEE half to float, exactly as NumPy widens it: every value exact, a NaN keeps its payload
 * shifted up and is not quieted (0x7c01 -> 0x7f802000). */
static inline float cleave_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = h & 0x7c00u;
  uint32_t man = h & 0x03ffu;
  if (exp == 0x7c00u) {
    return cleave_bits_float(sign | 0x7f800000u | (man << 13));
  }
  if (exp == 0) {
    /* zero or subnormal: man * 2^-24, exact in float32 */
    float v = (float)man * 0x1p-24f;
    return cleave_bits_float(sign | cleave_float_bits(v));
  }
  return cleave_bits_float(sign | (((uint32_t)(h & 0x7fffu) + 0x1c000u) << 13));
}

/* A block kernel: dequantizes `n` whole blocks at `src` into floats at `dst`. */
typedef void (*cleave_ggml_dequant_fn)(const uint8_t *src, int64_t n, float *dst);

/* The AVX2 kernels (ggml_blocks_avx2.c), NULL when the build has none. Each gives the portable
 * kernel's bits. */
cleave_ggml_dequant_fn cleave_ggml_dequant_avx2(cleave_ggml_type type);

/* The portable kernel of a type (NULL when it is not dequantized), for the unit test that
 * compares it with the AVX2 one. */
cleave_ggml_dequant_fn cleave_ggml_dequant_portable(cleave_ggml_type type);

#endif
