/* The ggml tensor types of GGUF files. */
#include "gguf_types.h"

#include <stddef.h>
#include <string.h>

/* Block sizes (elements) and type sizes (bytes per block) of every ggml type, from ggml's type
 * traits as gguf-py restates them (llama.cpp, gguf-py/gguf/constants.py, GGML_QUANT_SIZES, and
 * ggml/include/ggml.h, enum ggml_type, up to GGML_TYPE_MXFP4 = 39, read on 2026-11-28);
 * NVFP4 (40: 64 elements in 36 bytes) and Q1_0 (41: 128 elements in 18 bytes) from
 * ggml/src/ggml-common.h (block_nvfp4, block_q1_0) of llama.cpp 37b53fd. The numbers are the
 * file format's: a type keeps its number forever, and removed ones are never reused.
 *
 * The plain types move as elements of the library's type; the quantized ones are opaque blocks
 * (checked as u8, cut only between blocks). */
#define PLAIN(id, name, bytes, lib) [id] = {name, id, 1, (bytes)*8, 1, lib}
#define BLOCK(id, name, elems, bytes) [id] = {name, id, elems, (bytes)*8, 0, CLEAVE_U8}
static const ckpt_dtype table[] = {
    PLAIN(0, "F32", 4, CLEAVE_F32),
    PLAIN(1, "F16", 2, CLEAVE_F16),
    BLOCK(2, "Q4_0", 32, 2 + 16),
    BLOCK(3, "Q4_1", 32, 2 + 2 + 16),
    BLOCK(6, "Q5_0", 32, 2 + 4 + 16),
    BLOCK(7, "Q5_1", 32, 2 + 2 + 4 + 16),
    BLOCK(8, "Q8_0", 32, 2 + 32),
    BLOCK(9, "Q8_1", 32, 4 + 4 + 32),
    BLOCK(10, "Q2_K", 256, 2 + 2 + 256 / 16 + 256 / 4),
    BLOCK(11, "Q3_K", 256, 2 + 256 / 4 + 256 / 8 + 12),
    BLOCK(12, "Q4_K", 256, 2 + 2 + 256 / 2 + 12),
    BLOCK(13, "Q5_K", 256, 2 + 2 + 256 / 2 + 256 / 8 + 12),
    BLOCK(14, "Q6_K", 256, 2 + 256 / 2 + 256 / 4 + 256 / 16),
    BLOCK(15, "Q8_K", 256, 4 + 256 + 256 / 8),
    BLOCK(16, "IQ2_XXS", 256, 2 + 256 / 4),
    BLOCK(17, "IQ2_XS", 256, 2 + 256 / 4 + 256 / 32),
    BLOCK(18, "IQ3_XXS", 256, 2 + 256 / 4 + 256 / 8),
    BLOCK(19, "IQ1_S", 256, 2 + 256 / 8 + 256 / 16),
    BLOCK(20, "IQ4_NL", 32, 2 + 16),
    BLOCK(21, "IQ3_S", 256, 2 + 256 / 4 + 256 / 8 + 256 / 32 + 4),
    BLOCK(22, "IQ2_S", 256, 2 + 256 / 4 + 256 / 16),
    BLOCK(23, "IQ4_XS", 256, 2 + 2 + 256 / 2 + 256 / 64),
    PLAIN(24, "I8", 1, CLEAVE_I8),
    PLAIN(25, "I16", 2, CLEAVE_I16),
    PLAIN(26, "I32", 4, CLEAVE_I32),
    PLAIN(27, "I64", 8, CLEAVE_I64),
    PLAIN(28, "F64", 8, CLEAVE_F64),
    BLOCK(29, "IQ1_M", 256, 256 / 8 + 256 / 16 + 256 / 32),
    PLAIN(30, "BF16", 2, CLEAVE_BF16),
    BLOCK(34, "TQ1_0", 256, 2 + 4 * 13),
    BLOCK(35, "TQ2_0", 256, 2 + 64),
    BLOCK(39, "MXFP4", 32, 1 + 16),
    BLOCK(40, "NVFP4", 64, 4 + 32),
    BLOCK(41, "Q1_0", 128, 2 + 16),
};
#define TYPE_COUNT ((int64_t)(sizeof table / sizeof table[0]))

/* The numbers ggml retired (their type traits have block size 0, which llama.cpp refuses). */
static const struct {
  int64_t code;
  const char *name;
} removed[] = {
    {4, "Q4_2"},      {5, "Q4_3"},        {31, "Q4_0_4_4"},   {32, "Q4_0_4_8"},
    {33, "Q4_0_8_8"}, {36, "IQ4_NL_4_4"}, {37, "IQ4_NL_4_8"}, {38, "IQ4_NL_8_8"},
};

const ckpt_dtype *gguf_type_find(int64_t code) {
  if (code < 0 || code >= TYPE_COUNT || table[code].name == NULL) {
    return NULL;
  }
  return &table[code];
}

const char *gguf_type_removed(int64_t code) {
  for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
    if (removed[i].code == code) {
      return removed[i].name;
    }
  }
  return NULL;
}

int64_t gguf_type_max(void) {
  return TYPE_COUNT - 1;
}

const ckpt_dtype *gguf_type_named(const char *name) {
  for (int64_t i = 0; i < TYPE_COUNT; i++) {
    if (table[i].name != NULL && strcmp(table[i].name, name) == 0) {
      return &table[i];
    }
  }
  return NULL;
}
