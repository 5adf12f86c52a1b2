/*
 * The element types of the safetensors format: name, bits per element, and the rank the
 * reference writer sorts by (its dtype order, smallest alignment first).
 */
#ifndef CLEAVE_ST_DTYPE_H
#define CLEAVE_ST_DTYPE_H

#include "cleave.h"

/** One dtype of the format. */
typedef struct st_dtype {
  const char *name;
  /** Bits per element: 4 (F4), 6 (F6_*), 8, 16, 32 or 64 (C64: two F32). */
  unsigned bits;
  /** Position in the reference writer's order; outputs sort by it, descending. */
  unsigned rank;
  /** The library's element type that split and shard validate cuts with (cleave_infer). F6_*
   * have no library type: their cuts are checked as u8 elements of the same shape (the rules
   * of Split-1 and VariadicSplit-1 do not depend on the element type; the byte boundaries of
   * sub-byte parts are checked by st_rules.c). */
  cleave_dtype lib;
} st_dtype;

/** Returns the dtype named `name` (exact, upper case), or NULL. */
const st_dtype *st_dtype_find(const char *name);

/** The number of dtypes, and dtype i (for tests and help). */
unsigned st_dtype_count(void);
const st_dtype *st_dtype_at(unsigned i);

#endif /* CLEAVE_ST_DTYPE_H */
