/* Sizes of tensors of plain, sub-byte and block types. */
#include "ckpt_dtype.h"

int ckpt_dtype_bits(const ckpt_dtype *d, uint64_t elements, uint64_t *bits) {
  if (elements % d->block_elems != 0) {
    return -1;
  }
  return __builtin_mul_overflow(elements / d->block_elems, (uint64_t)d->block_bits, bits) ? -1 : 0;
}

ckpt_size_status ckpt_dtype_size(const ckpt_dtype *d, const int64_t *dims, int ndim,
                                 uint64_t *elements, uint64_t *bytes) {
  uint64_t n = 1, bits = 0;
  int overflow = 0;
  for (int i = 0; i < ndim; i++) {
    overflow |= __builtin_mul_overflow(n, (uint64_t)dims[i], &n);
  }
  *elements = overflow ? 0 : n;
  *bytes = 0;
  if (overflow) {
    return CKPT_SIZE_OVERFLOW;
  }
  if (d->block_elems > 1 && (ndim == 0 || (uint64_t)dims[ndim - 1] % d->block_elems != 0)) {
    return CKPT_SIZE_PARTIAL_BLOCK;
  }
  if (ckpt_dtype_bits(d, n, &bits) != 0 || bits / 8 > INT64_MAX) {
    return d->block_elems > 1 && n % d->block_elems != 0 ? CKPT_SIZE_PARTIAL_BLOCK
                                                         : CKPT_SIZE_OVERFLOW;
  }
  if (bits % 8 != 0) {
    return CKPT_SIZE_PARTIAL_BYTE;
  }
  *bytes = bits / 8;
  return CKPT_SIZE_OK;
}
