/*
 * AVX2 dequantize kernels for the most used ggml block types. Each computes exactly the products
 * and sums of its portable twin in ggml_blocks.c (one float32 multiply of a scale by an integer,
 * then one add or subtract), eight lanes at a time, so the bits are the same; only the unpacking
 * of the integers is vectorised differently. Compiled with -mavx2 and called only after the
 * run-time CPU check.
 */
#include "convert/convert.h"

#include <immintrin.h>

/* Eight int8 values at p, widened to float32. */
static inline __m256 i8x8_to_ps(__m128i v) {
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
}

/* t - m, or t where t is NaN; t + m, or m quieted where m is NaN: NumPy's choices of NaN (see
 * sub_after and add_after in ggml_blocks.c). */
static inline __m256 sub_after8(__m256 t, __m256 m) {
  __m256 r = _mm256_sub_ps(t, m);
  return _mm256_blendv_ps(r, t, _mm256_cmp_ps(t, t, _CMP_UNORD_Q));
}
static inline __m256 add_after8(__m256 t, __m256 m) {
  __m256 r = _mm256_add_ps(t, m);
  __m256 quiet_m = _mm256_or_ps(m, _mm256_castsi256_ps(_mm256_set1_epi32(0x00400000)));
  return _mm256_blendv_ps(r, quiet_m, _mm256_cmp_ps(m, m, _CMP_UNORD_Q));
}

/* Stores d * v for 16 int8 values v (in a 128-bit register) at dst. */
static inline void store16(float *dst, __m128i v, __m256 d) {
  _mm256_storeu_ps(dst, _mm256_mul_ps(d, i8x8_to_ps(v)));
  _mm256_storeu_ps(dst + 8, _mm256_mul_ps(d, i8x8_to_ps(_mm_srli_si128(v, 8))));
}

static void dq_q8_0_avx2(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 34, dst += 32) {
    __m256 d = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src)));
    store16(dst, _mm_loadu_si128((const __m128i *)(src + 2)), d);
    store16(dst + 16, _mm_loadu_si128((const __m128i *)(src + 18)), d);
  }
}

static void dq_q4_0_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low4 = _mm_set1_epi8(15), eight = _mm_set1_epi8(8);
  for (int64_t b = 0; b < n; b++, src += 18, dst += 32) {
    __m256 d = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src)));
    __m128i q = _mm_loadu_si128((const __m128i *)(src + 2));
    __m128i lo = _mm_sub_epi8(_mm_and_si128(q, low4), eight);
    __m128i hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(q, 4), low4), eight);
    store16(dst, lo, d);
    store16(dst + 16, hi, d);
  }
}

/* Stores d * v + m (NaN of d * v first) for 16 uint8 values below 128 at dst. */
static inline void store16_add(float *dst, __m128i v, __m256 d, __m256 m) {
  __m256 a = _mm256_mul_ps(d, i8x8_to_ps(v));
  __m256 c = _mm256_mul_ps(d, i8x8_to_ps(_mm_srli_si128(v, 8)));
  _mm256_storeu_ps(dst, add_after8(a, m));
  _mm256_storeu_ps(dst + 8, add_after8(c, m));
}

static void dq_q4_1_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low4 = _mm_set1_epi8(15);
  for (int64_t b = 0; b < n; b++, src += 20, dst += 32) {
    __m256 d = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src)));
    __m256 m = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src + 2)));
    __m128i q = _mm_loadu_si128((const __m128i *)(src + 4));
    store16_add(dst, _mm_and_si128(q, low4), d, m);
    store16_add(dst + 16, _mm_and_si128(_mm_srli_epi16(q, 4), low4), d, m);
  }
}

/* Stores dk * v - mk (NaN of the product first) for 32 uint8 values below 128 at dst. */
static inline void store32_sub(float *dst, __m128i v0, __m128i v1, __m256 dk, __m256 mk) {
  __m128i v[2] = {v0, v1};
  for (int h = 0; h < 2; h++) {
    __m256 a = _mm256_mul_ps(dk, i8x8_to_ps(v[h]));
    __m256 c = _mm256_mul_ps(dk, i8x8_to_ps(_mm_srli_si128(v[h], 8)));
    _mm256_storeu_ps(dst + 16 * h, sub_after8(a, mk));
    _mm256_storeu_ps(dst + 16 * h + 8, sub_after8(c, mk));
  }
}

/* The 6-bit scales and minimums of Q4_K and Q5_K (as k_scale_min in ggml_blocks.c). */
static inline void k_scales(const uint8_t *s, int sc[8], int mn[8]) {
  for (int k = 0; k < 4; k++) {
    sc[k] = s[k] & 63;
    mn[k] = s[k + 4] & 63;
    sc[k + 4] = (s[k + 8] & 15) | ((s[k] >> 2) & 0x30);
    mn[k + 4] = (s[k + 8] >> 4) | ((s[k + 4] >> 2) & 0x30);
  }
}

static void dq_q4_k_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low4 = _mm_set1_epi8(15);
  for (int64_t b = 0; b < n; b++, src += 144, dst += 256) {
    float d = cleave_half_to_float(cleave_le16(src));
    float dmin = cleave_half_to_float(cleave_le16(src + 2));
    int sc[8], mn[8];
    k_scales(src + 4, sc, mn);
    const uint8_t *qs = src + 16;
    for (int j = 0; j < 4; j++) {
      __m128i q0 = _mm_loadu_si128((const __m128i *)(qs + 32 * j));
      __m128i q1 = _mm_loadu_si128((const __m128i *)(qs + 32 * j + 16));
      for (int s = 0; s < 2; s++) {
        int k = 2 * j + s;
        __m256 dk = _mm256_set1_ps(d * (float)sc[k]);
        __m256 mk = _mm256_set1_ps(dmin * (float)mn[k]);
        __m128i a = s == 0 ? q0 : _mm_srli_epi16(q0, 4);
        __m128i c = s == 0 ? q1 : _mm_srli_epi16(q1, 4);
        store32_sub(dst + 32 * k, _mm_and_si128(a, low4), _mm_and_si128(c, low4), dk, mk);
      }
    }
  }
}

static void dq_q5_k_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low4 = _mm_set1_epi8(15), one = _mm_set1_epi8(1);
  for (int64_t b = 0; b < n; b++, src += 176, dst += 256) {
    float d = cleave_half_to_float(cleave_le16(src));
    float dmin = cleave_half_to_float(cleave_le16(src + 2));
    int sc[8], mn[8];
    k_scales(src + 4, sc, mn);
    const uint8_t *qs = src + 48;
    __m128i h0 = _mm_loadu_si128((const __m128i *)(src + 16));
    __m128i h1 = _mm_loadu_si128((const __m128i *)(src + 32));
    for (int j = 0; j < 4; j++) {
      __m128i q0 = _mm_loadu_si128((const __m128i *)(qs + 32 * j));
      __m128i q1 = _mm_loadu_si128((const __m128i *)(qs + 32 * j + 16));
      for (int s = 0; s < 2; s++) {
        int k = 2 * j + s;
        __m256 dk = _mm256_set1_ps(d * (float)sc[k]);
        __m256 mk = _mm256_set1_ps(dmin * (float)mn[k]);
        __m128i a = _mm_and_si128(s == 0 ? q0 : _mm_srli_epi16(q0, 4), low4);
        __m128i c = _mm_and_si128(s == 0 ? q1 : _mm_srli_epi16(q1, 4), low4);
        /* bit k of each high byte, moved to bit 4 */
        __m128i shift = _mm_cvtsi32_si128(k);
        __m128i ha = _mm_and_si128(_mm_srl_epi16(h0, shift), one);
        __m128i hc = _mm_and_si128(_mm_srl_epi16(h1, shift), one);
        a = _mm_or_si128(a, _mm_slli_epi16(ha, 4));
        c = _mm_or_si128(c, _mm_slli_epi16(hc, 4));
        store32_sub(dst + 32 * k, a, c, dk, mk);
      }
    }
  }
}

static void dq_q6_k_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low4 = _mm_set1_epi8(15), low2 = _mm_set1_epi8(3), off = _mm_set1_epi8(32);
  for (int64_t b = 0; b < n; b++, src += 210, dst += 256) {
    const uint8_t *ql = src, *qh = src + 128, *sc = src + 192;
    float d = cleave_half_to_float(cleave_le16(src + 208));
    for (int j = 0; j < 2; j++) {
      /* 128 values: low nibbles from 64 bytes (nibble r / 64), high pairs from 32 (pair
       * r / 32) */
      for (int c = 0; c < 8; c++) {
        int r = 16 * c;
        __m128i l = _mm_loadu_si128((const __m128i *)(ql + 64 * j + r % 64));
        if (r >= 64) {
          l = _mm_srli_epi16(l, 4);
        }
        l = _mm_and_si128(l, low4);
        __m128i h = _mm_loadu_si128((const __m128i *)(qh + 32 * j + r % 32));
        h = _mm_and_si128(_mm_srl_epi16(h, _mm_cvtsi32_si128(2 * (r / 32))), low2);
        __m128i q = _mm_sub_epi8(_mm_or_si128(l, _mm_slli_epi16(h, 4)), off);
        int g = (128 * j + r) / 16;
        store16(dst + 128 * j + r, q, _mm256_set1_ps(d * (float)(int8_t)sc[g]));
      }
    }
  }
}

cleave_ggml_dequant_fn cleave_ggml_dequant_avx2(cleave_ggml_type type) {
  switch (type) {
  case CLEAVE_GGML_Q8_0:
    return dq_q8_0_avx2;
  case CLEAVE_GGML_Q4_0:
    return dq_q4_0_avx2;
  case CLEAVE_GGML_Q4_1:
    return dq_q4_1_avx2;
  case CLEAVE_GGML_Q4_K:
    return dq_q4_k_avx2;
  case CLEAVE_GGML_Q5_K:
    return dq_q5_k_avx2;
  case CLEAVE_GGML_Q6_K:
    return dq_q6_k_avx2;
  default:
    return NULL;
  }
}
