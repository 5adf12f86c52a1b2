/*
 * Cutting one tensor into parts: an optional view (a reshape), an axis, and either a number of
 * equal parts (OpenVINO Split-1) or their lengths (VariadicSplit-1, one of which may be -1). The
 * split rules are the library's (cleave_infer), so that a checkpoint rule is refused exactly as
 * the operator would refuse it; the byte boundaries of sub-byte types and the blocks of
 * block-quantized types are checked here. A part is described in bytes of the tensor's rows.
 */
#ifndef CLEAVE_CKPT_CUT_H
#define CLEAVE_CKPT_CUT_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "error.h"

/** One cut of a tensor. Plain data; `lengths` is the caller's. */
typedef struct ckpt_cut {
  /** A view: the tensor seen with shape view[0..view_ndim), one entry of which may be -1. */
  int has_view;
  int view_ndim;
  int64_t view[CKPT_MAX_RANK];
  /** The axis of the (viewed) shape; negative counts from the end, as the operators do. */
  int64_t axis;
  /** Split-1 into `parts` equal parts when has_parts, else VariadicSplit-1 into `lengths`. */
  int has_parts;
  int64_t parts;
  int64_t *lengths;
  int64_t length_count;
} ckpt_cut;

/** The most ranges one slice holds: a fused tensor's q, k and v. */
#define CKPT_SLICE_MAX 3

/**
 * Where a piece lies in the whole tensor it is cut from, for reports (--dry-run): the elements
 * [begin[i], end[i]) of the `dim` along `axis` of the tensor, or of its view when view_ndim > 0
 * (the view resolved), for each of `count` ranges in order. count 0: the whole tensor.
 */
typedef struct ckpt_slice {
  int count;
  int axis;
  int64_t dim;
  int64_t begin[CKPT_SLICE_MAX], end[CKPT_SLICE_MAX];
  int view_ndim;
  int64_t view[CKPT_MAX_RANK];
} ckpt_slice;

/**
 * One part of a cut tensor: from each of `rows` rows of `row_bytes` bytes (the tensor's data in
 * C order, cut before the axis), the `take` bytes at byte `col` of the row; and the part's shape.
 */
typedef struct ckpt_part {
  int ndim;
  int64_t shape[CKPT_MAX_RANK];
  uint64_t rows, row_bytes, col, take;
  /** Where it lies in the tensor, along the cut's axis. */
  ckpt_slice slice;
} ckpt_part;

/**
 * Cuts tensor `t` of the file at `path` (for messages): stores `*count` parts in `*parts`
 * (malloc'd; the caller frees it). Checks the view (the element count must not change; a block
 * type keeps whole blocks in its innermost dimension), the split rule (the library's message),
 * and that every part starts and ends on a byte boundary, and on a block boundary, in every row.
 * A part's shape is the viewed shape with the axis cut, folded back to the tensor's trailing
 * dimensions when they divide it. Returns 0, or the exit status of the rule broken (CLI_EXIT_DATA
 * for a rule of the input, CLI_EXIT_USAGE for an attribute outside its set) or CLI_EXIT_SOFTWARE,
 * with a message that starts with the file, the tensor, its dtype and shape (and the view).
 */
int ckpt_cut_tensor(const ckpt_cut *cut, const ckpt_tensor *t, const char *path, ckpt_part **parts,
                    size_t *count, tool_error *err);

/** Parses "D0,D1,..." or "[D0,D1,...]" (sizes >= 0, one of them may be -1) into `cut`'s view.
 * Returns 0, or -1 when `text` is not such a shape. */
int ckpt_parse_view(const char *text, ckpt_cut *cut);

#endif /* CLEAVE_CKPT_CUT_H */
