/* The dtype table of the safetensors format. */
#include "st_dtype.h"

#include <string.h>

/* In the order of the reference implementation's Dtype enum (huggingface/safetensors,
 * safetensors/src/tensor.rs), which its writer (`prepare`) sorts by, descending, before the tensor
 * names: `code` is that position. The writer compares the enum's derived order (declaration
 * order), not the real alignment: C64 (8 bytes) sorts below F64, I64 and U64 because it is
 * declared right after F32, and F4/F6 above BOOL. Checked against the crate's source (enum Dtype
 * and `prepare`) for 0.6-era versions, which declare BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2,
 * F8_E4M3, F8_E8M0, I16, U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64.
 *
 * Every type is one element per block. F6_* have no library type: their cuts are checked as u8
 * elements of the same shape (the split rules do not depend on the element type; the byte
 * boundaries of sub-byte parts are checked by the checkpoint layer). */
static const ckpt_dtype table[] = {
    {"BOOL", 0, 1, 8, 1, CLEAVE_BOOLEAN},   {"F4", 1, 1, 4, 1, CLEAVE_F4E2M1},
    {"F6_E2M3", 2, 1, 6, 0, CLEAVE_U8},     {"F6_E3M2", 3, 1, 6, 0, CLEAVE_U8},
    {"U8", 4, 1, 8, 1, CLEAVE_U8},          {"I8", 5, 1, 8, 1, CLEAVE_I8},
    {"F8_E5M2", 6, 1, 8, 1, CLEAVE_F8E5M2}, {"F8_E4M3", 7, 1, 8, 1, CLEAVE_F8E4M3},
    {"F8_E8M0", 8, 1, 8, 1, CLEAVE_F8E8M0}, {"I16", 9, 1, 16, 1, CLEAVE_I16},
    {"U16", 10, 1, 16, 1, CLEAVE_U16},      {"F16", 11, 1, 16, 1, CLEAVE_F16},
    {"BF16", 12, 1, 16, 1, CLEAVE_BF16},    {"I32", 13, 1, 32, 1, CLEAVE_I32},
    {"U32", 14, 1, 32, 1, CLEAVE_U32},      {"F32", 15, 1, 32, 1, CLEAVE_F32},
    {"C64", 16, 1, 64, 1, CLEAVE_C64},      {"F64", 17, 1, 64, 1, CLEAVE_F64},
    {"I64", 18, 1, 64, 1, CLEAVE_I64},      {"U64", 19, 1, 64, 1, CLEAVE_U64},
};

const ckpt_dtype *st_dtype_find(const char *name) {
  for (unsigned i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (strcmp(table[i].name, name) == 0) {
      return &table[i];
    }
  }
  return NULL;
}

unsigned st_dtype_count(void) {
  return sizeof table / sizeof table[0];
}

const ckpt_dtype *st_dtype_at(unsigned i) {
  return i < st_dtype_count() ? &table[i] : NULL;
}
