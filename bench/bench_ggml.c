/*
 * ggml's block kernels (cleave_ggml_dequantize, cleave_ggml_quantize) against plain copies.
 *
 *   bench_ggml [--mib N] [--reps R] [--runs K]
 *
 * For each type it dequantizes: N MiB of blocks (random bytes with every f16 scale set to a
 * normal value in [2^-10, 2^-6), the range of real models' scales) into float32, timed against
 * memcpy of the blocks' bytes and memcpy of the float32 output's bytes (the bytes the kernel must
 * write: 3.6 to 7.1 times the input), and against the portable kernel where an AVX2 one exists.
 * Then Q8_0 quantization of the float32 values against memcpy of them. Samples are interleaved
 * (copy, kernel, copy, ...), R per run; the figure is the median of the K runs' medians, on one
 * thread, with warm caches (the buffers exceed the last-level cache at the default 64 MiB).
 */
#include "bench_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*dequant_fn)(const uint8_t *src, int64_t n, float *dst);
dequant_fn cleave_ggml_dequant_avx2(cleave_ggml_type type);
dequant_fn cleave_ggml_dequant_portable(cleave_ggml_type type);
_Bool cleave_cpu_has_avx2(void);

/* Byte offsets of a block's f16 scales (as in tests/convert/test_ggml_blocks.py). */
static const struct {
  cleave_ggml_type type;
  int offsets[2];
} scales[] = {
    {CLEAVE_GGML_Q4_0, {0, -1}},   {CLEAVE_GGML_Q4_1, {0, 2}},    {CLEAVE_GGML_Q5_0, {0, -1}},
    {CLEAVE_GGML_Q5_1, {0, 2}},    {CLEAVE_GGML_Q8_0, {0, -1}},   {CLEAVE_GGML_Q2_K, {80, 82}},
    {CLEAVE_GGML_Q3_K, {108, -1}}, {CLEAVE_GGML_Q4_K, {0, 2}},    {CLEAVE_GGML_Q5_K, {0, 2}},
    {CLEAVE_GGML_Q6_K, {208, -1}}, {CLEAVE_GGML_TQ1_0, {52, -1}}, {CLEAVE_GGML_TQ2_0, {64, -1}},
    {CLEAVE_GGML_IQ4_NL, {0, -1}}, {CLEAVE_GGML_IQ4_XS, {0, -1}}, {CLEAVE_GGML_MXFP4, {-1, -1}},
    {CLEAVE_GGML_NVFP4, {-1, -1}}, {CLEAVE_GGML_F16, {-1, -1}},   {CLEAVE_GGML_BF16, {-1, -1}},
};

static uint32_t rng = 2463534242u;
static uint32_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

static double ratio_median(double *v, int n) {
  return bench_median(v, n);
}

int main(int argc, char **argv) {
  int mib = 64, reps = 7, runs = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--mib") == 0) {
      mib = atoi(argv[i + 1]);
    } else if (strcmp(argv[i], "--reps") == 0) {
      reps = atoi(argv[i + 1]);
    } else if (strcmp(argv[i], "--runs") == 0) {
      runs = atoi(argv[i + 1]);
    } else {
      fprintf(stderr, "usage: bench_ggml [--mib N] [--reps R] [--runs K]\n");
      return 2;
    }
  }
  if (mib < 1 || reps < 1 || runs < 1 || reps > 101 || runs > 101) {
    fprintf(stderr, "bench_ggml: --mib, --reps and --runs must be positive (reps, runs <= 101)\n");
    return 2;
  }
  printf("| type | input MiB/s | kernel | memcpy in | memcpy out | out / in bytes | kernel / "
         "memcpy out | portable | AVX2 speed-up |\n|---|---|---|---|---|---|---|---|---|\n");
  for (size_t t = 0; t < sizeof scales / sizeof scales[0]; t++) {
    cleave_ggml_type type = scales[t].type;
    int64_t be, bb;
    cleave_error err;
    bench_check(cleave_ggml_type_size(type, &be, &bb, &err), &err, "type size");
    int64_t blocks = ((int64_t)mib << 20) / bb;
    size_t in_bytes = (size_t)(blocks * bb), out_bytes = (size_t)(blocks * be) * 4;
    uint8_t *src = bench_alloc_touched(in_bytes);
    for (size_t i = 0; i < in_bytes; i++) {
      src[i] = (uint8_t)(next() >> 24);
    }
    for (int64_t b = 0; b < blocks; b++) {
      for (int k = 0; k < 2; k++) {
        int off = scales[t].offsets[k];
        if (off >= 0) {
          /* exponent 5..8 (2^-10..2^-7), random mantissa */
          uint16_t h = (uint16_t)(((5u + next() % 4u) << 10) | (next() & 0x3ffu));
          src[b * bb + off] = (uint8_t)h;
          src[b * bb + off + 1] = (uint8_t)(h >> 8);
        }
      }
    }
    if (type == CLEAVE_GGML_F16 || type == CLEAVE_GGML_BF16) {
      for (size_t i = 1; i < in_bytes; i += 2) {
        src[i] = (uint8_t)(0x30 + (src[i] & 0x0f)); /* finite, normal */
      }
    }
    float *dst = bench_alloc_touched(out_bytes);
    uint8_t *copy = bench_alloc_touched(out_bytes);
    dequant_fn portable = cleave_ggml_dequant_portable(type);
    int has_fast = cleave_cpu_has_avx2() && cleave_ggml_dequant_avx2(type) != NULL;
    double k_med[101], in_med[101], out_med[101], p_med[101], ratio[101], speed[101];
    for (int r = 0; r < runs; r++) {
      double k[101], ci[101], co[101], p[101];
      for (int i = 0; i < reps; i++) {
        double t0 = bench_now();
        memcpy(copy, src, in_bytes);
        double t1 = bench_now();
        bench_check(
            cleave_ggml_dequantize(type, src, (int64_t)in_bytes, dst, (int64_t)out_bytes, &err),
            &err, "dequantize");
        double t2 = bench_now();
        memcpy(copy, dst, out_bytes);
        double t3 = bench_now();
        p[i] = 0;
        if (has_fast) {
          portable(src, blocks, dst);
          p[i] = bench_now() - t3;
        }
        ci[i] = t1 - t0;
        k[i] = t2 - t1;
        co[i] = t3 - t2;
      }
      k_med[r] = bench_median(k, reps);
      in_med[r] = bench_median(ci, reps);
      out_med[r] = bench_median(co, reps);
      p_med[r] = bench_median(p, reps);
      ratio[r] = k_med[r] / out_med[r];
      speed[r] = has_fast ? p_med[r] / k_med[r] : 1.0;
    }
    double kernel = bench_median(k_med, runs);
    char kb[32], ib[32], ob[32], pb[32] = "-";
    bench_fmt_time(kb, sizeof kb, kernel, 2);
    bench_fmt_time(ib, sizeof ib, bench_median(in_med, runs), 2);
    bench_fmt_time(ob, sizeof ob, bench_median(out_med, runs), 2);
    char sp[32] = "-";
    if (has_fast) {
      bench_fmt_time(pb, sizeof pb, bench_median(p_med, runs), 2);
      snprintf(sp, sizeof sp, "%.2fx", ratio_median(speed, runs));
    }
    printf("| %s | %.0f | %s | %s | %s | %.2f | %.2f | %s | %s |\n", cleave_ggml_type_name(type),
           (double)in_bytes / (1 << 20) / kernel, kb, ib, ob, (double)out_bytes / (double)in_bytes,
           ratio_median(ratio, runs), pb, sp);
    fflush(stdout);
    free(src);
    free(dst);
    free(copy);
  }
  /* Q8_0 quantization of float32 values against memcpy of them */
  size_t n = ((size_t)mib << 20) / 4 / 32 * 32;
  float *x = bench_alloc_touched(n * 4);
  for (size_t i = 0; i < n; i++) {
    x[i] = (float)((int32_t)next()) * 0x1p-31f;
  }
  uint8_t *q = bench_alloc_touched(n / 32 * 34);
  float *c = bench_alloc_touched(n * 4);
  double qm[101], cm[101], rq[101];
  for (int r = 0; r < runs; r++) {
    double a[101], b[101];
    for (int i = 0; i < reps; i++) {
      double t0 = bench_now();
      memcpy(c, x, n * 4);
      double t1 = bench_now();
      cleave_error err;
      bench_check(cleave_ggml_quantize(CLEAVE_GGML_Q8_0, x, (int64_t)n * 4, 4096, q,
                                       (int64_t)(n / 32 * 34), &err),
                  &err, "quantize");
      double t2 = bench_now();
      b[i] = t1 - t0;
      a[i] = t2 - t1;
    }
    qm[r] = bench_median(a, reps);
    cm[r] = bench_median(b, reps);
    rq[r] = qm[r] / cm[r];
  }
  char qb[32], cb[32];
  bench_fmt_time(qb, sizeof qb, bench_median(qm, runs), 2);
  bench_fmt_time(cb, sizeof cb, bench_median(cm, runs), 2);
  printf("\nQ8_0 quantize of %d MiB of float32: %s, memcpy of the input %s, ratio %.2f\n", mib, qb,
         cb, ratio_median(rq, runs));
  return 0;
}
