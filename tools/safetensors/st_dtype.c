/* The dtype table of the safetensors format. */
#include "st_dtype.h"

#include <string.h>

/* In the order of the reference implementation's Dtype enum (safetensors' Rust crate), which the
 * reference writer sorts by (descending) before the tensor names. C64 is placed after F32, where
 * the crate declares it. */
static const st_dtype table[] = {
    {"BOOL", 8, 0},  {"F4", 4, 1},      {"F6_E2M3", 6, 2}, {"F6_E3M2", 6, 3}, {"U8", 8, 4},
    {"I8", 8, 5},    {"F8_E5M2", 8, 6}, {"F8_E4M3", 8, 7}, {"F8_E8M0", 8, 8}, {"I16", 16, 9},
    {"U16", 16, 10}, {"F16", 16, 11},   {"BF16", 16, 12},  {"I32", 32, 13},   {"U32", 32, 14},
    {"F32", 32, 15}, {"C64", 64, 16},   {"F64", 64, 17},   {"I64", 64, 18},   {"U64", 64, 19},
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
