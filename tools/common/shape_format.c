/* The one formatter of static shapes. */
#include "shape_format.h"

#include <inttypes.h>

const char *shape_format(const int64_t *dims, size_t rank, char *buf, size_t size) {
  if (size == 0) {
    return buf;
  }
  size_t pos = 0;
  int n = snprintf(buf, size, "[");
  pos = n > 0 ? (size_t)n : 0;
  for (size_t i = 0; i < rank && pos < size; i++) {
    n = snprintf(buf + pos, size - pos, "%s%" PRId64, i > 0 ? "," : "", dims[i]);
    pos += n > 0 ? (size_t)n : 0;
  }
  if (pos < size) {
    snprintf(buf + pos, size - pos, "]");
  }
  return buf;
}

void shape_print(FILE *out, const int64_t *dims, size_t rank) {
  fputc('[', out);
  for (size_t i = 0; i < rank; i++) {
    fprintf(out, "%s%" PRId64, i > 0 ? "," : "", dims[i]);
  }
  fputc(']', out);
}
