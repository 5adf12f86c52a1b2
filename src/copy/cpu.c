/* CPU features for choosing a kernel family at run time, so that one binary runs anywhere. */
#include "copy/engine.h"

bool cleave_cpu_has_avx2(void) {
#if defined(CLEAVE_HAVE_AVX2_KERNELS) && defined(__GNUC__)
  /* The compiler runtime reads CPUID once at load time (a constructor) and also checks that the
   * OS saves the YMM registers; this only reads what it found, so it is race-free. */
  return __builtin_cpu_supports("avx2") != 0;
#else
  return false;
#endif
}
