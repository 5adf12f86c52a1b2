/* Byte order: units of a buffer reversed in place. */
#include "byte_swap.h"

#include <stdint.h>
#include <string.h>

void byte_swap_units(unsigned char *buf, size_t size, size_t unit) {
  if (unit <= 1) {
    return;
  }
  size_t at = 0;
  /* The common units through the compiler's byte swaps; any other unit byte by byte. */
  if (unit == 2 || unit == 4 || unit == 8) {
    for (; at + unit <= size; at += unit) {
      if (unit == 2) {
        uint16_t v;
        memcpy(&v, buf + at, 2);
        v = __builtin_bswap16(v);
        memcpy(buf + at, &v, 2);
      } else if (unit == 4) {
        uint32_t v;
        memcpy(&v, buf + at, 4);
        v = __builtin_bswap32(v);
        memcpy(buf + at, &v, 4);
      } else {
        uint64_t v;
        memcpy(&v, buf + at, 8);
        v = __builtin_bswap64(v);
        memcpy(buf + at, &v, 8);
      }
    }
    return;
  }
  for (; at + unit <= size; at += unit) {
    unsigned char *u = buf + at;
    for (size_t a = 0, b = unit - 1; a < b; a++, b--) {
      unsigned char t = u[a];
      u[a] = u[b];
      u[b] = t;
    }
  }
}
