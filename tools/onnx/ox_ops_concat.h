/* The joining operators of the ONNX test runner: Concat (versions 1, 4, 11, 13),
 * ConcatFromSequence-11 and SequenceConstruct-11 (which makes the sequences ConcatFromSequence
 * reads). Concat and ConcatFromSequence run through cleave's concat family (cleave_concat_infer,
 * cleave_concat_run), which owns every rule and message; the kernels only read the node. */
#ifndef CLEAVE_OX_OPS_CONCAT_H
#define CLEAVE_OX_OPS_CONCAT_H

#include "error.h"
#include "ox_ops.h"

/** Concat: the node's tensor inputs, in order, joined along its `axis` (absent: Concat-1's
 * default). Returns as an ox_kernel does. */
int ox_run_concat(const ox_node_ctx *c, tool_error *err);

/** ConcatFromSequence: the tensors of its sequence input joined along `axis` (required), or
 * stacked along a new axis with `new_axis` 1. Returns as an ox_kernel does. */
int ox_run_concat_from_sequence(const ox_node_ctx *c, tool_error *err);

/** SequenceConstruct: a sequence of copies of the node's tensor inputs (at least one, of one
 * element type). Returns as an ox_kernel does. */
int ox_run_sequence_construct(const ox_node_ctx *c, tool_error *err);

#endif /* CLEAVE_OX_OPS_CONCAT_H */
