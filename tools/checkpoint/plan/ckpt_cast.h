/*
 * --outtype: a plan's output tensors converted to one float type. Every tensor of F32, F16, BF16
 * or F64 becomes the target type (rounded by the library's cleave_cast: nearest even, overflow to
 * infinity, NaN kept); an FP8 e4m3 weight with a `_scale_inv` companion is dequantized to it
 * (cleave_dequantize_fp8_blocks: e4m3 times its block's scale in float32, then rounded) and the
 * scale is dropped; every other tensor (integers, block-quantized types, other FP8 types, FP8
 * without a scale) is written as it is. The plan keeps the spans in the input's bytes and marks
 * the tensor (ckpt_out_tensor.cast_from); the writer converts in its pass.
 */
#ifndef CLEAVE_CKPT_CAST_H
#define CLEAVE_CKPT_CAST_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "ckpt_plan.h"
#include "error.h"

/** A plan's conversion: the target dtype (the format's, e.g. its BF16) and the model planned
 * from (for the FP8 weights' scales). */
typedef struct ckpt_cast {
  const ckpt_dtype *to;
  const ckpt_model *model;
} ckpt_cast;

/** Whether `lib` is a float type --outtype converts (f32, f16, bf16, f64). */
int ckpt_cast_float(cleave_dtype lib);

/**
 * Applies `cast` (NULL or without `to`: nothing) to the tensors of `f` not converted yet: each
 * float tensor of another type than the target marked and resized, each scale of an FP8 weight
 * removed, each FP8 weight with a scale marked for dequantization (which needs the block size:
 * CLI_EXIT_DATA naming the weight, its scale and where the block size comes from, when the
 * model does not know it). Idempotent. Returns 0 or an exit status with the message in `err`.
 */
int ckpt_cast_file(const ckpt_cast *cast, ckpt_out_file *f, tool_error *err);

/**
 * The FP8 weight of `model` that holds input byte `offset` of file `file`, and its scale (the
 * weight's name with CKPT_SCALE_SUFFIX, in the same file): 0, or -1 when there is none.
 */
int ckpt_cast_weight_at(const ckpt_model *model, size_t file, uint64_t offset,
                        const ckpt_tensor **weight, const ckpt_tensor **scale);

#endif /* CLEAVE_CKPT_CAST_H */
