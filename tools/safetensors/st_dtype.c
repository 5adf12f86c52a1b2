/* The dtype table of the safetensors format. */
#include "st_dtype.h"

#include <string.h>

/* In the order of the reference implementation's Dtype enum (huggingface/safetensors,
 * safetensors/src/tensor.rs), which its writer (`prepare`) sorts by, descending, before the tensor
 * names. The writer compares the enum's derived order (declaration order), not the real alignment:
 * C64 (8 bytes) sorts below F64, I64 and U64 because it is declared right after F32, and F4/F6
 * above BOOL. Checked against the crate's source (enum Dtype and `prepare`) for 0.6-era
 * versions, which declare BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16,
 * U16, F16, BF16, I32, U32, F32, C64, F64, I64, U64. */
static const st_dtype table[] = {
    {"BOOL", 8, 0, CLEAVE_BOOLEAN},   {"F4", 4, 1, CLEAVE_F4E2M1},
    {"F6_E2M3", 6, 2, CLEAVE_U8},     {"F6_E3M2", 6, 3, CLEAVE_U8},
    {"U8", 8, 4, CLEAVE_U8},          {"I8", 8, 5, CLEAVE_I8},
    {"F8_E5M2", 8, 6, CLEAVE_F8E5M2}, {"F8_E4M3", 8, 7, CLEAVE_F8E4M3},
    {"F8_E8M0", 8, 8, CLEAVE_F8E8M0}, {"I16", 16, 9, CLEAVE_I16},
    {"U16", 16, 10, CLEAVE_U16},      {"F16", 16, 11, CLEAVE_F16},
    {"BF16", 16, 12, CLEAVE_BF16},    {"I32", 32, 13, CLEAVE_I32},
    {"U32", 32, 14, CLEAVE_U32},      {"F32", 32, 15, CLEAVE_F32},
    {"C64", 64, 16, CLEAVE_C64},      {"F64", 64, 17, CLEAVE_F64},
    {"I64", 64, 18, CLEAVE_I64},      {"U64", 64, 19, CLEAVE_U64},
};

const st_dtype *st_dtype_find(const char *name) {
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

const st_dtype *st_dtype_at(unsigned i) {
  return i < st_dtype_count() ? &table[i] : NULL;
}
