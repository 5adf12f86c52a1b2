/* The packed sub-byte cases of bench_split (letter p): timing, checking and their summary. */
#ifndef CLEAVE_BENCH_PACKED_H
#define CLEAVE_BENCH_PACKED_H

#include "cleave.h"

#include <stddef.h>

/** The most samples per variant `bench_packed_run` takes. */
#define BENCH_PACKED_MAX_REPS 101

/** Times every packed case with plans made with `options` (medians of `reps` samples, 1 thread
 * and `pool`), checks every output against the input, prints one block per case and keeps the
 * medians for `bench_packed_summary`. Exits on any failure. */
void bench_packed_run(int reps, cleave_threadpool *pool, const cleave_plan_options *options);

/** Prints the packed cases timed so far as a Markdown table with issue 7's targets (nothing when
 * none ran). */
void bench_packed_summary(size_t threads);

#endif /* CLEAVE_BENCH_PACKED_H */
