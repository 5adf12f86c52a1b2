/* The casts' AVX2 + F16C kernels: the same bits as the portable ones (cast_bits.c) for every
 * input, eight elements at a time, the tail through the portable kernels. The halves convert
 * with F16C's instructions, whose rounding is given in the instruction (nearest even, whatever
 * MXCSR says) and which quiet a NaN keeping its payload's leading bits, as cast_bits.c does;
 * bfloat16 is the portable rule on integer lanes. Casts from or to f64 are left to the portable
 * family (NULL entries). */
#include "convert/convert.h"

#include <immintrin.h>

/* bfloat16 bits of eight float32 lanes, in the low 16 bits of each 32-bit lane. */
static inline __m256i bf16_lanes(__m256i x) {
  const __m256i one = _mm256_set1_epi32(1);
  __m256i high = _mm256_srli_epi32(x, 16);
  __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7FFF)), _mm256_and_si256(high, one)),
      16);
  __m256i quiet = _mm256_or_si256(high, _mm256_set1_epi32(0x40));
  __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7FFFFFFF)),
                                   _mm256_set1_epi32(0x7F800000));
  return _mm256_blendv_epi8(rounded, quiet, nan);
}

/* Eight bfloat16 results packed into 128 bits, in order. */
static inline __m128i bf16_pack(__m256i x) {
  __m256i lanes = bf16_lanes(x);
  __m256i packed = _mm256_packus_epi32(lanes, lanes); /* values fit: no saturation */
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(packed, 0xD8));
}

/* Eight bfloat16 values widened to float32 bits, a NaN quieted. */
static inline __m256i bf16_widen(const void *src) {
  __m256i x = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)src)), 16);
  __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7FFFFFFF)),
                                   _mm256_set1_epi32(0x7F800000));
  return _mm256_or_si256(x, _mm256_and_si256(nan, _mm256_set1_epi32(0x00400000)));
}

#define F16_ROUND (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

static void f32_to_f16(const void *src, void *dst, size_t n) {
  const float *s = src;
  unsigned char *d = dst;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128((__m128i *)(d + 2 * i), _mm256_cvtps_ph(_mm256_loadu_ps(s + i), F16_ROUND));
  }
  cleave_cast_portable.cast[0][1](s + i, d + 2 * i, n - i);
}

static void f16_to_f32(const void *src, void *dst, size_t n) {
  const unsigned char *s = src;
  float *d = dst;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + 2 * i))));
  }
  cleave_cast_portable.cast[1][0](s + 2 * i, d + i, n - i);
}

static void f32_to_bf16(const void *src, void *dst, size_t n) {
  const unsigned char *s = src;
  unsigned char *d = dst;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i a = bf16_lanes(_mm256_loadu_si256((const __m256i *)(s + 4 * i)));
    __m256i b = bf16_lanes(_mm256_loadu_si256((const __m256i *)(s + 4 * i + 32)));
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    _mm256_storeu_si256((__m256i *)(d + 2 * i), packed);
  }
  cleave_cast_portable.cast[0][2](s + 4 * i, d + 2 * i, n - i);
}

static void bf16_to_f32(const void *src, void *dst, size_t n) {
  const unsigned char *s = src;
  unsigned char *d = dst;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_si256((__m256i *)(d + 4 * i), bf16_widen(s + 2 * i));
  }
  cleave_cast_portable.cast[2][0](s + 2 * i, d + 4 * i, n - i);
}

static void f16_to_bf16(const void *src, void *dst, size_t n) {
  const unsigned char *s = src;
  unsigned char *d = dst;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + 2 * i)));
    _mm_storeu_si128((__m128i *)(d + 2 * i), bf16_pack(_mm256_castps_si256(x)));
  }
  cleave_cast_portable.cast[1][2](s + 2 * i, d + 2 * i, n - i);
}

static void bf16_to_f16(const void *src, void *dst, size_t n) {
  const unsigned char *s = src;
  unsigned char *d = dst;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_castsi256_ps(bf16_widen(s + 2 * i));
    _mm_storeu_si128((__m128i *)(d + 2 * i), _mm256_cvtps_ph(x, F16_ROUND));
  }
  cleave_cast_portable.cast[2][1](s + 2 * i, d + 2 * i, n - i);
}

/* Eight e4m3 bytes as float32, times `scale`, a NaN weight kept (cast_bits.c's rule): a normal
 * byte is its bits moved into place and rebiased, a subnormal its mantissa times 2^-9 (exact),
 * S.1111.111 the default quiet NaN of its sign. */
static inline __m256 e4m3_scaled(const uint8_t *src, __m256 scale) {
  __m256i x = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)src));
  __m256i magnitude = _mm256_and_si256(x, _mm256_set1_epi32(0x7F));
  __m256i sign = _mm256_slli_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x80)), 24);
  __m256i normal =
      _mm256_add_epi32(_mm256_slli_epi32(magnitude, 20), _mm256_set1_epi32((127 - 7) << 23));
  __m256 sub = _mm256_mul_ps(_mm256_cvtepi32_ps(magnitude), _mm256_set1_ps(1.0f / 512.0f));
  __m256i is_sub = _mm256_cmpgt_epi32(_mm256_set1_epi32(8), magnitude);
  __m256i is_nan = _mm256_cmpeq_epi32(magnitude, _mm256_set1_epi32(0x7F));
  __m256i bits = _mm256_blendv_epi8(normal, _mm256_castps_si256(sub), is_sub);
  bits = _mm256_blendv_epi8(bits, _mm256_set1_epi32(0x7FC00000), is_nan);
  __m256 value = _mm256_castsi256_ps(_mm256_or_si256(bits, sign));
  return _mm256_blendv_ps(_mm256_mul_ps(value, scale), value, _mm256_castsi256_ps(is_nan));
}

static void fp8_to_f32(const uint8_t *src, float scale, void *dst, size_t n) {
  float *d = dst;
  __m256 s = _mm256_set1_ps(scale);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(d + i, e4m3_scaled(src + i, s));
  }
  cleave_cast_portable.fp8[0](src + i, scale, d + i, n - i);
}

static void fp8_to_f16(const uint8_t *src, float scale, void *dst, size_t n) {
  unsigned char *d = dst;
  __m256 s = _mm256_set1_ps(scale);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128((__m128i *)(d + 2 * i), _mm256_cvtps_ph(e4m3_scaled(src + i, s), F16_ROUND));
  }
  cleave_cast_portable.fp8[1](src + i, scale, d + 2 * i, n - i);
}

static void fp8_to_bf16(const uint8_t *src, float scale, void *dst, size_t n) {
  unsigned char *d = dst;
  __m256 s = _mm256_set1_ps(scale);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i x = _mm256_castps_si256(e4m3_scaled(src + i, s));
    _mm_storeu_si128((__m128i *)(d + 2 * i), bf16_pack(x));
  }
  cleave_cast_portable.fp8[2](src + i, scale, d + 2 * i, n - i);
}

const cleave_cast_kernels cleave_cast_avx2 = {{{NULL, f32_to_f16, f32_to_bf16, NULL},
                                               {f16_to_f32, NULL, f16_to_bf16, NULL},
                                               {bf16_to_f32, bf16_to_f16, NULL, NULL},
                                               {NULL, NULL, NULL, NULL}},
                                              {fp8_to_f32, fp8_to_f16, fp8_to_bf16, NULL}};
