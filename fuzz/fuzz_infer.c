/* Fuzz target: shape inference of every operator on arbitrary shapes, axes, lengths, versions.
 * Checks the invariants every successful inference must satisfy. */
#include "fuzz_input.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_reader r = {data, size, 0};
  fuzz_case c;
  fuzz_read_case(&r, &c, false);
  cleave_split_info info;
  cleave_error err;
  cleave_status st = cleave_infer(&c.op, c.type, c.shape, c.rank, &info, NULL, 0, &err);
  if (st != CLEAVE_OK) {
    /* A failure always carries a message. */
    if (err.status != st || err.message[0] == '\0') {
      abort();
    }
    return 0;
  }
  if (info.axis >= c.rank || info.axis_dim != c.shape[info.axis]) {
    abort();
  }
  /* Check the lengths when there are few enough to hold. */
  enum { CAP = 64 };
  int64_t lengths[CAP];
  if (info.num_outputs <= CAP) {
    st = cleave_infer(&c.op, c.type, c.shape, c.rank, &info, lengths, CAP, &err);
    if (st != CLEAVE_OK) {
      abort();
    }
    int64_t sum = 0;
    for (size_t i = 0; i < info.num_outputs; i++) {
      if (lengths[i] < 0 || __builtin_add_overflow(sum, lengths[i], &sum)) {
        abort();
      }
    }
    if (sum != info.axis_dim) {
      abort();
    }
  } else if (cleave_infer(&c.op, c.type, c.shape, c.rank, &info, lengths, CAP, &err) !=
             CLEAVE_ERROR_CAPACITY) {
    abort();
  }
  return 0;
}
