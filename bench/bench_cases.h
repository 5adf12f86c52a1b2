/* The benchmark cases (a)-(f) of the issues' targets, shared by bench_split and bench_alloc. */
#ifndef CLEAVE_BENCH_CASES_H
#define CLEAVE_BENCH_CASES_H

#include "cleave.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bench_case {
  char letter;
  const char *what;
  int64_t shape[4];
  size_t rank;
  int64_t axis;
  int64_t num_splits;     /* Split-1 when > 0 */
  const int64_t *lengths; /* VariadicSplit otherwise */
  size_t num_lengths;
} bench_case;

/** Cases (a) to (f), f32. */
extern const bench_case bench_cases[];
extern const size_t bench_num_cases;

/** The case's operator (it points into the case). */
cleave_op bench_case_op(const bench_case *c);

/** The case's input size in bytes. */
size_t bench_case_bytes(const bench_case *c);

#endif /* CLEAVE_BENCH_CASES_H */
