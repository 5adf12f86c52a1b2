/* Turns fuzzer bytes into a concat: an operator and its inputs' types and shapes (shared by the
 * library fuzz targets, which read a concat case from the same bytes as their split case). */
#ifndef CLEAVE_FUZZ_CONCAT_H
#define CLEAVE_FUZZ_CONCAT_H

#include "fuzz_input.h"

enum { FUZZ_MAX_INPUTS = 5 };

/** One concat case. The op's axis and the tensors' shapes point into this struct. */
typedef struct fuzz_concat {
  cleave_concat_op op;
  unsigned char axis_bytes[8 * FUZZ_MAX_VALUES];
  size_t n;
  cleave_tensor inputs[FUZZ_MAX_INPUTS];
  int64_t shapes[FUZZ_MAX_INPUTS][FUZZ_MAX_RANK];
} fuzz_concat;

/** Reads a concat case. `small` keeps dims small enough to execute and the axis near its range;
 * inputs mostly agree (one type, one rank, equal dims off a chosen axis) so that valid cases are
 * common, and now and then one differs. */
static inline void fuzz_read_concat(fuzz_reader *r, fuzz_concat *c, bool small) {
  memset(c, 0, sizeof *c);
  uint8_t head = fuzz_u8(r);
  c->op.kind = (cleave_concat_kind)(4 + head % 4); /* 4 is not a concat kind, on purpose */
  c->op.opset = (int64_t)(fuzz_u8(r) % 20);
  c->op.axis = fuzz_values(r, c->axis_bytes, false);
  if (small || (head & 0x10)) {
    c->op.axis.rank = (head & 0x20) ? CLEAVE_ABSENT : 0;
    c->op.axis.count = 1;
    c->op.axis.dtype = CLEAVE_I8;
    c->axis_bytes[0] = (unsigned char)((int)(fuzz_u8(r) % 11) - 5);
  }
  c->op.new_axis = (int64_t)(fuzz_u8(r) % 3);
  c->n = fuzz_u8(r) % (FUZZ_MAX_INPUTS + 1);
  cleave_type type;
  type.dtype = (cleave_dtype)(fuzz_u8(r) % 38);
  type.width =
      (type.dtype == CLEAVE_BYTES || type.dtype == CLEAVE_UNICODE) ? (int64_t)(fuzz_u8(r) % 4) : 0;
  size_t rank = fuzz_u8(r) % (FUZZ_MAX_RANK - 1);
  int64_t base[FUZZ_MAX_RANK];
  for (size_t k = 0; k < rank; k++) {
    base[k] = small ? (int64_t)(fuzz_u8(r) % 5) : fuzz_i64(r);
  }
  size_t axis = rank > 0 ? fuzz_u8(r) % rank : 0;
  for (size_t i = 0; i < c->n; i++) {
    uint8_t how = fuzz_u8(r);
    cleave_tensor *t = &c->inputs[i];
    t->type = type;
    t->rank = rank;
    t->shape = c->shapes[i];
    t->data = NULL;
    memcpy(c->shapes[i], base, sizeof base);
    if (rank > 0) {
      c->shapes[i][axis] = small ? (int64_t)(fuzz_u8(r) % 5) : fuzz_i64(r);
    }
    switch (how % 16) {
    case 0: /* another type */
      t->type.dtype = (cleave_dtype)(fuzz_u8(r) % 38);
      break;
    case 1: /* another rank */
      t->rank = fuzz_u8(r) % FUZZ_MAX_RANK;
      for (size_t k = rank; k < t->rank; k++) {
        c->shapes[i][k] = small ? (int64_t)(fuzz_u8(r) % 5) : fuzz_i64(r);
      }
      break;
    case 2: /* another dim off the axis */
      if (rank > 0) {
        c->shapes[i][fuzz_u8(r) % rank] = small ? (int64_t)(fuzz_u8(r) % 5) : fuzz_i64(r);
      }
      break;
    default:
      break;
    }
  }
}

#endif
