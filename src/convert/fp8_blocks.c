/* cleave_dequantize_fp8_blocks: block-FP8 weights times their per-block scales, as runs of one
 * row within one block of columns, each run one scale and one kernel call (convert.h). */
#include "convert/convert.h"

#include "core/core.h"

#include <string.h>

static size_t element_size(int index) {
  return index == 0 ? 4 : index == 3 ? 8 : 2;
}

cleave_status cleave_dequantize_fp8_blocks(const void *weight, int64_t rows, int64_t cols,
                                           const void *scale, cleave_dtype scale_type,
                                           int64_t block_rows, int64_t block_cols, int64_t first,
                                           size_t count, void *dst, cleave_dtype to,
                                           cleave_error *err) {
  int t = cleave_cast_index(to);
  if (t < 0) {
    const char *name = cleave_dtype_name(to);
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                       "cannot dequantize f8e4m3 blocks to %s: the destination must be f32, f16, "
                       "bf16 or f64",
                       name ? name : "an unknown type");
  }
  if (scale_type != CLEAVE_F32 && scale_type != CLEAVE_BF16) {
    const char *name = cleave_dtype_name(scale_type);
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                       "a block scale of %s is not supported: it must be f32 or bf16",
                       name ? name : "an unknown type");
  }
  if (rows < 1 || cols < 1 || block_rows < 1 || block_cols < 1 || first < 0) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_dequantize_fp8_blocks needs rows, cols and block sizes of at least "
                       "1 and a first element of at least 0 (got rows %lld, cols %lld, blocks "
                       "%lld x %lld, first %lld)",
                       (long long)rows, (long long)cols, (long long)block_rows,
                       (long long)block_cols, (long long)first);
  }
  if (count > 0 && (weight == NULL || scale == NULL || dst == NULL)) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_dequantize_fp8_blocks of %zu elements needs a weight, a scale and "
                       "a destination",
                       count);
  }
  int64_t matrix = 0;
  int64_t scale_rows = cleave_ceil_div(rows, block_rows);
  int64_t scale_cols = cleave_ceil_div(cols, block_cols);
  int64_t scale_matrix = 0;
  int64_t last = 0;
  if (cleave_mul_overflows(rows, cols, &matrix) ||
      cleave_mul_overflows(scale_rows, scale_cols, &scale_matrix) || count > (uint64_t)INT64_MAX ||
      cleave_add_overflows(first, (int64_t)count, &last) ||
      cleave_mul_overflows(last / matrix + 1, scale_matrix, &last)) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                       "dequantizing %zu elements from element %lld of a [%lld, %lld] weight "
                       "overflows int64",
                       count, (long long)first, (long long)rows, (long long)cols);
  }
  const cleave_cast_kernels *family = cleave_cast_family();
  cleave_fp8_kernel kernel = family->fp8[t] ? family->fp8[t] : cleave_cast_portable.fp8[t];
  const uint8_t *w = weight;
  unsigned char *out = dst;
  const unsigned char *s = scale;
  size_t size = element_size(t);
  size_t done = 0;
  while (done < count) {
    int64_t e = first + (int64_t)done;
    int64_t k = e / matrix;
    int64_t i = e % matrix / cols;
    int64_t j = e % matrix % cols;
    int64_t run = cleave_min64(cols - j, block_cols - j % block_cols);
    if ((uint64_t)run > count - done) {
      run = (int64_t)(count - done);
    }
    int64_t at = k * scale_matrix + i / block_rows * scale_cols + j / block_cols;
    uint32_t bits;
    if (scale_type == CLEAVE_F32) {
      memcpy(&bits, s + 4 * at, 4);
    } else {
      uint16_t half;
      memcpy(&half, s + 2 * at, 2);
      bits = cleave_bf16_to_f32_bits(half);
    }
    float factor;
    memcpy(&factor, &bits, 4);
    kernel(w + done, factor, out + done * size, (size_t)run);
    done += (size_t)run;
  }
  return cleave_succeed(err);
}
