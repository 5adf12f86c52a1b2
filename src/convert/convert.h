/* The element casts' run kernels: one loop per pair of types, in a portable family and (on
 * x86-64) an AVX2 + F16C family that gives the same bits. The public entry points
 * (cleave_cast, cleave_dequantize_fp8_blocks in cast.c and fp8_blocks.c) choose the family and
 * cut the work into runs; the rule each kernel implements is the one of include/cleave.h. */
#ifndef CLEAVE_CONVERT_H
#define CLEAVE_CONVERT_H

#include "cleave.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Converts n elements from src to dst (unaligned, not overlapping). */
typedef void (*cleave_cast_kernel)(const void *src, void *dst, size_t n);

/** Converts n FP8 e4m3 elements, each times `scale` in float32, to the kernel's type. */
typedef void (*cleave_fp8_kernel)(const uint8_t *src, float scale, void *dst, size_t n);

/** The kernels of one family: the float casts by [from][to] index (cleave_cast_index), and
 * the scaled e4m3 runs by destination. A NULL entry falls back to the portable family. */
typedef struct cleave_cast_kernels {
  cleave_cast_kernel cast[4][4];
  cleave_fp8_kernel fp8[4];
} cleave_cast_kernels;

/** The index of a float type in the tables (F32 0, F16 1, BF16 2, F64 3), -1 for another. */
int cleave_cast_index(cleave_dtype dtype);

/** The portable kernels (every entry filled). */
extern const cleave_cast_kernels cleave_cast_portable;

/** The AVX2 + F16C kernels (only in x86-64 builds): use only when cleave_cast_simd() says. */
extern const cleave_cast_kernels cleave_cast_avx2;

/** The vector family when this build has one and this CPU runs it (AVX2 and F16C), else NULL. */
const cleave_cast_kernels *cleave_cast_simd(void);

/** The family for this CPU: the vector one, else the portable one. */
const cleave_cast_kernels *cleave_cast_family(void);

/* The portable rules on one element, which the vector kernels reproduce. */

/** The float32 bits of an e4m3 byte (exact; NaN the default quiet NaN of its sign). */
uint32_t cleave_e4m3_to_f32_bits(uint8_t x);

/** float32 bits to float16 bits, round-to-nearest-even. */
uint16_t cleave_f32_to_f16_bits(uint32_t x);

/** float32 bits to bfloat16 bits, round-to-nearest-even. */
uint16_t cleave_f32_to_bf16_bits(uint32_t x);

/** float16 bits to float32 bits (exact, NaN quieted). */
uint32_t cleave_f16_to_f32_bits(uint16_t x);

/** bfloat16 bits to float32 bits (exact, NaN quieted). */
uint32_t cleave_bf16_to_f32_bits(uint16_t x);

#endif
