/*
 * The element types of the safetensors format, as the checkpoint layer describes them
 * (ckpt_dtype): name, bits, the library's type, and as `code` the position in the reference
 * writer's order, which outputs sort by (descending).
 */
#ifndef CLEAVE_ST_DTYPE_H
#define CLEAVE_ST_DTYPE_H

#include "ckpt_dtype.h"

/** Returns the dtype named `name` (exact, upper case), or NULL. The table is static. */
const ckpt_dtype *st_dtype_find(const char *name);

/** The number of dtypes, and dtype i (NULL past the end), for tests and help. */
unsigned st_dtype_count(void);
const ckpt_dtype *st_dtype_at(unsigned i);

#endif /* CLEAVE_ST_DTYPE_H */
