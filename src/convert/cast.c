/* cleave_cast: the element casts' entry point, which checks the pair and runs the kernel of the
 * CPU's family (convert.h). */
#include "convert/convert.h"

#include "core/core.h"

#include <string.h>

#if defined(CLEAVE_HAVE_AVX2_KERNELS) && defined(__GNUC__)
#include <cpuid.h>
#endif

int cleave_cast_index(cleave_dtype dtype) {
  switch (dtype) {
  case CLEAVE_F32:
    return 0;
  case CLEAVE_F16:
    return 1;
  case CLEAVE_BF16:
    return 2;
  case CLEAVE_F64:
    return 3;
  default:
    return -1;
  }
}

const cleave_cast_kernels *cleave_cast_simd(void) {
#if defined(CLEAVE_HAVE_AVX2_KERNELS) && defined(__GNUC__)
  /* The compiler runtime read CPUID once at load time for AVX2 (and checked that the OS saves
   * the YMM registers); F16C, which the builtin does not know, is bit 29 of leaf 1's ECX. */
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__builtin_cpu_supports("avx2") != 0 && __get_cpuid(1, &a, &b, &c, &d) != 0 &&
      (c & (1u << 29)) != 0) {
    return &cleave_cast_avx2;
  }
#endif
  return NULL;
}

const cleave_cast_kernels *cleave_cast_family(void) {
  const cleave_cast_kernels *simd = cleave_cast_simd();
  return simd ? simd : &cleave_cast_portable;
}

int cleave_cast_supported(cleave_dtype from, cleave_dtype to) {
  if (cleave_cast_index(to) < 0) {
    return 0;
  }
  return cleave_cast_index(from) >= 0 || from == CLEAVE_F8E4M3;
}

static const char *type_name(cleave_dtype dtype) {
  const char *name = cleave_dtype_name(dtype);
  return name ? name : "an unknown type";
}

cleave_status cleave_cast(const void *src, cleave_dtype from, void *dst, cleave_dtype to,
                          size_t count, cleave_error *err) {
  if (!cleave_cast_supported(from, to)) {
    return cleave_fail(err, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                       "cannot cast %s to %s: casts are between f32, f16, bf16 and f64, and "
                       "from f8e4m3 to those",
                       type_name(from), type_name(to));
  }
  if (count > SIZE_MAX / 8) {
    return cleave_fail(err, CLEAVE_ERROR_OVERFLOW,
                       "cleave_cast of %zu elements: their bytes do not fit in size_t", count);
  }
  if (count > 0 && (src == NULL || dst == NULL)) {
    return cleave_fail(err, CLEAVE_ERROR_INVALID_ARGUMENT,
                       "cleave_cast of %zu elements needs a source and a destination", count);
  }
  if (count > 0) {
    const cleave_cast_kernels *family = cleave_cast_family();
    int t = cleave_cast_index(to);
    if (from == CLEAVE_F8E4M3) {
      cleave_fp8_kernel k = family->fp8[t] ? family->fp8[t] : cleave_cast_portable.fp8[t];
      k(src, 1.0f, dst, count);
    } else {
      int f = cleave_cast_index(from);
      if (f == t) {
        memcpy(dst, src, count * (size_t)(t == 0 ? 4 : t == 3 ? 8 : 2));
      } else {
        cleave_cast_kernel k =
            family->cast[f][t] ? family->cast[f][t] : cleave_cast_portable.cast[f][t];
        k(src, dst, count);
      }
    }
  }
  return cleave_succeed(err);
}
