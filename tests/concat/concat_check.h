/*
 * Helpers of the concat tests: element sizes and bit orders stated by the test, inputs of every
 * element type (packed ones included), a naive reference concat that walks every element of the
 * output, and checkers that drive every entry point of the concat API (inference, partial
 * inference, one-shot runs, plans on threads, allocated outputs) for one case and compare each with
 * the reference (success) or with the exact status and message (errors).
 *
 * Written independently of the library: sizes, shapes and expected bytes never come from the code
 * under test.
 */
#ifndef CLEAVE_CONCAT_CHECK_H
#define CLEAVE_CONCAT_CHECK_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cleave.h"

/** The largest rank of an input the helpers handle (the output may have one more). */
#define CC_MAX_RANK 6
/** Bytes of guard after every output buffer, checked after each call. */
#define CC_GUARD 64
/** The byte every output buffer holds before a call. */
#define CC_SENTINEL 0xC3

/** A test's own description of an element type: bytes per element (0 for packed), bits per
 * element, and whether a byte's first element sits in its most significant bits. */
typedef struct cc_elem {
  size_t bytes;
  int bits;
  int msb_first;
} cc_elem;

/** The element description of `type`, from the test's own table. */
cc_elem cc_elem_of(cleave_type type);

/** The byte size of `count` elements (packed: rounded up to whole bytes). */
size_t cc_bytes(cc_elem e, int64_t count);

/** The product of `shape[0..rank)`. */
int64_t cc_count(const int64_t *shape, size_t rank);

/** Sets the context printed when a check fails (printf-style). */
void cc_context(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/** Fails the running test with the context when `cond` is false. */
#define CC_CHECK(cond)                                                                             \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      cc_fail(#cond, __FILE__, __LINE__);                                                          \
    }                                                                                              \
  } while (0)

/** Prints the context and fails the running cmocka test. */
void cc_fail(const char *what, const char *file, int line);

/** A set of test-owned inputs: `tensors[i]` describes input i, whose data the set owns
 * (variable-length strings point into the set's pools). */
typedef struct cc_inputs {
  size_t count;
  cleave_tensor *tensors;
  int64_t (*shapes)[CC_MAX_RANK];
  unsigned char **data;
  char **pools;
} cc_inputs;

/** Builds `count` inputs of `type`, input i of shape `shapes[i]` (all of rank `rank`), each filled
 * with a pattern that differs between inputs (`seed` varies it; every element of every input is
 * distinguishable). Empty inputs still get a real address. */
void cc_inputs_make(cc_inputs *in, cleave_type type, size_t count, size_t rank,
                    const int64_t (*shapes)[CC_MAX_RANK], unsigned seed);

/** Releases what `cc_inputs_make` allocated. */
void cc_inputs_free(cc_inputs *in);

/** The naive reference: writes to `out` (zeroed first, `cc_bytes` of the output) the concat of the
 * inputs along output axis `axis`, or their stack along a new axis there when `stack`, by walking
 * every output element's full index. */
void cc_reference(const cleave_tensor *inputs, size_t count, size_t axis, int stack,
                  unsigned char *out);

/** What a successful concat must give, stated by the test. */
typedef struct cc_expect {
  size_t axis; /* the normalised output axis */
  int stack;   /* new_axis 1 */
  size_t rank; /* the output's rank */
  int64_t shape[CC_MAX_RANK + 1];
} cc_expect;

/** Fills `ex` for the concat of `inputs` (as the test computes it) along output axis `axis`. */
void cc_expect_of(const cleave_tensor *inputs, size_t count, size_t axis, int stack, cc_expect *ex);

/**
 * Checks a valid concat through every entry point: cleave_concat_infer (info, shape, capacity),
 * cleave_concat_infer_partial on the same shapes as points, cleave_concat_run, a plan (accessors,
 * runs with moved inputs and NULL for empty ones, on a pool of 2 threads with every threshold at
 * 0), and allocated outputs (system allocator and an arena). Every output equals the reference
 * and no guard byte changes.
 */
void cc_check_success(const cleave_concat_op *op, const cleave_tensor *inputs, size_t count,
                      const cc_expect *ex);

/**
 * Checks an invalid concat through every entry point: each returns `status` with exactly
 * `message`, and writes nothing (shape array, plan pointer, output buffer). With `partial`, the
 * static shapes given as partial ones must fail the same way (rules that are not about byte sizes
 * or mixed types).
 */
void cc_check_error(const cleave_concat_op *op, const cleave_tensor *inputs, size_t count,
                    cleave_status status, const char *message, int partial);

/** How a plan run may use threads (cc_check_plan). */
typedef enum cc_threads {
  CC_ONE_THREAD, /* exec NULL */
  CC_POOL_2,     /* a built-in pool of 2 threads */
  CC_CUSTOM_2    /* a reverse-order parallel-for announcing 2 threads */
} cc_threads;

/**
 * Runs a concat plan made with `options` on `threads`, writing to an output `misalign` bytes past
 * a 64-byte boundary, and checks the output against the reference, the guards, and that the
 * plan's description holds every word of the NULL-terminated `words` (NULL: none checked). Also
 * runs the plan into allocated outputs with the same exec. Returns the parallel-for calls
 * CC_CUSTOM_2 saw.
 */
int cc_check_plan(const cleave_concat_op *op, const cleave_tensor *inputs, size_t count,
                  const cc_expect *ex, const cleave_plan_options *options, cc_threads threads,
                  size_t misalign, const char *const *words);

/** Options with the given kernel family and thresholds. */
cleave_plan_options cc_options(cleave_kernels_choice family, int64_t nontemporal_bytes,
                               int64_t parallel_bytes, int64_t tiny_bytes);

/** Whether this CPU runs the AVX2 kernel family. */
int cc_have_avx2(void);

/** A small deterministic generator (xorshift64*): a uniform value in [lo, hi]. */
int64_t cc_between(uint64_t *state, int64_t lo, int64_t hi);

#endif /* CLEAVE_CONCAT_CHECK_H */
