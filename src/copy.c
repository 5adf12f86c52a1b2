/* The copy kernel: moves the bytes of one output out of the input viewed as
 * [outer, axis_dim, inner]. Dtype-agnostic: only byte counts matter. */
#include "internal.h"

#include <string.h>

void cleave_copy_one(const void *input, void *output, int64_t outer, int64_t axis_dim,
                     int64_t inner_bytes, int64_t offset, int64_t length) {
  size_t row = (size_t)length * (size_t)inner_bytes;
  if (row == 0 || outer == 0) {
    return;
  }
  const unsigned char *src = (const unsigned char *)input + (size_t)offset * (size_t)inner_bytes;
  unsigned char *dst = output;
  size_t stride = (size_t)axis_dim * (size_t)inner_bytes;
  for (int64_t o = 0; o < outer; o++) {
    memcpy(dst, src, row);
    dst += row;
    src += stride;
  }
}
