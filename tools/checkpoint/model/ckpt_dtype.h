/*
 * The element type of a checkpoint tensor, described so that one layer can size, cut and move
 * the tensors of every format: plain types (one element of 8 to 64 bits), sub-byte types packed
 * without padding (safetensors' F4: 4 bits, F6_*: 6 bits), and block-quantized types, whose
 * elements are stored in opaque blocks (GGUF's Q4_0: 32 elements in 18 bytes) that can be cut
 * only between blocks. A format keeps a table of these (tools/safetensors/st_dtype.c).
 */
#ifndef CLEAVE_CKPT_DTYPE_H
#define CLEAVE_CKPT_DTYPE_H

#include <stdint.h>

#include "cleave.h"

/** One element type of a format. Tables of them are static: never freed. */
typedef struct ckpt_dtype {
  /** The format's name for it ("BF16", "Q4_K"). */
  const char *name;
  /** The format's own number for it, which its writer may sort by (safetensors: the position in
   * the reference implementation's Dtype enum; GGUF: the ggml_type value). */
  unsigned code;
  /** Elements per block: 1 for plain and sub-byte types, 32 or 256 for GGUF's quantized ones.
   * A block never straddles two rows of the innermost axis. */
  uint32_t block_elems;
  /** Bits per block: 4 (F4), 6 (F6_*), 8 to 64 (plain types; C64 is 64), 144 (Q4_0's 18
   * bytes). */
  uint32_t block_bits;
  /** 1 when the library has the element type `lib` and can move single elements; 0 for opaque
   * blocks and types the library lacks (cuts of those are checked with `lib` = CLEAVE_U8, as the
   * split rules do not depend on the element type). */
  int movable;
  cleave_dtype lib;
} ckpt_dtype;

/**
 * The bits of `elements` elements of type `d` stored in C order, into `*bits`. Returns 0, or -1
 * when `elements` is not a whole number of blocks or the count overflows 64 bits.
 */
int ckpt_dtype_bits(const ckpt_dtype *d, uint64_t elements, uint64_t *bits);

/** Why a shape cannot be stored in whole bytes of type `d` (ckpt_dtype_size). */
typedef enum ckpt_size_status {
  CKPT_SIZE_OK = 0,
  /** The element count or its bits overflow (bytes beyond INT64_MAX included). */
  CKPT_SIZE_OVERFLOW,
  /** The bits of the elements do not fill whole bytes (an odd number of F4 elements). */
  CKPT_SIZE_PARTIAL_BYTE,
  /** The innermost dimension is not a whole number of blocks (or the tensor is a scalar of a
   * block type). */
  CKPT_SIZE_PARTIAL_BLOCK
} ckpt_size_status;

/**
 * Computes the element count and the bytes of a tensor of type `d` and shape dims[0..ndim) (dims
 * are non-negative). Both outputs are set whatever the status (0 after an overflow).
 */
ckpt_size_status ckpt_dtype_size(const ckpt_dtype *d, const int64_t *dims, int ndim,
                                 uint64_t *elements, uint64_t *bytes);

#endif /* CLEAVE_CKPT_DTYPE_H */
