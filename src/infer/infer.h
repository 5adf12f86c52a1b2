/*
 * Static shape inference (internal, never installed): the geometry of an operator on a static
 * shape, which every entry point that runs or describes outputs (run/) starts from. Partial
 * shapes (partial.c) are public only (`cleave_infer_partial`).
 */
#ifndef CLEAVE_INFER_H
#define CLEAVE_INFER_H

#include "core/geometry.h"

/** The one shape-inference routine: validates `op` on (type, shape) and fills `geom`. Every
 * entry point (inference, one-shot runs, plans) goes through it. */
cleave_status cleave_resolve(const cleave_op *op, cleave_type type, const int64_t *shape,
                             size_t rank, cleave_geometry *geom, cleave_error *err);

#endif /* CLEAVE_INFER_H */
