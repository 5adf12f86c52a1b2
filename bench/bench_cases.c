/* The benchmark cases (a)-(f): see bench_cases.h. */
#include "bench_cases.h"

static const int64_t variadic_e[4] = {128, 256, 384, -1};

const bench_case bench_cases[] = {
    {'a', "[64,1024,1024] f32 into 4 along axis 0", {64, 1024, 1024}, 3, 0, 4, NULL, 0},
    {'b', "[64,1024,1024] f32 into 4 along axis 1", {64, 1024, 1024}, 3, 1, 4, NULL, 0},
    {'c', "[64,1024,1024] f32 into 4 along axis 2", {64, 1024, 1024}, 3, 2, 4, NULL, 0},
    {'d', "[4096,1024] f32 into 1024 along axis 1", {4096, 1024}, 2, 1, 1024, NULL, 0},
    {'e',
     "[64,1024,1024] f32 VariadicSplit axis 1 [128,256,384,-1]",
     {64, 1024, 1024},
     3,
     1,
     0,
     variadic_e,
     4},
    {'f', "[6,12,10,24] f32 into 3 along axis 1 (per call)", {6, 12, 10, 24}, 4, 1, 3, NULL, 0},
};

const size_t bench_num_cases = sizeof bench_cases / sizeof bench_cases[0];

cleave_op bench_case_op(const bench_case *c) {
  return c->num_splits > 0 ? cleave_op_split(&c->axis, c->num_splits)
                           : cleave_op_variadic_split(&c->axis, c->lengths, c->num_lengths);
}

size_t bench_case_bytes(const bench_case *c) {
  size_t n = 4;
  for (size_t k = 0; k < c->rank; k++) {
    n *= (size_t)c->shape[k];
  }
  return n;
}
