/* The casts' AVX2 + F16C kernels: the same bits as the portable ones (cast_bits.c), eight
 * elements at a time, the tail through the portable kernels. Entries left NULL fall back to the
 * portable family. */
#include "convert/convert.h"

const cleave_cast_kernels cleave_cast_avx2 = {{{0}}, {0}};
