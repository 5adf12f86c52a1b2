/* Writing .npy headers. */
#include "npy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* NumPy aligns the data to this many bytes (numpy.lib.format.ARRAY_ALIGN). */
#define NPY_ALIGN 64

int npy_build_header(const char *descr, int fortran_order, const int64_t *shape, size_t rank,
                     unsigned char **bytes, size_t *size, tool_error *err) {
  /* 24 bytes per dimension hold ", " and any int64; the fixed text is under 80 bytes. */
  size_t dict_cap = 96 + strlen(descr) + rank * 24;
  char *dict = malloc(dict_cap);
  if (dict == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory building a .npy header");
  }
  int n = snprintf(dict, dict_cap, "{'descr': '%s', 'fortran_order': %s, 'shape': (", descr,
                   fortran_order ? "True" : "False");
  size_t len = (size_t)n;
  for (size_t i = 0; i < rank; i++) {
    n = snprintf(dict + len, dict_cap - len, i == 0 ? "%" PRId64 : ", %" PRId64, shape[i]);
    len += (size_t)n;
  }
  /* Python spells a 1-tuple "(3,)". */
  n = snprintf(dict + len, dict_cap - len, "%s), }", rank == 1 ? "," : "");
  len += (size_t)n;

  size_t preamble = 10;
  size_t total = (preamble + len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
  if (total - preamble > 0xffff) {
    preamble = 12;
    total = (preamble + len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
  }
  unsigned char *out = malloc(total);
  if (out == NULL) {
    free(dict);
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory building a .npy header");
  }
  size_t header_len = total - preamble;
  memcpy(out, "\x93NUMPY", 6);
  out[6] = preamble == 10 ? 1 : 2;
  out[7] = 0;
  for (size_t i = 0; i < preamble - 8; i++) {
    out[8 + i] = (unsigned char)(header_len >> (8 * i));
  }
  memcpy(out + preamble, dict, len);
  memset(out + preamble + len, ' ', total - preamble - len - 1);
  out[total - 1] = '\n';
  free(dict);
  *bytes = out;
  *size = total;
  return 0;
}
