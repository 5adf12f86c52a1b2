/*
 * The differences `verify` finds (ckpt_manifest_verify.h), gathered while it reads and printed
 * at the end, so that an error found later (a malformed manifest entry) leaves stdout empty.
 */
#ifndef CLEAVE_CKPT_VERIFY_REPORT_H
#define CLEAVE_CKPT_VERIFY_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** One difference: in `file`, in `tensor` (NULL: outside any), at file byte `file_offset` and
 * tensor byte `tensor_offset` (-1: no single byte is known). */
typedef struct ckpt_difference {
  char *file, *tensor, *problem;
  int64_t file_offset, tensor_offset;
} ckpt_difference;

typedef struct ckpt_differences {
  size_t count, cap;
  ckpt_difference *items;
  /** An allocation failed: the run fails with CLI_EXIT_SOFTWARE. */
  int oom;
} ckpt_differences;

/** Adds a difference (the strings are copied; the problem formatted). */
void ckpt_diff_add(ckpt_differences *d, const char *file, const char *tensor, int64_t file_offset,
                   int64_t tensor_offset, const char *format, ...) TOOL_PRINTF(6, 7);

/** Moves the differences of `from` to the end of `d` (in their order); `from` is left empty. On
 * an allocation failure `d` is marked oom. */
void ckpt_diff_append(ckpt_differences *d, ckpt_differences *from);

/** What was verified, for the summary. */
typedef struct ckpt_verify_totals {
  const char *cmd, *outdir;
  size_t files, tensors, against;
  uint64_t bytes;
} ckpt_verify_totals;

/** Prints the differences and the summary (text or JSON, `quiet` prints only differences).
 * Returns 0 (none), 1 (some), or CLI_EXIT_IOERR (stdout failed, reported). */
int ckpt_diff_print(const ckpt_differences *d, const ckpt_verify_totals *t, int json, int quiet);

/** Releases the differences and zeroes them. */
void ckpt_diff_free(ckpt_differences *d);

#endif /* CLEAVE_CKPT_VERIFY_REPORT_H */
