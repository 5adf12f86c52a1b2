/* The operators the ONNX test runner executes: Split, SplitToSequence, SequenceAt,
 * SequenceLength and Constant (which feeds a Split its lengths) here, Concat, ConcatFromSequence
 * and SequenceConstruct in ox_ops_concat.h. The splits and the joins run through cleave's public
 * API. */
#ifndef CLEAVE_OX_OPS_H
#define CLEAVE_OX_OPS_H

#include "error.h"
#include "onnx/onnx.pb-c.h"
#include "ox_value.h"

#include <stddef.h>
#include <stdint.h>

/** What a kernel sees of one node. */
typedef struct ox_node_ctx {
  const Onnx__NodeProto *node;
  /** "node 'name' (Split-13)", for messages. */
  const char *label;
  /** The model's default-domain opset. */
  int64_t opset;
  /** The operator version in force at `opset` (0 when below the first version). */
  int version;
  /** One entry per node input; NULL for an omitted optional input (empty name). */
  const ox_value *const *inputs;
  size_t n_inputs;
  /** One zeroed value per node output, which the kernel fills. */
  ox_value *outputs;
  size_t n_outputs;
} ox_node_ctx;

/** A kernel: returns CLI_EXIT_OK, CLI_EXIT_DATA (the node breaks the operator's schema: arity,
 * attributes), CLI_EXIT_FAIL (the operator rejects its inputs) or CLI_EXIT_SOFTWARE. */
typedef int (*ox_kernel)(const ox_node_ctx *ctx, tool_error *err);

/** An operator of the default ONNX domain the runner knows, with its versions (ascending,
 * 0-terminated). */
typedef struct ox_op {
  const char *op_type;
  const int *versions;
  ox_kernel run;
} ox_op;

/** Returns the operator for (domain, op_type), or NULL if the runner does not support it. */
const ox_op *ox_op_find(const char *domain, const char *op_type);

/** Returns the version of `op` in force at `opset`: the largest not above it, or 0. */
int ox_op_version(const ox_op *op, int64_t opset);

#endif /* CLEAVE_OX_OPS_H */
