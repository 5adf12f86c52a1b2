/*
 * Helpers of the hand-written partial-shape tests: one inference printed as `cleave infer` prints
 * it (docs/cli.md), and expectations on that text or on an error (status, message, nothing
 * written). Written independently of the library's own formatting of outputs.
 */
#ifndef CLEAVE_PARTIAL_EXPECT_H
#define CLEAVE_PARTIAL_EXPECT_H

/* cmocka needs these before its own header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cleave.h"

/** Output dims an inference may write; bytes of a printed outcome. */
enum { PT_MAX_DIMS = 4096, PT_TEXT_SIZE = 8192 };

/** The result of one inference, printed as `cleave infer` prints it: one shape per line, or
 * "COUNT x ELEMENT" when the count varies; "" for an empty sequence. */
typedef struct pt_outcome {
  cleave_status status;
  cleave_partial_info info;
  char text[PT_TEXT_SIZE];
  char message[CLEAVE_MESSAGE_SIZE];
} pt_outcome;

/** Parses `shape_text` (asserting it parses), infers `op` on it with `unknown` and data type
 * `dtype`, and prints the outputs (or keeps the error message). */
pt_outcome pt_infer_as(const cleave_op *op, unsigned unknown, cleave_dtype dtype,
                       const char *shape_text);

/** `pt_infer_as` on f32 data. */
pt_outcome pt_infer(const cleave_op *op, unsigned unknown, const char *shape_text);

/** Asserts that the inference succeeds and prints exactly `want`. */
void pt_expect_text(const cleave_op *op, unsigned unknown, const char *shape_text,
                    const char *want);

/** Asserts failure with `status` and a message holding every needle of the NULL-terminated
 * `needles`; no output dim written. */
void pt_expect_error(const cleave_op *op, unsigned unknown, const char *shape_text,
                     cleave_status status, const char *const *needles);

/** `line` repeated n times, joined by newlines (a static buffer, valid until the next call). */
const char *pt_repeat(const char *line, int n);

/** SplitToSequence-24 on `axis`, with the scalar `split` when it is not NULL. */
cleave_op pt_sequence(const int64_t *axis, const int64_t *split);

#endif /* CLEAVE_PARTIAL_EXPECT_H */
