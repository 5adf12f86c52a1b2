/*
 * Joining the parts of one tensor that the ranks of a sharded checkpoint hold (merge, reshard):
 * OpenVINO Concat-1's rules on the ranks' parts (one dtype, one number of dimensions, equal
 * dimensions but on the axis), the same on their views when a --view rule applies, the merged
 * tensor's shape, and which bytes of which rank each column range of the merged tensor is.
 *
 * A view joins what a shard cut: the parts are viewed as the view with its axis entry given by
 * each part (or divided among the ranks, when the view's -1 is elsewhere), and the merged tensor
 * is folded back to the parts' trailing dimensions when they divide it, as a cut folds each part
 * back to the tensor's (ckpt_cut.h): a shard then a merge with the same rules restores the
 * tensor whenever the shard folded its parts.
 */
#ifndef CLEAVE_CKPT_CONCAT_H
#define CLEAVE_CKPT_CONCAT_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_cut.h"
#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "error.h"

/** A tensor joined from the ranks' parts. Free with ckpt_concat_free. */
typedef struct ckpt_concat {
  /** The merged tensor, as a tensor of no file (ckpt_cut_tensor can cut it): rank 0's name and
   * dtype, the merged shape (in `shape`), its bytes; `file` is rank 0's, `offset` 0. */
  ckpt_tensor merged;
  int64_t shape[CKPT_MAX_RANK];
  /** Its data as `rows` rows of `row_bytes` bytes (the rows run over the dimensions before the
   * axis, of the view when there is one). */
  uint64_t rows, row_bytes;
  /** The parts (borrowed): part r is the columns [col[r], col[r] + width[r]) of every row, stored
   * in its file as `rows` rows of width[r] bytes from parts[r]->offset. */
  size_t count;
  const ckpt_tensor *const *parts;
  uint64_t *col, *width;
} ckpt_concat;

/**
 * Joins `parts` (count >= 1, in rank order; part r is in the file of rank r of `m`, for
 * messages) along `axis` of their shapes, or of `view`'s shape when `view` is not NULL (its
 * view fields only). Returns 0, or with the message in `err` (naming the tensor, the rank and its
 * file, the dimension): CLI_EXIT_DATA when the parts' dtypes, numbers of dimensions or other
 * dimensions differ, the axis is out of range, a part cannot be viewed so, the view's axis size
 * is not what the parts hold, a part's rows do not hold whole bytes or whole blocks, or the
 * merged size overflows; CLI_EXIT_SOFTWARE. Free `c` in either case.
 */
int ckpt_concat_prepare(const ckpt_model *m, const ckpt_tensor *const *parts, size_t count,
                        const ckpt_cut *view, int64_t axis, ckpt_concat *c, tool_error *err);

/**
 * The spans that copy columns [col, col + take) of every row of the merged tensor from the parts
 * that hold them into an output of rows of `take` bytes: at most c->count spans, stored in
 * `spans`; returns their count. A span of one row, or of whole rows on both sides, is one
 * contiguous range.
 */
size_t ckpt_concat_spans(const ckpt_concat *c, uint64_t col, uint64_t take, ckpt_span *spans);

/** Releases what `c` holds and zeroes it. */
void ckpt_concat_free(ckpt_concat *c);

#endif /* CLEAVE_CKPT_CONCAT_H */
