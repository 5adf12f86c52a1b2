/*
 * Helpers of the copy-engine tests: a naive reference split, guarded and misaligned buffers, and
 * one checker that runs a plan with given options and threads and compares every byte.
 *
 * Written independently of the library: the reference walks every element of every output from
 * the shape, axis and lengths the test states.
 */
#ifndef CLEAVE_KERNEL_CHECK_H
#define CLEAVE_KERNEL_CHECK_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cleave.h"

/** Bytes of guard before and after every output buffer. */
#define KC_GUARD 64
/** The byte that fills output buffers and guards before a run. */
#define KC_SENTINEL 0x5A
/** The largest rank the helpers handle. */
#define KC_MAX_RANK 6
/** The largest output count the helpers handle. */
#define KC_MAX_OUTPUTS 4096
/** A plan-option threshold no test input reaches (the path it enables is never taken). */
#define KC_NEVER INT64_MAX

/** How a run may use threads. */
typedef enum kc_threads {
  KC_ONE_THREAD, /* cleave_plan_run */
  KC_POOL_2,     /* a built-in pool of 2 threads, cleave_plan_run_exec */
  KC_CUSTOM_2,   /* a counting, reverse-order parallel-for announcing 2 threads */
  KC_EXEC_NULL   /* cleave_plan_run_exec with a NULL exec */
} kc_threads;

/** One split to check. `lengths` are the per-output lengths on `axis`, stated by the test. */
typedef struct kc_case {
  cleave_op op;
  cleave_type type;
  size_t esize; /* bytes per element, stated by the test */
  int64_t shape[KC_MAX_RANK];
  size_t rank;
  size_t axis;
  const int64_t *lengths;
  size_t num_outputs;
  int axis_removed;
  size_t in_misalign;       /* input pointer offset from a 64-byte boundary */
  size_t out_misalign;      /* output pointers' offset from a 64-byte boundary */
  size_t out_misalign_step; /* output i is offset by out_misalign + i * step (mod 64) */
} kc_case;

/** The kernel families to run every case with: portable, and AVX2 when this CPU has it. */
extern const cleave_kernels_choice kc_families[];
/** How many of `kc_families` this CPU runs. */
size_t kc_num_families(void);

/** Fills `n` bytes with a pattern in which nearby bytes differ; `seed` varies it. */
void kc_fill(unsigned char *p, size_t n, unsigned seed);

/** Byte size of output i of a case (outer * length * inner * esize). */
size_t kc_output_bytes(const kc_case *c, size_t i);

/** Writes output i of the case by walking every element of it (the naive reference). */
void kc_reference(const kc_case *c, const unsigned char *in, size_t i, unsigned char *out);

/**
 * Checks the outputs of an allocating run (`cleave_plan_run_alloc` or `_with`) of the case on
 * `in`: each equals the reference, is as aligned as its first element in the input (within a
 * 64-byte line; a 4 KiB page for outputs of 1 MiB or more) or on a line when the tiny-output
 * kernels write it, and no output overlaps the one before.
 */
void kc_check_allocated(const kc_case *c, const unsigned char *in, void *const *outs);

/**
 * Runs the case through a plan created with `options` and `threads`, and checks: the plan's
 * kernel description contains every word of the NULL-terminated `words`, every output equals
 * the reference, every guard byte is intact. Also runs `cleave_run` (the one-shot path) and
 * checks the same. Returns the number of parallel-for calls made by KC_CUSTOM_2 (0 otherwise).
 */
int kc_check(const kc_case *c, const cleave_plan_options *options, kc_threads threads,
             const char *const *words);

/** Options with the given kernel family and thresholds. */
cleave_plan_options kc_options(cleave_kernels_choice family, int64_t nontemporal_bytes,
                               int64_t parallel_bytes, int64_t tiny_bytes);

/** A case running `op` on `shape` (rank `rank`, elements of `esize` bytes), whose outputs take
 * `lengths[0..n)` along `axis` (as the test states them); no misalignment. */
kc_case kc_make_case(cleave_op op, cleave_type type, size_t esize, const int64_t *shape,
                     size_t rank, size_t axis, const int64_t *lengths, size_t n);

/** A Split-1 case on `shape` (rank `rank`, elements of `esize` bytes) along `axis` (whose value
 * `*axis_value` the op points at) into `n` equal outputs; fills `lengths[0..n)`. */
kc_case kc_split_case(cleave_type type, size_t esize, const int64_t *shape, size_t rank,
                      size_t axis, int64_t n, int64_t *lengths, const int64_t *axis_value);

/** A VariadicSplit case with explicit lengths `lengths[0..n)` (no -1) along `axis` (whose value
 * `*axis_value` the op points at). */
kc_case kc_variadic_case(cleave_type type, size_t esize, const int64_t *shape, size_t rank,
                         size_t axis, const int64_t *lengths, size_t n, const int64_t *axis_value);

#endif /* CLEAVE_KERNEL_CHECK_H */
