/* The rules of the element casts on one element's bits (include/cleave.h, "Element casts"):
 * round-to-nearest-even computed exactly on integers, so that the result never depends on the
 * floating-point environment, and NaNs quieted with the leading bits of their payload. The
 * portable kernels run these; the vector kernels reproduce them. */
#include "convert/convert.h"

#include <string.h>

uint32_t cleave_e4m3_to_f32_bits(uint8_t x) {
  uint32_t sign = (uint32_t)(x & 0x80u) << 24;
  uint32_t e = (x >> 3) & 0xFu;
  uint32_t m = x & 0x7u;
  if (e == 0xFu && m == 0x7u) {
    return sign | 0x7FC00000u; /* e4m3fn has no infinities: S.1111.111 is its NaN */
  }
  if (e == 0) {
    if (m == 0) {
      return sign;
    }
    /* Subnormal: m * 2^-9. Normalise so that the leading one becomes the implicit bit. */
    uint32_t exp = 127 - 6; /* 2^-6 is the smallest normal e4m3 */
    while ((m & 0x8u) == 0) {
      m <<= 1;
      exp--;
    }
    return sign | (exp << 23) | ((m & 0x7u) << 20);
  }
  return sign | ((e + 127 - 7) << 23) | (m << 20);
}

uint32_t cleave_f16_to_f32_bits(uint16_t x) {
  uint32_t sign = (uint32_t)(x & 0x8000u) << 16;
  uint32_t e = (x >> 10) & 0x1Fu;
  uint32_t m = x & 0x3FFu;
  if (e == 0x1Fu) {
    return m ? sign | 0x7FC00000u | (m << 13) : sign | 0x7F800000u;
  }
  if (e == 0) {
    if (m == 0) {
      return sign;
    }
    uint32_t exp = 127 - 14;
    while ((m & 0x400u) == 0) {
      m <<= 1;
      exp--;
    }
    return sign | (exp << 23) | ((m & 0x3FFu) << 13);
  }
  return sign | ((e + 127 - 15) << 23) | (m << 13);
}

uint32_t cleave_bf16_to_f32_bits(uint16_t x) {
  uint32_t bits = (uint32_t)x << 16;
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
    bits |= 0x00400000u;
  }
  return bits;
}

uint16_t cleave_f32_to_bf16_bits(uint32_t x) {
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) {
    return (uint16_t)((x >> 16) | 0x0040u);
  }
  /* Same exponent range: adding just under half an ulp, plus one when the kept part is odd,
   * rounds to nearest even, carrying into the exponent (up to infinity) when it must. */
  return (uint16_t)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

/* The bits of a float64 rounded to a binary format of `ebits` exponent and `mbits` mantissa
 * bits (at most 32 bits wide). */
static uint64_t narrow_f64(uint64_t x, int ebits, int mbits) {
  uint64_t sign = (x >> 63) << (ebits + mbits);
  uint64_t top = ((uint64_t)1 << ebits) - 1; /* the exponent field of infinities and NaNs */
  int e = (int)((x >> 52) & 0x7FFu);
  uint64_t m = x & 0xFFFFFFFFFFFFFull;
  int shift = 52 - mbits;
  if (e == 0x7FF) {
    if (m == 0) {
      return sign | (top << mbits);
    }
    return sign | (top << mbits) | ((uint64_t)1 << (mbits - 1)) | (m >> shift);
  }
  if (e == 0) {
    return sign; /* float64 subnormals are far below half the smallest subnormal of f32 */
  }
  int bias = (1 << (ebits - 1)) - 1;
  int te = e - 1023 + bias; /* the destination's exponent field, if the value is normal there */
  if (te >= (int)top) {
    return sign | (top << mbits);
  }
  if (te >= 1) {
    uint64_t r = ((uint64_t)te << 52) | m;
    r = (r + (((uint64_t)1 << (shift - 1)) - 1) + ((r >> shift) & 1)) >> shift;
    return sign | r; /* a carry out of the mantissa rounds up to the next binade or infinity */
  }
  /* A subnormal result: the value in units of the smallest subnormal, rounded. */
  int s = shift + 1 - te;
  if (s > 53) {
    return sign;
  }
  m |= (uint64_t)1 << 52;
  uint64_t q = m >> s;
  uint64_t rem = m & (((uint64_t)1 << s) - 1);
  uint64_t half = (uint64_t)1 << (s - 1);
  if (rem > half || (rem == half && (q & 1))) {
    q++;
  }
  return sign | q;
}

/* float32 bits to float64 bits, exactly (subnormals normalised by hand so that a DAZ mode
 * cannot flush them). */
static uint64_t f32_to_f64_bits(uint32_t x) {
  uint64_t sign = (uint64_t)(x >> 31) << 63;
  uint32_t e = (x >> 23) & 0xFFu;
  uint64_t m = x & 0x7FFFFFu;
  if (e == 0xFFu) {
    return m ? sign | 0x7FF8000000000000ull | (m << 29) : sign | 0x7FF0000000000000ull;
  }
  if (e == 0) {
    if (m == 0) {
      return sign;
    }
    int exp = 1023 - 126;
    while ((m & 0x800000u) == 0) {
      m <<= 1;
      exp--;
    }
    return sign | ((uint64_t)exp << 52) | ((m & 0x7FFFFFu) << 29);
  }
  return sign | ((uint64_t)(e + 1023 - 127) << 52) | (m << 29);
}

uint16_t cleave_f32_to_f16_bits(uint32_t x) {
  /* Through float64, which holds every float32 exactly: one rounding. */
  return (uint16_t)narrow_f64(f32_to_f64_bits(x), 5, 10);
}

/* The portable kernels: one loop per pair, through float32 bits (exact for every source but
 * float64) or float64 bits. */

static uint32_t load32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint16_t load16(const unsigned char *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
static uint64_t load64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* The float32 bits of element i of a source of index `from` (not F64). */
static uint32_t source_f32(int from, const unsigned char *src, size_t i) {
  switch (from) {
  case 0:
    return load32(src + 4 * i);
  case 1:
    return cleave_f16_to_f32_bits(load16(src + 2 * i));
  default:
    return cleave_bf16_to_f32_bits(load16(src + 2 * i));
  }
}

/* Stores float32 bits as element i of a destination of index `to`. */
static void store_from_f32(int to, unsigned char *dst, size_t i, uint32_t v) {
  switch (to) {
  case 0:
    memcpy(dst + 4 * i, &v, 4);
    break;
  case 1: {
    uint16_t h = cleave_f32_to_f16_bits(v);
    memcpy(dst + 2 * i, &h, 2);
    break;
  }
  case 2: {
    uint16_t h = cleave_f32_to_bf16_bits(v);
    memcpy(dst + 2 * i, &h, 2);
    break;
  }
  default: {
    uint64_t d = f32_to_f64_bits(v);
    memcpy(dst + 8 * i, &d, 8);
    break;
  }
  }
}

/* Stores float64 bits as element i of a destination of index `to`. */
static void store_from_f64(int to, unsigned char *dst, size_t i, uint64_t v) {
  switch (to) {
  case 0: {
    uint32_t f = (uint32_t)narrow_f64(v, 8, 23);
    memcpy(dst + 4 * i, &f, 4);
    break;
  }
  case 1: {
    uint16_t h = (uint16_t)narrow_f64(v, 5, 10);
    memcpy(dst + 2 * i, &h, 2);
    break;
  }
  case 2: {
    uint16_t h = (uint16_t)narrow_f64(v, 8, 7);
    memcpy(dst + 2 * i, &h, 2);
    break;
  }
  default:
    memcpy(dst + 8 * i, &v, 8);
    break;
  }
}

#define PORTABLE_CAST(FROM, TO)                                                                    \
  static void cast_##FROM##_##TO(const void *src, void *dst, size_t n) {                           \
    const unsigned char *s = src;                                                                  \
    unsigned char *d = dst;                                                                        \
    for (size_t i = 0; i < n; i++) {                                                               \
      if (FROM == 3) {                                                                             \
        store_from_f64(TO, d, i, load64(s + 8 * i));                                               \
      } else {                                                                                     \
        store_from_f32(TO, d, i, source_f32(FROM, s, i));                                          \
      }                                                                                            \
    }                                                                                              \
  }

#define PORTABLE_ROW(FROM)                                                                         \
  PORTABLE_CAST(FROM, 0) PORTABLE_CAST(FROM, 1) PORTABLE_CAST(FROM, 2) PORTABLE_CAST(FROM, 3)
PORTABLE_ROW(0)
PORTABLE_ROW(1)
PORTABLE_ROW(2)
PORTABLE_ROW(3)

#define PORTABLE_FP8(TO)                                                                           \
  static void fp8_##TO(const uint8_t *src, float scale, void *dst, size_t n) {                     \
    unsigned char *d = dst;                                                                        \
    for (size_t i = 0; i < n; i++) {                                                               \
      uint32_t bits = cleave_e4m3_to_f32_bits(src[i]);                                             \
      float v;                                                                                     \
      memcpy(&v, &bits, 4);                                                                        \
      if (v == v) { /* a NaN weight stays itself whatever the scale (the vector kernels too) */    \
        v *= scale;                                                                                \
      }                                                                                            \
      memcpy(&bits, &v, 4);                                                                        \
      store_from_f32(TO, d, i, bits);                                                              \
    }                                                                                              \
  }
PORTABLE_FP8(0)
PORTABLE_FP8(1)
PORTABLE_FP8(2)
PORTABLE_FP8(3)

const cleave_cast_kernels cleave_cast_portable = {{{cast_0_0, cast_0_1, cast_0_2, cast_0_3},
                                                   {cast_1_0, cast_1_1, cast_1_2, cast_1_3},
                                                   {cast_2_0, cast_2_1, cast_2_2, cast_2_3},
                                                   {cast_3_0, cast_3_1, cast_3_2, cast_3_3}},
                                                  {fp8_0, fp8_1, fp8_2, fp8_3}};
