/* Fuzz target: shape inference of every operator on arbitrary shapes, axes, lengths, versions.
 * Checks the invariants every successful inference must satisfy. The same bytes also describe a
 * concat (fuzz_concat.h), whose static and partial inference are checked against each other. */
#include "fuzz_concat.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether dim d lies in the interval. */
static bool holds(cleave_dim interval, int64_t d) {
  return interval.lo <= d && (interval.hi == CLEAVE_DIM_UNBOUNDED || d <= interval.hi);
}

/* Concat inference: a success has the output the rules say (the sum or count on the axis, the
 * inputs' dims elsewhere); partial inference on the same shapes as points, on wider intervals and
 * with the axis unknown never fails where static inference succeeds, and its hull holds the
 * static shape. */
static void check_concat(const uint8_t *data, size_t size) {
  fuzz_reader r = {data, size, 0};
  fuzz_concat c;
  fuzz_read_concat(&r, &c, false);
  cleave_concat_info info;
  int64_t shape[FUZZ_MAX_RANK + 1];
  cleave_error err;
  cleave_status st =
      cleave_concat_infer(&c.op, c.inputs, c.n, &info, shape, FUZZ_MAX_RANK + 1, &err);
  if (st != CLEAVE_OK) {
    if (err.status != st || err.message[0] == '\0') {
      abort();
    }
    return;
  }
  size_t rank = c.inputs[0].rank;
  if (info.num_inputs != c.n || info.output_rank != rank + (size_t)info.new_axis ||
      info.axis >= info.output_rank || info.output_bytes < 0) {
    abort();
  }
  int64_t sum = 0;
  for (size_t i = 0; i < c.n && !info.new_axis; i++) {
    sum += c.inputs[i].shape[info.axis];
  }
  for (size_t p = 0, k = 0; p < info.output_rank; p++) {
    if (p == info.axis) {
      if (shape[p] != (info.new_axis ? (int64_t)c.n : sum) || shape[p] != info.axis_dim) {
        abort();
      }
      k += info.new_axis ? 0 : 1;
    } else if (shape[p] != c.inputs[0].shape[k++]) {
      abort();
    }
  }
  /* Partial inference: points, then intervals widened by the fuzzer's bytes, then the axis
   * unknown. */
  cleave_dim dims[FUZZ_MAX_INPUTS][FUZZ_MAX_RANK];
  cleave_partial_shape shapes[FUZZ_MAX_INPUTS];
  for (int pass = 0; pass < 3; pass++) {
    for (size_t i = 0; i < c.n; i++) {
      for (size_t k = 0; k < rank; k++) {
        int64_t d = c.inputs[i].shape[k], below = pass == 0 ? 0 : fuzz_u8(&r) % 4;
        uint8_t above = pass == 0 ? 0 : fuzz_u8(&r);
        dims[i][k].lo = d > below ? d - below : 0;
        dims[i][k].hi = above == 255                ? CLEAVE_DIM_UNBOUNDED
                        : d > INT64_MAX - above % 4 ? INT64_MAX
                                                    : d + above % 4;
      }
      shapes[i].rank = (pass > 0 && (fuzz_u8(&r) & 7) == 0) ? CLEAVE_RANK_DYNAMIC : rank;
      shapes[i].dims = dims[i];
    }
    cleave_partial_info pinfo;
    cleave_dim out[FUZZ_MAX_RANK + 1];
    unsigned unknown = pass == 2 ? CLEAVE_UNKNOWN_AXIS : 0;
    if (cleave_concat_infer_partial(&c.op, unknown, c.inputs[0].type, shapes, c.n, &pinfo, out,
                                    FUZZ_MAX_RANK + 1, &err) != CLEAVE_OK) {
      abort();
    }
    if (pinfo.output_rank == CLEAVE_RANK_DYNAMIC) {
      continue;
    }
    if (pinfo.output_rank != info.output_rank) {
      abort();
    }
    for (size_t p = 0; p < info.output_rank; p++) {
      if (!holds(out[p], shape[p]) ||
          (pass == 0 && (out[p].lo != shape[p] || out[p].hi != shape[p]))) {
        abort();
      }
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check_concat(data, size);
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
