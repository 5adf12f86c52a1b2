/*
 * Static shape inference (internal, never installed): the geometry of an operator on a static
 * shape, which every entry point that runs or describes outputs (run/) starts from, for the split
 * family (infer.c) and the concatenating one (concat.c). Partial shapes (partial.c,
 * concat_partial.c) are public only (`cleave_infer_partial`, `cleave_concat_infer_partial`).
 */
#ifndef CLEAVE_INFER_H
#define CLEAVE_INFER_H

#include "core/geometry.h"

/** The one shape-inference routine: validates `op` on (type, shape) and fills `geom`. Every
 * entry point (inference, one-shot runs, plans) goes through it. */
cleave_status cleave_resolve(const cleave_op *op, cleave_type type, const int64_t *shape,
                             size_t rank, cleave_geometry *geom, cleave_error *err);

/** concat.c: the one shape-inference routine of the concatenating family, as `cleave_resolve`:
 * validates `op` on the static `inputs` and fills `geom`, the output cut into the inputs (their
 * lengths read from `inputs`, which must outlive `geom`), and `info`. */
cleave_status cleave_concat_resolve(const cleave_concat_op *op, const cleave_tensor *inputs,
                                    size_t num_inputs, cleave_geometry *geom,
                                    cleave_concat_info *info, cleave_error *err);

/** concat.c: writes the output's shape (`info->output_rank` dims) of a resolved concat. */
void cleave_concat_shape(const cleave_concat_info *info, const cleave_tensor *inputs,
                         int64_t *shape);

#endif /* CLEAVE_INFER_H */
