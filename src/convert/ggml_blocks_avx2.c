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

/* Stores dk * v - mk (NaN of the product first) for 16 uint8 values below 128 at dst. */
static inline void store16_sub(float *dst, __m128i v, __m256 dk, __m256 mk) {
  __m256 a = _mm256_mul_ps(dk, i8x8_to_ps(v));
  __m256 c = _mm256_mul_ps(dk, i8x8_to_ps(_mm_srli_si128(v, 8)));
  _mm256_storeu_ps(dst, sub_after8(a, mk));
  _mm256_storeu_ps(dst + 8, sub_after8(c, mk));
}

/* 16 bits as 16 bytes of 0 or `value` (bit i to byte i). */
static inline __m128i bits16_to_bytes(uint32_t bits, __m128i value) {
  const __m128i spread = _mm_set_epi8(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m128i select = _mm_set_epi8((char)0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01,
                                      (char)0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01);
  __m128i b = _mm_shuffle_epi8(_mm_cvtsi32_si128((int)bits), spread);
  __m128i set = _mm_cmpeq_epi8(_mm_and_si128(b, select), select);
  return _mm_and_si128(set, value);
}

static void dq_q5_0_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low4 = _mm_set1_epi8(15), b4 = _mm_set1_epi8(16);
  for (int64_t b = 0; b < n; b++, src += 22, dst += 32) {
    __m256 d = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src)));
    uint32_t qh = cleave_le32(src + 2);
    __m128i q = _mm_loadu_si128((const __m128i *)(src + 6));
    __m128i lo = _mm_or_si128(_mm_and_si128(q, low4), bits16_to_bytes(qh & 0xffffu, b4));
    __m128i hi =
        _mm_or_si128(_mm_and_si128(_mm_srli_epi16(q, 4), low4), bits16_to_bytes(qh >> 16, b4));
    store16(dst, _mm_sub_epi8(lo, b4), d);
    store16(dst + 16, _mm_sub_epi8(hi, b4), d);
  }
}

static void dq_q5_1_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low4 = _mm_set1_epi8(15), b4 = _mm_set1_epi8(16);
  for (int64_t b = 0; b < n; b++, src += 24, dst += 32) {
    __m256 d = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src)));
    __m256 m = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src + 2)));
    uint32_t qh = cleave_le32(src + 4);
    __m128i q = _mm_loadu_si128((const __m128i *)(src + 8));
    __m128i lo = _mm_or_si128(_mm_and_si128(q, low4), bits16_to_bytes(qh & 0xffffu, b4));
    __m128i hi =
        _mm_or_si128(_mm_and_si128(_mm_srli_epi16(q, 4), low4), bits16_to_bytes(qh >> 16, b4));
    store16_add(dst, lo, d, m);
    store16_add(dst + 16, hi, d, m);
  }
}

static void dq_q2_k_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low2 = _mm_set1_epi8(3);
  for (int64_t b = 0; b < n; b++, src += 84, dst += 256) {
    const uint8_t *scales = src, *qs = src + 16;
    float d = cleave_half_to_float(cleave_le16(src + 80));
    float dmin = cleave_half_to_float(cleave_le16(src + 82));
    for (int j = 0; j < 2; j++) {
      for (int h = 0; h < 2; h++) {
        __m128i q = _mm_loadu_si128((const __m128i *)(qs + j * 32 + h * 16));
        for (int s = 0; s < 4; s++) {
          int g = j * 8 + s * 2 + h;
          __m256 dl = _mm256_set1_ps(d * (float)(scales[g] & 15));
          __m256 ml = _mm256_set1_ps(dmin * (float)(scales[g] >> 4));
          __m128i v = _mm_and_si128(_mm_srl_epi16(q, _mm_cvtsi32_si128(2 * s)), low2);
          store16_sub(dst + g * 16, v, dl, ml);
        }
      }
    }
  }
}

static void dq_q3_k_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low2 = _mm_set1_epi8(3), one = _mm_set1_epi8(1), four = _mm_set1_epi8(4);
  for (int64_t b = 0; b < n; b++, src += 110, dst += 256) {
    const uint8_t *hmask = src, *qs = src + 32, *sc = src + 96;
    float d = cleave_half_to_float(cleave_le16(src + 108));
    for (int j = 0; j < 2; j++) {
      for (int h = 0; h < 2; h++) {
        __m128i q = _mm_loadu_si128((const __m128i *)(qs + j * 32 + h * 16));
        __m128i m = _mm_loadu_si128((const __m128i *)(hmask + h * 16));
        for (int s = 0; s < 4; s++) {
          int g = j * 8 + s * 2 + h;
          int lo = (sc[g % 8] >> (4 * (g / 8))) & 15;
          int hi = (sc[8 + g % 4] >> (2 * (g / 4))) & 3;
          __m256 dl = _mm256_set1_ps(d * (float)((lo | (hi << 4)) - 32));
          __m128i v = _mm_and_si128(_mm_srl_epi16(q, _mm_cvtsi32_si128(2 * s)), low2);
          __m128i bit = _mm_and_si128(_mm_srl_epi16(m, _mm_cvtsi32_si128(j * 4 + s)), one);
          /* a clear bit subtracts 4 */
          v = _mm_sub_epi8(v, _mm_andnot_si128(_mm_slli_epi16(bit, 2), four));
          store16(dst + g * 16, v, dl);
        }
      }
    }
  }
}

static void dq_tq2_0_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i low2 = _mm_set1_epi8(3), one = _mm_set1_epi8(1);
  for (int64_t b = 0; b < n; b++, src += 66, dst += 256) {
    __m256 d = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src + 64)));
    for (int j = 0; j < 2; j++) {
      for (int h = 0; h < 2; h++) {
        __m128i q = _mm_loadu_si128((const __m128i *)(src + j * 32 + h * 16));
        for (int s = 0; s < 4; s++) {
          __m128i v = _mm_and_si128(_mm_srl_epi16(q, _mm_cvtsi32_si128(2 * s)), low2);
          store16(dst + j * 128 + s * 32 + h * 16, _mm_sub_epi8(v, one), d);
        }
      }
    }
  }
}

/* 16 bytes of 4-bit indices: the table's int8 values for the low nibbles and the high ones. */
static inline void lookup16(__m128i table, __m128i q, __m128i *lo, __m128i *hi) {
  const __m128i low4 = _mm_set1_epi8(15);
  *lo = _mm_shuffle_epi8(table, _mm_and_si128(q, low4));
  *hi = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(q, 4), low4));
}

static const int8_t iq4nl_table[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                       1,    13,   25,  38,  53,  69,  89,  113};
static const int8_t e2m1_table[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

static void dq_iq4_nl_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i table = _mm_loadu_si128((const __m128i *)iq4nl_table);
  for (int64_t b = 0; b < n; b++, src += 18, dst += 32) {
    __m256 d = _mm256_set1_ps(cleave_half_to_float(cleave_le16(src)));
    __m128i lo, hi;
    lookup16(table, _mm_loadu_si128((const __m128i *)(src + 2)), &lo, &hi);
    store16(dst, lo, d);
    store16(dst + 16, hi, d);
  }
}

static void dq_iq4_xs_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i table = _mm_loadu_si128((const __m128i *)iq4nl_table);
  for (int64_t b = 0; b < n; b++, src += 136, dst += 256) {
    float d = cleave_half_to_float(cleave_le16(src));
    unsigned sh = cleave_le16(src + 2);
    const uint8_t *sl = src + 4, *qs = src + 8;
    for (int k = 0; k < 8; k++) {
      int lo4 = (sl[k / 2] >> (4 * (k % 2))) & 15;
      int hi2 = (int)((sh >> (2 * k)) & 3u);
      __m256 dl = _mm256_set1_ps(d * (float)((lo4 | (hi2 << 4)) - 32));
      __m128i lo, hi;
      lookup16(table, _mm_loadu_si128((const __m128i *)(qs + k * 16)), &lo, &hi);
      store16(dst + k * 32, lo, dl);
      store16(dst + k * 32 + 16, hi, dl);
    }
  }
}

static void dq_mxfp4_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i table = _mm_loadu_si128((const __m128i *)e2m1_table);
  for (int64_t b = 0; b < n; b++, src += 17, dst += 32) {
    uint32_t e = src[0];
    __m256 d = _mm256_set1_ps(cleave_bits_float(e < 2 ? 0x00200000u << e : (e - 1) << 23));
    __m128i lo, hi;
    lookup16(table, _mm_loadu_si128((const __m128i *)(src + 1)), &lo, &hi);
    store16(dst, lo, d);
    store16(dst + 16, hi, d);
  }
}

/* TQ1_0's base-3 digit k of 16 bytes: (uint8)(q * 3^k) * 3 >> 8, minus 1, times d, stored. */
static inline void tq1_digit16(float *dst, __m256i q16, int pow3, __m256 d) {
  const __m256i low8 = _mm256_set1_epi16(0xff), three = _mm256_set1_epi16(3);
  __m256i v = _mm256_and_si256(_mm256_mullo_epi16(q16, _mm256_set1_epi16((short)pow3)), low8);
  __m256i t =
      _mm256_sub_epi16(_mm256_srli_epi16(_mm256_mullo_epi16(v, three), 8), _mm256_set1_epi16(1));
  __m256 a = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(t)));
  __m256 c = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(t, 1)));
  _mm256_storeu_ps(dst, _mm256_mul_ps(d, a));
  _mm256_storeu_ps(dst + 8, _mm256_mul_ps(d, c));
}

static void dq_tq1_0_avx2(const uint8_t *src, int64_t n, float *dst) {
  static const int pow3[5] = {1, 3, 9, 27, 81};
  for (int64_t b = 0; b < n; b++, src += 54, dst += 256) {
    float ds = cleave_half_to_float(cleave_le16(src + 52));
    __m256 d = _mm256_set1_ps(ds);
    __m256i q0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)src));
    __m256i q1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src + 16)));
    __m256i q2 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src + 32)));
    for (int k = 0; k < 5; k++) {
      tq1_digit16(dst + k * 32, q0, pow3[k], d);
      tq1_digit16(dst + k * 32 + 16, q1, pow3[k], d);
      tq1_digit16(dst + 160 + k * 16, q2, pow3[k], d);
    }
    for (int k = 0; k < 4; k++) {
      for (int l = 0; l < 4; l++) {
        uint8_t v = (uint8_t)(src[48 + l] * pow3[k]);
        dst[240 + k * 4 + l] = ds * (float)(((v * 3) >> 8) - 1);
      }
    }
  }
}

/* NVFP4: groups g and g + 1 (8 bytes each) in one 16-byte lookup; each group's 16 values are
 * its 8 low nibbles, then its 8 high ones. */
static void dq_nvfp4_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m128i table = _mm_loadu_si128((const __m128i *)e2m1_table);
  for (int64_t b = 0; b < n; b++, src += 36, dst += 64) {
    for (int g = 0; g < 4; g += 2) {
      __m128i lo, hi;
      lookup16(table, _mm_loadu_si128((const __m128i *)(src + 4 + g * 8)), &lo, &hi);
      __m256 d0 = _mm256_set1_ps(cleave_ue4m3_half(src[g]));
      __m256 d1 = _mm256_set1_ps(cleave_ue4m3_half(src[g + 1]));
      float *y = dst + g * 16;
      _mm256_storeu_ps(y, _mm256_mul_ps(d0, i8x8_to_ps(lo)));
      _mm256_storeu_ps(y + 8, _mm256_mul_ps(d0, i8x8_to_ps(hi)));
      _mm256_storeu_ps(y + 16, _mm256_mul_ps(d1, i8x8_to_ps(_mm_srli_si128(lo, 8))));
      _mm256_storeu_ps(y + 24, _mm256_mul_ps(d1, i8x8_to_ps(_mm_srli_si128(hi, 8))));
    }
  }
}

/* IEEE halves to floats as cleave_half_to_float (NumPy's rule: NaN payloads kept, not quieted),
 * 8 at a time, with integer operations (F16C would quiet signalling NaNs). */
static void dq_f16_avx2(const uint8_t *src, int64_t n, float *dst) {
  const __m256i magnitude = _mm256_set1_epi32(0x7fff), exp_mask = _mm256_set1_epi32(0x7c00);
  const __m256i sign_mask = _mm256_set1_epi32(0x8000), zero = _mm256_setzero_si256();
  const __m256i normal_bias = _mm256_set1_epi32(0x38000000);
  const __m256i special_bias = _mm256_set1_epi32(0x70000000);
  const __m256 tiny = _mm256_set1_ps(0x1p-24f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + 2 * i)));
    __m256i m = _mm256_and_si256(h, magnitude), e = _mm256_and_si256(h, exp_mask);
    __m256i sign = _mm256_slli_epi32(_mm256_and_si256(h, sign_mask), 16);
    __m256i shifted = _mm256_slli_epi32(m, 13);
    __m256i normal = _mm256_add_epi32(shifted, normal_bias);
    __m256i special = _mm256_add_epi32(shifted, special_bias);
    __m256i sub = _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(m), tiny));
    __m256i r = _mm256_blendv_epi8(normal, special, _mm256_cmpeq_epi32(e, exp_mask));
    r = _mm256_blendv_epi8(r, sub, _mm256_cmpeq_epi32(e, zero));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_or_si256(r, sign));
  }
  for (; i < n; i++) {
    dst[i] = cleave_half_to_float(cleave_le16(src + 2 * i));
  }
}

static void dq_bf16_avx2(const uint8_t *src, int64_t n, float *dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + 2 * i)));
    _mm256_storeu_si256((__m256i *)(dst + i), _mm256_slli_epi32(h, 16));
  }
  for (; i < n; i++) {
    dst[i] = cleave_bits_float((uint32_t)cleave_le16(src + 2 * i) << 16);
  }
}

/* Eight products x * id rounded half away from zero, then NumPy's int8 cast: truncation to int32
 * (NaN and out-of-range giving INT32_MIN, as cvttps2dq does), low byte. As
 * cleave_round_to_numpy_int8. */
static inline __m256i round8(__m256 v) {
  const __m256 half = _mm256_set1_ps(0.5f), minus_half = _mm256_set1_ps(-0.5f);
  const __m256i one = _mm256_set1_epi32(1);
  __m256i i = _mm256_cvttps_epi32(v);
  __m256 frac = _mm256_sub_ps(v, _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
  __m256i up = _mm256_castps_si256(_mm256_cmp_ps(frac, half, _CMP_GE_OQ));
  __m256i down = _mm256_castps_si256(_mm256_cmp_ps(frac, minus_half, _CMP_LE_OQ));
  i = _mm256_add_epi32(i, _mm256_and_si256(up, one));
  return _mm256_sub_epi32(i, _mm256_and_si256(down, one));
}

void cleave_ggml_quantize_q8_0_avx2(const float *src, int64_t n_blocks, uint8_t *dst) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  /* the low byte of each int32, lanes 0-3 of each 128-bit half, then the halves joined */
  const __m256i low_bytes =
      _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i gather = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t b = 0; b < n_blocks; b++, src += 32, dst += 34) {
    __m256 x[4];
    __m256 any_nan = _mm256_setzero_ps(), m = _mm256_setzero_ps();
    for (int k = 0; k < 4; k++) {
      x[k] = _mm256_loadu_ps(src + 8 * k);
      any_nan = _mm256_or_ps(any_nan, _mm256_cmp_ps(x[k], x[k], _CMP_UNORD_Q));
      m = _mm256_max_ps(m, _mm256_and_ps(x[k], abs_mask));
    }
    if (_mm256_movemask_ps(any_nan) != 0) {
      cleave_q8_0_block(src, cleave_q8_0_amax(src), dst);
      continue;
    }
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_shuffle_ps(m4, m4, 1));
    float amax = _mm_cvtss_f32(m4);
    float d = amax / 127.0f;
    float id = d == 0.0f ? 0.0f : 1.0f / d;
    uint16_t dh = cleave_float_to_half(d);
    dst[0] = (uint8_t)(dh & 0xff);
    dst[1] = (uint8_t)(dh >> 8);
    __m256 vid = _mm256_set1_ps(id);
    for (int k = 0; k < 4; k += 2) {
      __m256i a = _mm256_shuffle_epi8(round8(_mm256_mul_ps(x[k], vid)), low_bytes);
      __m256i c = _mm256_shuffle_epi8(round8(_mm256_mul_ps(x[k + 1], vid)), low_bytes);
      /* a holds its values' bytes in dwords 0 and 4, c likewise: dwords a0 c0 . . a4 c4 . .,
       * then a0 a4 c0 c4, the 16 bytes in order */
      __m256i both = _mm256_permutevar8x32_epi32(_mm256_unpacklo_epi32(a, c), gather);
      _mm_storeu_si128((__m128i *)(dst + 2 + 8 * k), _mm256_castsi256_si128(both));
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
  case CLEAVE_GGML_Q5_0:
    return dq_q5_0_avx2;
  case CLEAVE_GGML_Q5_1:
    return dq_q5_1_avx2;
  case CLEAVE_GGML_Q2_K:
    return dq_q2_k_avx2;
  case CLEAVE_GGML_Q3_K:
    return dq_q3_k_avx2;
  case CLEAVE_GGML_TQ2_0:
    return dq_tq2_0_avx2;
  case CLEAVE_GGML_IQ4_NL:
    return dq_iq4_nl_avx2;
  case CLEAVE_GGML_IQ4_XS:
    return dq_iq4_xs_avx2;
  case CLEAVE_GGML_MXFP4:
    return dq_mxfp4_avx2;
  case CLEAVE_GGML_F16:
    return dq_f16_avx2;
  case CLEAVE_GGML_BF16:
    return dq_bf16_avx2;
  case CLEAVE_GGML_NVFP4:
    return dq_nvfp4_avx2;
  case CLEAVE_GGML_TQ1_0:
    return dq_tq1_0_avx2;
  default:
    return NULL;
  }
}
