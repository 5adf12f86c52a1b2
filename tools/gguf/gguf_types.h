/*
 * The tensor types of GGUF files (ggml's GGML_TYPE_* values) as the checkpoint layer describes
 * them: elements per block and bytes per block, so that sizes, cuts and block boundaries of every
 * quantized type are computed by tools/checkpoint like any other dtype.
 */
#ifndef CLEAVE_GGUF_TYPES_H
#define CLEAVE_GGUF_TYPES_H

#include <stdint.h>

#include "ckpt_dtype.h"

/** The type whose ggml number is `code`, or NULL: a number no ggml type has, or one whose support
 * ggml removed (see gguf_type_removed). The table is static. */
const ckpt_dtype *gguf_type_find(int64_t code);

/** The name a removed ggml type had ("Q4_0_4_4"), or NULL when `code` was never removed. */
const char *gguf_type_removed(int64_t code);

/** The largest ggml type number cleave knows. */
int64_t gguf_type_max(void);

/** The type named `name` ("Q4_K", as gguf-py names them), or NULL. */
const ckpt_dtype *gguf_type_named(const char *name);

#endif /* CLEAVE_GGUF_TYPES_H */
