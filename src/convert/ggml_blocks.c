/*
 * ggml's block formats: the type table, the portable dequantize kernels, the Q8_0 quantizer and
 * the public entry points (cleave_ggml_*).
 *
 * The reference is gguf-py's quants.py, which computes with NumPy in float32: each kernel here
 * rounds the same products and sums to float32 in the same order (a scale times an integer, then
 * a minimum added or subtracted), so the results are equal bit for bit. Contraction into fused
 * multiply-adds would change the bits, so the build turns it off (-ffp-contract=off) for this
 * folder. Where both of NumPy's operands are NaN, x86 returns one of them by operand order; the
 * kernels make NumPy's choice explicitly rather than leave it to the compiler's order.
 */
#include "convert/convert.h"
#include "copy/engine.h"
#include "core/core.h"

#include <ctype.h>
#include <stdio.h>

/* ---- the type table ---------------------------------------------------------------------- */

typedef struct ggml_type_info {
  const char *name;
  int64_t block_elements;
  int64_t block_bytes;
  cleave_ggml_dequant_fn dequant; /* NULL: not dequantized */
} ggml_type_info;

enum { GGML_TYPE_LIMIT = 43 };

/* a - b and a + b where `a` is a product and `b` a scale: when both are NaN, NumPy's result is
 * a's NaN for the subtraction and b's (quieted) for the addition, as its loops order the x86
 * operands (the add is a broadcast scale's loop); a lone NaN propagates by itself. */
static inline float sub_after(float a, float b) {
  float r = a - b;
  return isnan(a) ? a : r;
}
static inline float add_after(float a, float b) {
  float r = a + b;
  return isnan(b) ? cleave_bits_float(cleave_float_bits(b) | 0x00400000u) : r;
}

static inline float scale_at(const uint8_t *p) {
  return cleave_half_to_float(cleave_le16(p));
}

static void dq_f32(const uint8_t *src, int64_t n, float *dst) {
  memcpy(dst, src, (size_t)n * 4);
}

static void dq_f16(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t i = 0; i < n; i++) {
    dst[i] = scale_at(src + 2 * i);
  }
}

static void dq_bf16(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t i = 0; i < n; i++) {
    dst[i] = cleave_bits_float((uint32_t)cleave_le16(src + 2 * i) << 16);
  }
}

static void dq_q4_0(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 18, dst += 32) {
    float d = scale_at(src);
    for (int j = 0; j < 16; j++) {
      dst[j] = d * (float)((src[2 + j] & 15) - 8);
      dst[j + 16] = d * (float)((src[2 + j] >> 4) - 8);
    }
  }
}

static void dq_q4_1(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 20, dst += 32) {
    float d = scale_at(src);
    float m = scale_at(src + 2);
    for (int j = 0; j < 16; j++) {
      dst[j] = add_after(d * (float)(src[4 + j] & 15), m);
      dst[j + 16] = add_after(d * (float)(src[4 + j] >> 4), m);
    }
  }
}

static void dq_q5_0(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 22, dst += 32) {
    float d = scale_at(src);
    uint32_t qh = cleave_le32(src + 2);
    for (int j = 0; j < 16; j++) {
      int lo = (src[6 + j] & 15) | (int)(((qh >> j) & 1u) << 4);
      int hi = (src[6 + j] >> 4) | (int)(((qh >> (j + 16)) & 1u) << 4);
      dst[j] = d * (float)(lo - 16);
      dst[j + 16] = d * (float)(hi - 16);
    }
  }
}

static void dq_q5_1(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 24, dst += 32) {
    float d = scale_at(src);
    float m = scale_at(src + 2);
    uint32_t qh = cleave_le32(src + 4);
    for (int j = 0; j < 16; j++) {
      int lo = (src[8 + j] & 15) | (int)(((qh >> j) & 1u) << 4);
      int hi = (src[8 + j] >> 4) | (int)(((qh >> (j + 16)) & 1u) << 4);
      dst[j] = add_after(d * (float)lo, m);
      dst[j + 16] = add_after(d * (float)hi, m);
    }
  }
}

static void dq_q8_0(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 34, dst += 32) {
    float d = scale_at(src);
    for (int j = 0; j < 32; j++) {
      dst[j] = (float)(int8_t)src[2 + j] * d;
    }
  }
}

/* Q2_K: 16 scale bytes (scale low nibble, minimum high nibble, per 16 values), 64 bytes of 2-bit
 * values, d, dmin. Value p: byte (p / 128) * 32 + p % 32, bits 2 * ((p % 128) / 32). */
static void dq_q2_k(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 84, dst += 256) {
    const uint8_t *scales = src, *qs = src + 16;
    float d = scale_at(src + 80), dmin = scale_at(src + 82);
    for (int j = 0; j < 2; j++) {
      for (int s = 0; s < 4; s++) {
        for (int h = 0; h < 2; h++) {
          int g = j * 8 + s * 2 + h;
          float dl = d * (float)(scales[g] & 15);
          float ml = dmin * (float)(scales[g] >> 4);
          const uint8_t *q = qs + j * 32 + h * 16;
          float *y = dst + g * 16;
          for (int l = 0; l < 16; l++) {
            y[l] = sub_after(dl * (float)((q[l] >> (2 * s)) & 3), ml);
          }
        }
      }
    }
  }
}

/* Q3_K: 32 bytes of high bits (value p: byte p % 32, bit p / 32; a clear bit subtracts 4), 64
 * bytes of low 2 bits (as Q2_K), 12 bytes of 6-bit scales (low nibbles in bytes 0-7, high pairs
 * in 8-11), d. */
static void dq_q3_k(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 110, dst += 256) {
    const uint8_t *hmask = src, *qs = src + 32, *sc = src + 96;
    float d = scale_at(src + 108);
    for (int j = 0; j < 2; j++) {
      for (int s = 0; s < 4; s++) {
        for (int h = 0; h < 2; h++) {
          int g = j * 8 + s * 2 + h;
          int lo = (sc[g % 8] >> (4 * (g / 8))) & 15;
          int hi = (sc[8 + g % 4] >> (2 * (g / 4))) & 3;
          float dl = d * (float)((lo | (hi << 4)) - 32);
          const uint8_t *q = qs + j * 32 + h * 16, *m = hmask + h * 16;
          int bit = j * 4 + s;
          float *y = dst + g * 16;
          for (int l = 0; l < 16; l++) {
            int v = ((q[l] >> (2 * s)) & 3) - ((((m[l] >> bit) & 1) ^ 1) << 2);
            y[l] = dl * (float)v;
          }
        }
      }
    }
  }
}

/* The 6-bit scales and minimums of Q4_K and Q5_K: 8 of each in 12 bytes. */
static void k_scale_min(const uint8_t *s, int k, int *sc, int *mn) {
  if (k < 4) {
    *sc = s[k] & 63;
    *mn = s[k + 4] & 63;
  } else {
    *sc = (s[k + 4] & 15) | ((s[k - 4] >> 2) & 0x30);
    *mn = (s[k + 4] >> 4) | ((s[k] >> 2) & 0x30);
  }
}

/* Q4_K: d, dmin, 12 scale bytes, 128 bytes of nibbles: sub-block k (32 values) takes byte
 * (k / 2) * 32 + i, low nibble for even k, high for odd. */
static void dq_q4_k(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 144, dst += 256) {
    float d = scale_at(src), dmin = scale_at(src + 2);
    const uint8_t *qs = src + 16;
    for (int k = 0; k < 8; k++) {
      int sc, mn;
      k_scale_min(src + 4, k, &sc, &mn);
      float dk = d * (float)sc, mk = dmin * (float)mn;
      for (int i = 0; i < 32; i++) {
        int q = (qs[(k / 2) * 32 + i] >> (4 * (k % 2))) & 15;
        dst[k * 32 + i] = sub_after(dk * (float)q, mk);
      }
    }
  }
}

/* Q5_K: Q4_K's layout with 32 bytes of fifth bits before the nibbles (sub-block k: bit k). */
static void dq_q5_k(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 176, dst += 256) {
    float d = scale_at(src), dmin = scale_at(src + 2);
    const uint8_t *qh = src + 16, *qs = src + 48;
    for (int k = 0; k < 8; k++) {
      int sc, mn;
      k_scale_min(src + 4, k, &sc, &mn);
      float dk = d * (float)sc, mk = dmin * (float)mn;
      for (int i = 0; i < 32; i++) {
        int q = ((qs[(k / 2) * 32 + i] >> (4 * (k % 2))) & 15) | (((qh[i] >> k) & 1) << 4);
        dst[k * 32 + i] = sub_after(dk * (float)q, mk);
      }
    }
  }
}

/* Q6_K: 128 bytes of low nibbles, 64 of high pairs, 16 int8 scales, d. */
static void dq_q6_k(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 210, dst += 256) {
    const uint8_t *ql = src, *qh = src + 128, *sc = src + 192;
    float d = scale_at(src + 208);
    for (int j = 0; j < 2; j++) {
      for (int c = 0; c < 8; c++) {
        /* 16 values at r = 16c of this half: nibble r / 64 of ql, pair r / 32 of qh */
        int r = 16 * c, g = j * 8 + c;
        float dg = d * (float)(int8_t)sc[g];
        const uint8_t *l4 = ql + j * 64 + r % 64, *h2 = qh + j * 32 + r % 32;
        int ls = 4 * (r / 64), hs = 2 * (r / 32);
        float *y = dst + j * 128 + r;
        for (int l = 0; l < 16; l++) {
          int v = (((l4[l] >> ls) & 15) | (((h2[l] >> hs) & 3) << 4)) - 32;
          y[l] = dg * (float)v;
        }
      }
    }
  }
}

/* TQ1_0: five base-3 digits per byte, read by multiplying the byte by 3^n (mod 256) and taking
 * the top of (byte * 3); 48 bytes for 240 values, 4 bytes for 16, then d. */
static void dq_tq1_0(const uint8_t *src, int64_t n, float *dst) {
  static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
  for (int64_t b = 0; b < n; b++, src += 54, dst += 256) {
    float d = scale_at(src + 52);
    /* 160 values from bytes 0-31, 80 from 32-47, 16 from 48-51 */
    static const int starts[3] = {0, 32, 48}, widths[3] = {32, 16, 4}, digits[3] = {5, 5, 4};
    float *y = dst;
    for (int part = 0; part < 3; part++) {
      const uint8_t *q = src + starts[part];
      for (int k = 0; k < digits[part]; k++) {
        for (int l = 0; l < widths[part]; l++) {
          uint8_t v = (uint8_t)(q[l] * pow3[k]);
          *y++ = d * (float)(((v * 3) >> 8) - 1);
        }
      }
    }
  }
}

/* TQ2_0: 2-bit values laid out as Q2_K's, minus 1, then d. */
static void dq_tq2_0(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 66, dst += 256) {
    float d = scale_at(src + 64);
    for (int j = 0; j < 2; j++) {
      for (int s = 0; s < 4; s++) {
        const uint8_t *q = src + j * 32;
        float *y = dst + j * 128 + s * 32;
        for (int l = 0; l < 32; l++) {
          y[l] = d * (float)(((q[l] >> (2 * s)) & 3) - 1);
        }
      }
    }
  }
}

static const int8_t iq4nl_values[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                        1,    13,   25,  38,  53,  69,  89,  113};

static void dq_iq4_nl(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 18, dst += 32) {
    float d = scale_at(src);
    for (int j = 0; j < 16; j++) {
      dst[j] = d * (float)iq4nl_values[src[2 + j] & 15];
      dst[j + 16] = d * (float)iq4nl_values[src[2 + j] >> 4];
    }
  }
}

/* IQ4_XS: d, 16 bits of scale high pairs, 4 bytes of scale low nibbles, 128 bytes of IQ4_NL
 * indices, 16 bytes per sub-block of 32. */
static void dq_iq4_xs(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 136, dst += 256) {
    float d = scale_at(src);
    unsigned sh = cleave_le16(src + 2);
    const uint8_t *sl = src + 4, *qs = src + 8;
    for (int k = 0; k < 8; k++) {
      int lo = (sl[k / 2] >> (4 * (k % 2))) & 15;
      int hi = (int)((sh >> (2 * k)) & 3u);
      float dl = d * (float)((lo | (hi << 4)) - 32);
      for (int j = 0; j < 16; j++) {
        dst[k * 32 + j] = dl * (float)iq4nl_values[qs[k * 16 + j] & 15];
        dst[k * 32 + j + 16] = dl * (float)iq4nl_values[qs[k * 16 + j] >> 4];
      }
    }
  }
}

/* e2m1 values doubled, the MX formats' elements (the scales below are halved to match). */
static const int8_t e2m1_doubled[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/* MXFP4: an e8m0 exponent (halved: 2^(e - 128)), then 16 bytes of e2m1 pairs. */
static void dq_mxfp4(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 17, dst += 32) {
    uint32_t e = src[0];
    float d = cleave_bits_float(e < 2 ? 0x00200000u << e : (e - 1) << 23);
    for (int j = 0; j < 16; j++) {
      dst[j] = d * (float)e2m1_doubled[src[1 + j] & 15];
      dst[j + 16] = d * (float)e2m1_doubled[src[1 + j] >> 4];
    }
  }
}

/* NVFP4: 4 scales, then 4 groups of 8 bytes, each 16 values (low nibbles first). */
static void dq_nvfp4(const uint8_t *src, int64_t n, float *dst) {
  for (int64_t b = 0; b < n; b++, src += 36, dst += 64) {
    for (int g = 0; g < 4; g++) {
      float d = cleave_ue4m3_half(src[g]);
      const uint8_t *qs = src + 4 + g * 8;
      for (int j = 0; j < 8; j++) {
        dst[g * 16 + j] = d * (float)e2m1_doubled[qs[j] & 15];
        dst[g * 16 + j + 8] = d * (float)e2m1_doubled[qs[j] >> 4];
      }
    }
  }
}

static const ggml_type_info *type_info(cleave_ggml_type type) {
  static const ggml_type_info table[GGML_TYPE_LIMIT] = {
      [CLEAVE_GGML_F32] = {"F32", 1, 4, dq_f32},
      [CLEAVE_GGML_F16] = {"F16", 1, 2, dq_f16},
      [CLEAVE_GGML_Q4_0] = {"Q4_0", 32, 18, dq_q4_0},
      [CLEAVE_GGML_Q4_1] = {"Q4_1", 32, 20, dq_q4_1},
      [CLEAVE_GGML_Q5_0] = {"Q5_0", 32, 22, dq_q5_0},
      [CLEAVE_GGML_Q5_1] = {"Q5_1", 32, 24, dq_q5_1},
      [CLEAVE_GGML_Q8_0] = {"Q8_0", 32, 34, dq_q8_0},
      [CLEAVE_GGML_Q8_1] = {"Q8_1", 32, 40, NULL},
      [CLEAVE_GGML_Q2_K] = {"Q2_K", 256, 84, dq_q2_k},
      [CLEAVE_GGML_Q3_K] = {"Q3_K", 256, 110, dq_q3_k},
      [CLEAVE_GGML_Q4_K] = {"Q4_K", 256, 144, dq_q4_k},
      [CLEAVE_GGML_Q5_K] = {"Q5_K", 256, 176, dq_q5_k},
      [CLEAVE_GGML_Q6_K] = {"Q6_K", 256, 210, dq_q6_k},
      [CLEAVE_GGML_Q8_K] = {"Q8_K", 256, 292, NULL},
      [CLEAVE_GGML_IQ2_XXS] = {"IQ2_XXS", 256, 66, NULL},
      [CLEAVE_GGML_IQ2_XS] = {"IQ2_XS", 256, 74, NULL},
      [CLEAVE_GGML_IQ3_XXS] = {"IQ3_XXS", 256, 98, NULL},
      [CLEAVE_GGML_IQ1_S] = {"IQ1_S", 256, 50, NULL},
      [CLEAVE_GGML_IQ4_NL] = {"IQ4_NL", 32, 18, dq_iq4_nl},
      [CLEAVE_GGML_IQ3_S] = {"IQ3_S", 256, 110, NULL},
      [CLEAVE_GGML_IQ2_S] = {"IQ2_S", 256, 82, NULL},
      [CLEAVE_GGML_IQ4_XS] = {"IQ4_XS", 256, 136, dq_iq4_xs},
      [CLEAVE_GGML_I8] = {"I8", 1, 1, NULL},
      [CLEAVE_GGML_I16] = {"I16", 1, 2, NULL},
      [CLEAVE_GGML_I32] = {"I32", 1, 4, NULL},
      [CLEAVE_GGML_I64] = {"I64", 1, 8, NULL},
      [CLEAVE_GGML_F64] = {"F64", 1, 8, NULL},
      [CLEAVE_GGML_IQ1_M] = {"IQ1_M", 256, 56, NULL},
      [CLEAVE_GGML_BF16] = {"BF16", 1, 2, dq_bf16},
      [CLEAVE_GGML_TQ1_0] = {"TQ1_0", 256, 54, dq_tq1_0},
      [CLEAVE_GGML_TQ2_0] = {"TQ2_0", 256, 66, dq_tq2_0},
      [CLEAVE_GGML_MXFP4] = {"MXFP4", 32, 17, dq_mxfp4},
      [CLEAVE_GGML_NVFP4] = {"NVFP4", 64, 36, dq_nvfp4},
      [CLEAVE_GGML_Q1_0] = {"Q1_0", 128, 18, NULL},
      [CLEAVE_GGML_Q2_0] = {"Q2_0", 64, 18, NULL},
  };
  unsigned t = (unsigned)type;
  if (t >= GGML_TYPE_LIMIT || table[t].name == NULL) {
    return NULL;
  }
  return &table[t];
}

/* ---- quantizing -------------------------------------------------------------------------- */

/* float32 to bfloat16 as gguf-py's BF16 quantizer: a NaN quieted (keeping its top bits), the
 * rest rounded to nearest even (overflow gives an infinity). */
static uint16_t float_to_bf16(float f) {
  uint32_t u = cleave_float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    u = (u & 0xffff0000u) | 0x00400000u;
  }
  uint64_t r = ((uint64_t)u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return (uint16_t)r;
}

void cleave_ggml_quantize_q8_0_portable(const float *src, int64_t n_blocks, uint8_t *dst) {
  for (int64_t b = 0; b < n_blocks; b++, src += 32, dst += 34) {
    cleave_q8_0_block(src, cleave_q8_0_amax(src), dst);
  }
}

/* ---- the public entry points ------------------------------------------------------------- */

const char *cleave_ggml_type_name(cleave_ggml_type type) {
  const ggml_type_info *info = type_info(type);
  return info != NULL ? info->name : NULL;
}

cleave_status cleave_ggml_type_from_name(const char *name, cleave_ggml_type *type,
                                         cleave_error *err) {
  if (name == NULL || type == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_ggml_type_from_name needs a name and a result pointer");
  }
  for (int t = 0; t < GGML_TYPE_LIMIT; t++) {
    const ggml_type_info *info = type_info((cleave_ggml_type)t);
    if (info == NULL) {
      continue;
    }
    size_t i = 0;
    while (info->name[i] != '\0' && name[i] != '\0' &&
           toupper((unsigned char)name[i]) == info->name[i]) {
      i++;
    }
    if (info->name[i] == '\0' && name[i] == '\0') {
      *type = (cleave_ggml_type)t;
      return cleave_succeed(err);
    }
  }
  return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "no ggml type is named '%.64s'", name);
}

cleave_status cleave_ggml_type_size(cleave_ggml_type type, int64_t *block_elements,
                                    int64_t *block_bytes, cleave_error *err) {
  const ggml_type_info *info = type_info(type);
  if (info == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "%d is no ggml type", (int)type);
  }
  if (block_elements != NULL) {
    *block_elements = info->block_elements;
  }
  if (block_bytes != NULL) {
    *block_bytes = info->block_bytes;
  }
  return cleave_succeed(err);
}

int cleave_ggml_can_dequantize(cleave_ggml_type type) {
  const ggml_type_info *info = type_info(type);
  return info != NULL && info->dequant != NULL;
}

static bool quantizes(cleave_ggml_type type) {
  return type == CLEAVE_GGML_F32 || type == CLEAVE_GGML_F16 || type == CLEAVE_GGML_BF16 ||
         type == CLEAVE_GGML_Q8_0;
}

int cleave_ggml_can_quantize(cleave_ggml_type type, int64_t row_length) {
  if (!quantizes(type) || row_length < 0) {
    return 0;
  }
  return row_length % type_info(type)->block_elements == 0;
}

/* The name of a type for messages, also for values that are no type. */
static const char *type_text(cleave_ggml_type type, char *buf, size_t size) {
  const char *name = cleave_ggml_type_name(type);
  if (name != NULL) {
    return name;
  }
  snprintf(buf, size, "ggml type %d", (int)type);
  return buf;
}

cleave_status cleave_ggml_dequantize(cleave_ggml_type type, const void *src, int64_t src_bytes,
                                     float *dst, int64_t dst_bytes, cleave_error *err) {
  char tbuf[32];
  const ggml_type_info *info = type_info(type);
  if (info == NULL || info->dequant == NULL) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "%s cannot be dequantized",
                       type_text(type, tbuf, sizeof tbuf));
  }
  if (src_bytes < 0 || dst_bytes < 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "negative size: src_bytes %lld, dst_bytes %lld", (long long)src_bytes,
                       (long long)dst_bytes);
  }
  if ((src == NULL && src_bytes > 0) || (dst == NULL && dst_bytes > 0)) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "NULL %s with a non-zero size",
                       src == NULL ? "src" : "dst");
  }
  if (src_bytes % info->block_bytes != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                       "%lld bytes are not a whole number of %s blocks of %lld bytes",
                       (long long)src_bytes, info->name, (long long)info->block_bytes);
  }
  int64_t blocks = src_bytes / info->block_bytes, elements, need;
  if (cleave_mul_overflows(blocks, info->block_elements, &elements) ||
      cleave_mul_overflows(elements, 4, &need)) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                       "%lld %s blocks dequantize to more float32 bytes than int64 holds",
                       (long long)blocks, info->name);
  }
  if (dst_bytes < need) {
    return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                       "%lld bytes of %s dequantize to %lld bytes but dst has room for %lld",
                       (long long)src_bytes, info->name, (long long)need, (long long)dst_bytes);
  }
  if (blocks > 0) {
    cleave_ggml_dequant_fn fn = info->dequant;
    if (cleave_cpu_has_avx2()) {
      cleave_ggml_dequant_fn fast = cleave_ggml_dequant_avx2(type);
      if (fast != NULL) {
        fn = fast;
      }
    }
    fn((const uint8_t *)src, blocks, dst);
  }
  return cleave_succeed(err);
}

cleave_ggml_dequant_fn cleave_ggml_dequant_portable(cleave_ggml_type type) {
  const ggml_type_info *info = type_info(type);
  return info != NULL ? info->dequant : NULL;
}

cleave_status cleave_ggml_quantize(cleave_ggml_type type, const float *src, int64_t src_bytes,
                                   int64_t row_length, void *dst, int64_t dst_bytes,
                                   cleave_error *err) {
  char tbuf[32];
  if (!quantizes(type)) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE, "quantizing to %s is not supported",
                       type_text(type, tbuf, sizeof tbuf));
  }
  const ggml_type_info *info = type_info(type);
  if (src_bytes < 0 || dst_bytes < 0 || row_length < 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "negative size: src_bytes %lld, row_length %lld, dst_bytes %lld",
                       (long long)src_bytes, (long long)row_length, (long long)dst_bytes);
  }
  if ((src == NULL && src_bytes > 0) || (dst == NULL && dst_bytes > 0)) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT, "NULL %s with a non-zero size",
                       src == NULL ? "src" : "dst");
  }
  if (src_bytes % 4 != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE, "%lld bytes are not whole float32 values",
                       (long long)src_bytes);
  }
  int64_t elements = src_bytes / 4;
  if (row_length % info->block_elements != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                       "a row of %lld elements is not a whole number of %s blocks of %lld",
                       (long long)row_length, info->name, (long long)info->block_elements);
  }
  if (row_length == 0 ? elements != 0 : elements % row_length != 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_SHAPE,
                       "%lld elements are not a whole number of rows of %lld", (long long)elements,
                       (long long)row_length);
  }
  int64_t blocks = elements / info->block_elements;
  int64_t need = blocks * info->block_bytes; /* at most 34/128 of src_bytes: no overflow */
  if (dst_bytes < need) {
    return cleave_fail(err, CLEAVE_ERROR_CAPACITY,
                       "%lld float32 values quantize to %lld bytes of %s but dst has room for %lld",
                       (long long)elements, (long long)need, info->name, (long long)dst_bytes);
  }
  uint8_t *out = dst;
  switch (type) {
  case CLEAVE_GGML_Q8_0:
    if (cleave_cpu_has_avx2()) {
      cleave_ggml_quantize_q8_0_avx2(src, blocks, out);
    } else {
      cleave_ggml_quantize_q8_0_portable(src, blocks, out);
    }
    break;
  case CLEAVE_GGML_F16:
    for (int64_t i = 0; i < elements; i++) {
      uint16_t h = cleave_float_to_half(src[i]);
      out[2 * i] = (uint8_t)(h & 0xff);
      out[2 * i + 1] = (uint8_t)(h >> 8);
    }
    break;
  case CLEAVE_GGML_BF16:
    for (int64_t i = 0; i < elements; i++) {
      uint16_t h = float_to_bf16(src[i]);
      out[2 * i] = (uint8_t)(h & 0xff);
      out[2 * i + 1] = (uint8_t)(h >> 8);
    }
    break;
  default: /* F32 */
    if (elements > 0) {
      memcpy(out, src, (size_t)src_bytes);
    }
    break;
  }
  return cleave_succeed(err);
}

#ifndef CLEAVE_HAVE_AVX2_KERNELS
cleave_ggml_dequant_fn cleave_ggml_dequant_avx2(cleave_ggml_type type) {
  (void)type;
  return NULL;
}
void cleave_ggml_quantize_q8_0_avx2(const float *src, int64_t n_blocks, uint8_t *dst) {
  cleave_ggml_quantize_q8_0_portable(src, n_blocks, dst);
}
#endif
