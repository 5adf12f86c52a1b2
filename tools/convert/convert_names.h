/*
 * Tensor names: Hugging Face's and GGUF's for the architectures of convert_arch.h, as gguf-py's
 * tensor_mapping.py maps them (TensorNameMap: the HF names of each MODEL_TENSOR, which
 * MODEL_TENSORS lists for the architecture) and constants.py names them (TENSOR_NAMES). One
 * table read in both directions: HF -> GGUF for `convert` to GGUF, GGUF -> HF for the way back.
 * A name is a table entry's stem, where "{bid}" stands for a block number (decimal digits, no
 * sign), followed by a suffix kept as it is (".weight", ".bias", as the converter's
 * try_suffixes). Static table; thread-safe.
 */
#ifndef CLEAVE_CONVERT_NAMES_H
#define CLEAVE_CONVERT_NAMES_H

#include <stddef.h>

#include "convert_arch.h"

/** What a tensor is, for the rules that depend on it (the Q/K permutation, the output types). */
typedef enum convert_role {
  CONVERT_ROLE_OTHER = 0,
  CONVERT_ROLE_Q,
  CONVERT_ROLE_K,
  CONVERT_ROLE_TOKEN_EMBD,
  CONVERT_ROLE_OUTPUT
} convert_role;

/** One pair of names. */
typedef struct convert_name {
  /** The Hugging Face stem ("model.layers.{bid}.self_attn.q_proj"). */
  const char *hf;
  /** The GGUF stem ("blk.{bid}.attn_q"). */
  const char *gguf;
  /** The architectures it holds for (bit 1 << convert_arch). */
  unsigned archs;
  convert_role role;
} convert_name;

/** The whole table, `*count` entries. */
const convert_name *convert_names(size_t *count);

/**
 * The GGUF name of the Hugging Face tensor `hf` for `arch`, written into `out` (`size` bytes,
 * NUL-terminated). Returns the table entry, or NULL when `hf` has no GGUF name for `arch` (or
 * the result would not fit). `*bid` is the block number (-1 for a tensor outside the blocks).
 */
const convert_name *convert_name_to_gguf(convert_arch arch, const char *hf, char *out, size_t size,
                                         long *bid);

/** The inverse: the Hugging Face name of the GGUF tensor `gguf`. */
const convert_name *convert_name_to_hf(convert_arch arch, const char *gguf, char *out, size_t size,
                                       long *bid);

#endif /* CLEAVE_CONVERT_NAMES_H */
