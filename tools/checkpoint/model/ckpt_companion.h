/*
 * Quantization companions: the FP8 block scales that travel with their weights. A checkpoint
 * quantized in blocks (DeepSeek-V3, Qwen3 FP8: quantization_config.weight_block_size [B0, B1])
 * stores beside a weight `X` of shape [..., OUT, IN] its scale `X_scale_inv` of shape
 * [..., ceil(OUT/B0), ceil(IN/B1)]: one scale per block of B0 rows and B1 columns. A cut of the
 * weight is a cut of its blocks: the scale is cut with it (the same axis, its lengths counted in
 * blocks), and a cut that would start inside a block is refused, since no rank could hold the
 * scale of a block it holds only part of.
 *
 * The planners (split, shard, merge, reshard) ask ckpt_companion_weight whether a tensor is a
 * scale; if so it is planned from its weight's rule, never from its own.
 */
#ifndef CLEAVE_CKPT_COMPANION_H
#define CLEAVE_CKPT_COMPANION_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_cut.h"
#include "ckpt_model.h"
#include "error.h"

/** The name of a weight's scale is the weight's name followed by this. */
#define CKPT_SCALE_SUFFIX "_scale_inv"

/**
 * The weight whose scale `t` is: the tensor of m named as t without CKPT_SCALE_SUFFIX (the first
 * of that name, i.e. rank 0's in a model of ranks), with its position in m->by_name in `*index`;
 * NULL when t's name does not end in the suffix or no such tensor exists (t is then an ordinary
 * tensor).
 */
const ckpt_tensor *ckpt_companion_weight(const ckpt_model *m, const ckpt_tensor *t, size_t *index);

/**
 * Checks that scale `s` has the shape its weight `w` needs in blocks of q->block (w's leading
 * dimensions, then ceil(OUT/B0), ceil(IN/B1)). `where` names the place for the message (a file,
 * "rank 1 ('r.safetensors')"). Returns 0 (also when the block size is not known: nothing to
 * check), or CLI_EXIT_DATA naming both tensors, their shapes, the block size and the shape
 * needed.
 */
int ckpt_companion_check(const ckpt_quant *q, const ckpt_tensor *w, const ckpt_tensor *s,
                         const char *where, tool_error *err);

/**
 * The cut of scale `s` that goes with the cut `wcut` of its weight `w` (already accepted by
 * ckpt_cut_tensor): the same axis, lengths in blocks (VariadicSplit-1), and, when wcut has a
 * view, the view of the scale in blocks. Checks that the block size is known unless the cut is
 * of a leading dimension without a view (s's shape is the caller's to check:
 * ckpt_companion_check), that the view keeps whole blocks (its innermost
 * dimension is IN and the one before it holds whole blocks of rows) and that every part starts on a
 * block boundary of the cut axis (or at its end). Stores the cut in `*scut`, whose lengths are
 * malloc'd (free them with ckpt_companion_cut_free). Returns 0 or, with a message starting with
 * `where` and naming the weight, its scale and the block size, CLI_EXIT_DATA or CLI_EXIT_SOFTWARE.
 */
int ckpt_companion_cut(const ckpt_quant *q, const ckpt_tensor *w, const ckpt_tensor *s,
                       const ckpt_cut *wcut, const char *where, ckpt_cut *scut, tool_error *err);

/**
 * The cut of `merged` (a weight joined from `count` parts along `axis` of `view`'s shape, or of
 * its own shape when `view` is NULL) that gives back those parts: VariadicSplit-1 with each
 * part's extent on the axis, lengths malloc'd into `*wcut` (free with ckpt_companion_cut_free).
 * Returns 0 or CLI_EXIT_SOFTWARE; the join (ckpt_concat_prepare) has checked the rest.
 */
int ckpt_companion_join_cut(const ckpt_tensor *merged, const ckpt_tensor *const *parts,
                            size_t count, const ckpt_cut *view, int64_t axis, ckpt_cut *wcut,
                            tool_error *err);

/** Releases the lengths of a cut made above and zeroes them. */
void ckpt_companion_cut_free(ckpt_cut *cut);

#endif /* CLEAVE_CKPT_COMPANION_H */
