/* Fuzz target: ggml block kernels on arbitrary bytes. The first byte picks the ggml type, the
 * second how much room dst has (short, exact or more); the rest are the blocks, in a buffer of
 * exactly their size so that a read past them is caught. Every call must either succeed, writing
 * only inside dst, or fail with a status and a message; where the CPU has AVX2 the AVX2 kernel
 * must give the portable kernel's bits; and the bytes read as float32 must quantize to Q8_0 and
 * back. */
#include "cleave.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef void (*dequant_fn)(const uint8_t *src, int64_t n, float *dst);
dequant_fn cleave_ggml_dequant_avx2(cleave_ggml_type type);
dequant_fn cleave_ggml_dequant_portable(cleave_ggml_type type);
_Bool cleave_cpu_has_avx2(void);

static void dequantize(cleave_ggml_type type, const uint8_t *src, int64_t n, int room) {
  int64_t elements = 0, bytes = 0;
  if (cleave_ggml_type_size(type, &elements, &bytes, NULL) != CLEAVE_OK) {
    if (cleave_ggml_can_dequantize(type)) {
      abort();
    }
    return;
  }
  int64_t want = n / bytes * elements * 4;
  int64_t dst_bytes = room == 0 ? want - 1 : room == 1 ? want : want + 64;
  if (dst_bytes < 0) {
    dst_bytes = 0;
  }
  float *dst = malloc((size_t)dst_bytes + 1);
  if (dst == NULL) {
    return;
  }
  cleave_error err;
  cleave_status st = cleave_ggml_dequantize(type, src, n, dst, dst_bytes, &err);
  if (st != CLEAVE_OK) {
    if (err.status != st || err.message[0] == '\0') {
      abort();
    }
  } else {
    if (!cleave_ggml_can_dequantize(type) || n % bytes != 0 || dst_bytes < want) {
      abort();
    }
    dequant_fn fast = cleave_ggml_dequant_avx2(type);
    if (fast != NULL && cleave_cpu_has_avx2() && want > 0) {
      float *other = malloc((size_t)want);
      if (other != NULL) {
        cleave_ggml_dequant_portable(type)(src, n / bytes, other);
        if (memcmp(other, dst, (size_t)want) != 0) {
          abort();
        }
        free(other);
      }
    }
  }
  free(dst);
}

static void quantize(const uint8_t *src, size_t n) {
  size_t floats = n / 4 / 32 * 32;
  if (floats == 0) {
    return;
  }
  float *x = malloc(floats * 4);
  uint8_t *q = malloc(floats / 32 * 34);
  float *y = malloc(floats * 4);
  if (x != NULL && q != NULL && y != NULL) {
    memcpy(x, src, floats * 4);
    cleave_error err;
    if (cleave_ggml_quantize(CLEAVE_GGML_Q8_0, x, (int64_t)floats * 4, 32, q,
                             (int64_t)floats / 32 * 34, &err) != CLEAVE_OK ||
        cleave_ggml_dequantize(CLEAVE_GGML_Q8_0, q, (int64_t)floats / 32 * 34, y,
                               (int64_t)floats * 4, &err) != CLEAVE_OK) {
      abort();
    }
  }
  free(x);
  free(q);
  free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) {
    return 0;
  }
  cleave_ggml_type type = (cleave_ggml_type)(data[0] % 44);
  int room = data[1] % 3;
  size_t n = size - 2;
  uint8_t *src = malloc(n + 1);
  if (src == NULL) {
    return 0;
  }
  memcpy(src, data + 2, n);
  dequantize(type, src, (int64_t)n, room);
  quantize(src, n);
  free(src);
  return 0;
}
