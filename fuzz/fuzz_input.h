/* Turns fuzzer bytes into an operator, a type and a shape (shared by the library fuzz targets). */
#ifndef CLEAVE_FUZZ_INPUT_H
#define CLEAVE_FUZZ_INPUT_H

#include <cleave.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/** A cursor over the fuzzer's bytes; reads past the end give zeros. */
typedef struct fuzz_reader {
  const uint8_t *data;
  size_t size;
  size_t at;
} fuzz_reader;

static inline uint8_t fuzz_u8(fuzz_reader *r) {
  return r->at < r->size ? r->data[r->at++] : 0;
}

/** An int64 biased towards the values where bugs live: small ones, 0, -1, and the int64 edges. */
static inline int64_t fuzz_i64(fuzz_reader *r) {
  uint8_t kind = fuzz_u8(r);
  switch (kind % 8) {
  case 0:
    return INT64_MAX - (int64_t)fuzz_u8(r);
  case 1:
    return INT64_MIN + (int64_t)fuzz_u8(r);
  case 2: {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
      v = v << 8 | fuzz_u8(r);
    }
    int64_t s;
    memcpy(&s, &v, sizeof s);
    return s;
  }
  case 3:
    return (int64_t)1 << (fuzz_u8(r) % 63);
  default:
    return (int64_t)(int8_t)fuzz_u8(r);
  }
}

enum { FUZZ_MAX_RANK = 6, FUZZ_MAX_VALUES = 16 };

/** Everything one fuzz case describes. The op's values point into this struct. */
typedef struct fuzz_case {
  cleave_op op;
  cleave_type type;
  int64_t shape[FUZZ_MAX_RANK];
  size_t rank;
  unsigned char axis_bytes[8 * FUZZ_MAX_VALUES];
  unsigned char length_bytes[8 * FUZZ_MAX_VALUES];
  int64_t num_outputs; /* what op.num_outputs points at, when present */
} fuzz_case;

static const cleave_dtype fuzz_int_types[] = {CLEAVE_I8,  CLEAVE_I16,    CLEAVE_I32, CLEAVE_I64,
                                              CLEAVE_U8,  CLEAVE_U16,    CLEAVE_U32, CLEAVE_U64,
                                              CLEAVE_F32, CLEAVE_BOOLEAN};

static inline size_t fuzz_int_size(cleave_dtype t) {
  switch (t) {
  case CLEAVE_I16:
  case CLEAVE_U16:
    return 2;
  case CLEAVE_I32:
  case CLEAVE_U32:
  case CLEAVE_F32:
    return 4;
  case CLEAVE_I64:
  case CLEAVE_U64:
    return 8;
  default:
    return 1;
  }
}

/* Fills a cleave_values: mostly well-formed integer tensors, sometimes of a wrong type/rank. */
static inline cleave_values fuzz_values(fuzz_reader *r, unsigned char *storage, bool small_dims) {
  cleave_values v;
  uint8_t shape = fuzz_u8(r);
  v.dtype = (shape & 0x80) ? fuzz_int_types[fuzz_u8(r) % 10] : CLEAVE_I64;
  v.rank = shape % 5 == 0 ? CLEAVE_ABSENT : (size_t)(shape % 5) - 1; /* absent, 0 .. 3 */
  v.count = v.rank == 0 ? 1 : (size_t)(fuzz_u8(r) % (FUZZ_MAX_VALUES + 1));
  v.data = storage;
  size_t size = fuzz_int_size(v.dtype);
  for (size_t i = 0; i < v.count; i++) {
    int64_t x = small_dims ? (int64_t)(fuzz_u8(r) % 8) - 1 : fuzz_i64(r);
    /* Native byte order: copy the low bytes of the value. */
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    for (size_t b = 0; b < size; b++) {
      storage[i * size + b] = (unsigned char)(u >> (8 * b));
    }
  }
  return v;
}

/** Reads a whole case. `small` keeps dims and lengths small enough to execute. */
static inline void fuzz_read_case(fuzz_reader *r, fuzz_case *c, bool small) {
  memset(c, 0, sizeof *c);
  uint8_t head = fuzz_u8(r);
  c->op.kind = (cleave_op_kind)(head % 5); /* 0 is invalid on purpose */
  c->op.opset = (int64_t)(fuzz_u8(r) % 26);
  c->op.axis = fuzz_values(r, c->axis_bytes, false);
  if (small) {
    /* Keep the axis in or near range so that execution is reached often. */
    c->op.axis.rank = 0;
    c->op.axis.count = 1;
    c->op.axis.dtype = CLEAVE_I8;
    c->axis_bytes[0] = (unsigned char)((int)(fuzz_u8(r) % 9) - 4);
  }
  c->op.lengths = fuzz_values(r, c->length_bytes, small);
  c->op.num_splits = small ? (int64_t)(fuzz_u8(r) % 8) : fuzz_i64(r);
  c->num_outputs = c->op.num_splits;
  c->op.num_outputs =
      (fuzz_u8(r) & 1) ? cleave_values_scalar(&c->num_outputs) : cleave_values_none();
  c->op.keepdims = (int64_t)(fuzz_u8(r) % 3);
  uint8_t t = fuzz_u8(r);
  c->type.dtype = (cleave_dtype)(t % 38); /* every dtype, and 0 and 37, which are not */
  c->type.width = (c->type.dtype == CLEAVE_BYTES || c->type.dtype == CLEAVE_UNICODE)
                      ? (int64_t)(fuzz_u8(r) % 6)
                      : 0;
  c->rank = fuzz_u8(r) % (FUZZ_MAX_RANK + 1);
  for (size_t i = 0; i < c->rank; i++) {
    c->shape[i] = small ? (int64_t)(fuzz_u8(r) % 7) : fuzz_i64(r);
  }
}

#endif
