/*
 * Shared helpers of the unit tests: the element types under test, input byte patterns, the naive
 * reference split, and checkers that drive every entry point of the API (cleave_infer, cleave_run,
 * the one-shot calls and plans) for one operator description.
 *
 * Everything here is written independently of the library: element sizes, expected lengths and
 * expected bytes never come from the code under test.
 */
#ifndef CLEAVE_TEST_UTIL_H
#define CLEAVE_TEST_UTIL_H

/* cmocka needs these before its own header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cleave.h"

/** The largest rank the helpers handle. */
#define TU_MAX_RANK 8

/** The byte every output buffer is filled with before a call, to see what was written. */
#define TU_SENTINEL 0xA5

/** Bytes of guard after every output buffer (filled with TU_SENTINEL, checked after a call). */
#define TU_GUARD 32

/** One element type under test, with a printable label such as "bytes3". */
typedef struct tu_type_case {
  const char *label;
  cleave_type type;
} tu_type_case;

/** Every element type of the API (bytes with widths 1, 3, 7; unicode with widths 1, 5). */
extern const tu_type_case tu_types[];
/** The number of entries of `tu_types`. */
extern const size_t tu_num_types;

/** The size in bytes of one element of `type`, from the test's own table (not the library's). */
size_t tu_elem_size(cleave_type type);

/** Whether ONNX Split at operator version 1, 2, 11, 13 or 18 accepts `dtype` (docs/operators.md
 * section 5). */
int tu_onnx_split_accepts(int64_t version, cleave_dtype dtype);

/** Whether ONNX SplitToSequence at operator version 11 or 24 accepts `dtype` (docs/operators.md
 * sections 4, 5). */
int tu_sequence_accepts(int64_t version, cleave_dtype dtype);

/** The name messages use for `type` (docs/operators.md section 7): "S3"/"U5" for bytes/unicode,
 * else the dtype name from the test's own table. Returns `buf`. */
const char *tu_type_text(cleave_type type, char *buf, size_t size);

/** The product of `shape[0..rank)` (small shapes only: no overflow check). */
int64_t tu_count(const int64_t *shape, size_t rank);

/** Formats a shape as "[2,3,4]" into `buf` and returns `buf`. */
const char *tu_shape_text(const int64_t *shape, size_t rank, char *buf, size_t size);

/** Sets the context printed when a TU_CHECK fails (printf-style). */
void tu_context(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/** Prints the current context and fails the running cmocka test. */
void tu_fail(const char *what, const char *file, int line);

/** Fails the running test, printing the context, when `cond` is false. */
#define TU_CHECK(cond)                                                                             \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      tu_fail(#cond, __FILE__, __LINE__);                                                          \
    }                                                                                              \
  } while (0)

/**
 * A test-owned input tensor. Non-string data is filled with a pattern that gives every element
 * distinct leading bytes; string data is an array of handles into `pool`, each with its own
 * address and size.
 */
typedef struct tu_input {
  cleave_tensor tensor;
  int64_t shape[TU_MAX_RANK];
  unsigned char *bytes;
  size_t nbytes;
  char *pool;
} tu_input;

/** Builds an input of `type` and `shape` (small shapes only); `seed` varies the pattern. */
void tu_input_make(tu_input *in, cleave_type type, const int64_t *shape, size_t rank,
                   unsigned seed);

/** Releases what `tu_input_make` allocated. */
void tu_input_free(tu_input *in);

/**
 * Output buffers of given sizes, each followed by guard bytes, all filled with TU_SENTINEL.
 * A size-0 buffer is still a valid (guard-only) pointer.
 */
typedef struct tu_outputs {
  size_t count;
  unsigned char **buffers;
  size_t *sizes;
} tu_outputs;

/** Allocates `count` sentinel-filled buffers of `sizes[i]` bytes (sizes may be NULL: `each`). */
void tu_outputs_make(tu_outputs *out, size_t count, const size_t *sizes, size_t each);

/** Returns 1 when every byte of every buffer, guards included, still holds TU_SENTINEL. */
int tu_outputs_untouched(const tu_outputs *out);

/** Releases the buffers. */
void tu_outputs_free(tu_outputs *out);

/**
 * The naive reference: writes to `out` the elements of `in` (shape[0..rank), `esize` bytes each)
 * whose index on `axis` lies in [offset, offset + len), in row-major order, by walking the full
 * N-d index of every output element.
 */
void tu_reference_chunk(const unsigned char *in, const int64_t *shape, size_t rank, size_t axis,
                        int64_t offset, int64_t len, size_t esize, unsigned char *out);

/** What a successful split must produce, stated by the test. */
typedef struct tu_expect {
  size_t axis;            /* normalised axis */
  size_t num_outputs;     /* may be 0 */
  const int64_t *lengths; /* per-output length on axis */
  int axis_removed;       /* SplitToSequence keepdims 0 without split */
} tu_expect;

/**
 * Checks a valid operator through every entry point: cleave_infer (with and without a lengths
 * array), cleave_run, the matching one-shot call when the op is expressible with it, and a plan
 * (accessors, and several runs with different data pointers). Every output is compared with the
 * naive reference, and guard bytes must stay untouched.
 */
void tu_check_success(const cleave_op *op, const tu_input *in, const tu_expect *expect);

/**
 * The inverse property (test_inverse.c): joins the outputs of a successful split (`outputs`, as
 * `ex` describes them) with OpenVINO Concat-1, and with the ONNX inverse where it takes the type
 * (ONNX Concat at the split's opset; ConcatFromSequence, with new_axis 1 when the axis was
 * removed), one-shot and through a plan, and checks that each gives the input back byte for byte.
 * `tu_check_success` calls it for every split it checks.
 */
void tu_check_inverse(const cleave_op *op, const tu_input *in, const tu_expect *ex,
                      unsigned char *const *outputs);

/**
 * Checks an invalid operator through every entry point: each must return `status`, fill the
 * error with the same status and a message containing every string of the NULL-terminated
 * `needles`, and write nothing (lengths array, plan pointer, output buffers). `num_outputs` is
 * the output count passed to cleave_run and the one-shot call.
 */
void tu_check_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                    size_t num_outputs, cleave_status status, const char *const *needles);

/** Like tu_check_error, for an op that is valid (inference and plans succeed) but whose run
 * fails, e.g. for a wrong output count: checks cleave_run and the one-shot call only. */
void tu_check_run_error(const cleave_op *op, cleave_type type, const int64_t *shape, size_t rank,
                        size_t num_outputs, cleave_status status, const char *const *needles);

/**
 * Returns 1 when `needle` occurs in `message`. A needle that starts with a digit or '-' is a
 * number and must stand alone: no digit right before or after it, and no '-' before a positive
 * number.
 */
int tu_message_has(const char *message, const char *needle);

/**
 * Runs the one-shot call matching `op` (cleave_split, cleave_variadic_split,
 * cleave_split_to_sequence, cleave_onnx_split). Sets `*ran` to 0, returning CLEAVE_OK, when the
 * op cannot be expressed with the one-shot signature (a non-int64 axis, a [1] axis, or an ONNX
 * Split output count other than the one the one-shot call derives from `num_outputs`).
 */
cleave_status tu_run_oneshot(const cleave_op *op, const cleave_tensor *input, void *const *outputs,
                             size_t num_outputs, cleave_error *err, int *ran);

/** An int64 scalar `cleave_values` holding `n` (-64 <= n <= 4096), in static storage that
 * outlives every use: for `cleave_op.num_outputs` in ops that tests copy around. */
cleave_values tu_count_value(int64_t n);

/** Stores `value` in `*dst` as an integer of type `dtype` (I8..U64), native byte order. */
void tu_store_int(cleave_dtype dtype, int64_t value, void *dst);

/** The size in bytes of integer type `dtype` (I8..U64). */
size_t tu_int_size(cleave_dtype dtype);

/** Runs a cmocka group whose tests were built at run time. Returns the failure count. */
int tu_run_group(const char *name, const struct CMUnitTest *tests, size_t count);

#endif /* CLEAVE_TEST_UTIL_H */
