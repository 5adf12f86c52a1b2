/* The element casts' run kernels: one loop per pair of types, in a portable family and (on
 * x86-64) an AVX2 + F16C family that gives the same bits. The public entry points
 * (cleave_cast, cleave_dequantize_fp8_blocks in cast.c and fp8_blocks.c) choose the family and
 * cut the work into runs; the rule each kernel implements is the one of include/cleave.h. */
#ifndef CLEAVE_CONVERT_H
#define CLEAVE_CONVERT_H

#include "cleave.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Converts n elements from src to dst (unaligned, not overlapping). */
typedef void (*cleave_cast_kernel)(const void *src, void *dst, size_t n);

/** Converts n FP8 e4m3 elements, each times `scale` in float32, to the kernel's type. */
typedef void (*cleave_fp8_kernel)(const uint8_t *src, float scale, void *dst, size_t n);

/** The kernels of one family: the float casts by [from][to] index (cleave_cast_index), and
 * the scaled e4m3 runs by destination. A NULL entry falls back to the portable family. */
typedef struct cleave_cast_kernels {
  cleave_cast_kernel cast[4][4];
  cleave_fp8_kernel fp8[4];
} cleave_cast_kernels;

/** The index of a float type in the tables (F32 0, F16 1, BF16 2, F64 3), -1 for another. */
int cleave_cast_index(cleave_dtype dtype);

/** The portable kernels (every entry filled). */
extern const cleave_cast_kernels cleave_cast_portable;

/** The AVX2 + F16C kernels (only in x86-64 builds): use only when cleave_cast_simd() says. */
extern const cleave_cast_kernels cleave_cast_avx2;

/** The vector family when this build has one and this CPU runs it (AVX2 and F16C), else NULL. */
const cleave_cast_kernels *cleave_cast_simd(void);

/** The family for this CPU: the vector one, else the portable one. */
const cleave_cast_kernels *cleave_cast_family(void);

/* The portable rules on one element, which the vector kernels reproduce. */

/** The float32 bits of an e4m3 byte (exact; NaN the default quiet NaN of its sign). */
uint32_t cleave_e4m3_to_f32_bits(uint8_t x);

/** float32 bits to float16 bits, round-to-nearest-even. */
uint16_t cleave_f32_to_f16_bits(uint32_t x);

/** float32 bits to bfloat16 bits, round-to-nearest-even. */
uint16_t cleave_f32_to_bf16_bits(uint32_t x);

/** float16 bits to float32 bits (exact, NaN quieted). */
uint32_t cleave_f16_to_f32_bits(uint16_t x);

/** bfloat16 bits to float32 bits (exact, NaN quieted). */
uint32_t cleave_bf16_to_f32_bits(uint16_t x);

/* ---- ggml's block formats (ggml_blocks.c, ggml_blocks_avx2.c) ---- */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>


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

/* float32 to IEEE half, rounded to nearest even, as NumPy's astype(float16): overflow gives an
 * infinity; a NaN keeps its top 10 payload bits (never becoming an infinity). */
static inline uint16_t cleave_float_to_half(float f) {
  uint32_t u = cleave_float_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) {
    if (a == 0x7f800000u) {
      return (uint16_t)(sign | 0x7c00u);
    }
    uint32_t h = 0x7c00u + ((a & 0x7fffffu) >> 13);
    return (uint16_t)(sign | (h == 0x7c00u ? 0x7c01u : h));
  }
  if (a < 0x38800000u) {
    /* below the smallest normal half: a multiple of 2^-24, rounded to nearest even */
    uint32_t exp = a >> 23;
    if (exp == 0) {
      return sign; /* float32 zero or subnormal: far below half's range */
    }
    uint32_t sig = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - exp;
    if (shift >= 25) {
      return sign;
    }
    uint32_t q = sig >> shift, rem = sig & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) {
      q++;
    }
    return (uint16_t)(sign | q);
  }
  uint32_t h = (a - 0x38000000u) >> 13, rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
    h++;
  }
  if (h >= 0x7c00u) {
    h = 0x7c00u;
  }
  return (uint16_t)(sign | h);
}

/* v rounded half away from zero (gguf-py's np_roundf), then NumPy's float32 -> int8 cast here
 * (x86): truncation to int32, where NaN and values out of int32's range give INT32_MIN, then the
 * low byte. Without libm: the library links nothing but libc. */
static inline uint8_t cleave_round_to_numpy_int8(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) {
    return 0;
  }
  int32_t i = (int32_t)v;
  float frac = v - (float)i; /* exact: the fraction of a float */
  if (frac >= 0.5f) {
    i++;
  } else if (frac <= -0.5f) {
    i--;
  }
  return (uint8_t)(uint32_t)i;
}

/* Q8_0's max|x| over a block of 32 as NumPy's max takes it: a NaN wins (the first one, its sign
 * cleared, payload kept). */
static inline float cleave_q8_0_amax(const float *src) {
  /* NumPy's max propagates a NaN; abs keeps its payload and clears the sign */
  float amax = 0.0f;
  bool nan_seen = false;
  for (int j = 0; j < 32; j++) {
    float a = cleave_bits_float(cleave_float_bits(src[j]) & 0x7fffffffu);
    if (isnan(a)) {
      if (!nan_seen) {
        amax = a;
        nan_seen = true;
      }
    } else if (!nan_seen && a > amax) {
      amax = a;
    }
  }
  return amax;
}

/* One Q8_0 block of 32 values with their max|x| (gguf-py's arithmetic; see cleave.h). */
static inline void cleave_q8_0_block(const float *src, float amax, uint8_t *dst) {
  float d = amax / 127.0f;
  float id = d == 0.0f ? 0.0f : 1.0f / d;
  uint16_t dh = cleave_float_to_half(d);
  dst[0] = (uint8_t)(dh & 0xff);
  dst[1] = (uint8_t)(dh >> 8);
  for (int j = 0; j < 32; j++) {
    dst[2 + j] = cleave_round_to_numpy_int8(src[j] * id);
  }
}

/* Q8_0 quantization of n_blocks blocks of 32: portable (ggml_blocks.c) and AVX2
 * (ggml_blocks_avx2.c, the portable one's bytes; only after the CPU check). */
void cleave_ggml_quantize_q8_0_portable(const float *src, int64_t n_blocks, uint8_t *dst);
void cleave_ggml_quantize_q8_0_avx2(const float *src, int64_t n_blocks, uint8_t *dst);

/* NVFP4's unsigned e4m3 scale (bias 7), halved; 0 and 0x7f decode as zero, the top bit is
 * ignored. Every value is exact in float32. */
static inline float cleave_ue4m3_half(uint8_t x) {
  if (x == 0 || x == 0x7f) {
    return 0.0f;
  }
  int exp = (x >> 3) & 15, man = x & 7;
  if (exp == 0) {
    return (float)man * 0x1p-10f;
  }
  return (1.0f + (float)man / 8.0f) * cleave_bits_float((uint32_t)(exp - 8 + 127) << 23);
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
