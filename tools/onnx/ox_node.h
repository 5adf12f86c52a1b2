/* What every kernel of the ONNX test runner checks and reads of its node (ox_ops.h's
 * ox_node_ctx): its attributes, its input and output counts, its tensor and sequence inputs.
 * The checks return CLI_EXIT_OK, or CLI_EXIT_DATA (the node breaks the operator's schema) with a
 * message naming the node. */
#ifndef CLEAVE_OX_NODE_H
#define CLEAVE_OX_NODE_H

#include "error.h"
#include "onnx/onnx.pb-c.h"
#include "ox_ops.h"
#include "ox_value.h"

#include <stddef.h>
#include <stdint.h>

/* AttributeProto.AttributeType values. */
#define OX_ATTR_FLOAT 1
#define OX_ATTR_INT 2
#define OX_ATTR_STRING 3
#define OX_ATTR_TENSOR 4
#define OX_ATTR_FLOATS 6
#define OX_ATTR_INTS 7
#define OX_ATTR_STRINGS 8
#define OX_ATTR_SPARSE_TENSOR 11

/** `s`, or "" for NULL (protobuf-c leaves absent strings NULL). */
const char *ox_str(const char *s);

/** The node's attribute called `name`, or NULL. */
const Onnx__AttributeProto *ox_attr(const ox_node_ctx *c, const char *name);

/** Checks that every attribute of the node is one of `allowed` (NULL-terminated). */
int ox_check_attributes(const ox_node_ctx *c, const char *const *allowed, tool_error *err);

/** Checks the attribute's declared type (OX_ATTR_*, spelled `type_name`), when it declares one. */
int ox_check_attr_type(const ox_node_ctx *c, const Onnx__AttributeProto *a, int type,
                       const char *type_name, tool_error *err);

/** Reads an INT attribute into *value; `*present` says whether the node has it. */
int ox_attr_int(const ox_node_ctx *c, const char *name, int64_t *value, int *present,
                tool_error *err);

/** Checks the node's input and output counts against the operator's ranges. */
int ox_check_arity(const ox_node_ctx *c, size_t min_in, size_t max_in, size_t min_out,
                   size_t max_out, tool_error *err);

/** Returns input i (called `name` in messages) as a tensor in *t: NULL when an optional input is
 * omitted; an omitted required input, or a sequence, is CLI_EXIT_DATA. *t points into the
 * context. */
int ox_input_tensor(const ox_node_ctx *c, size_t i, const char *name, int required,
                    const ox_tensor **t, tool_error *err);

/** Whether node output i has a name (an empty name omits the output). */
int ox_output_named(const ox_node_ctx *c, size_t i);

/** Returns input 0 as a sequence in *seq (CLI_EXIT_DATA when omitted or a tensor). */
int ox_sequence_input(const ox_node_ctx *c, const ox_value **seq, tool_error *err);

/** The sequence operators exist from opset 11: CLI_EXIT_FAIL, naming the opset, below it. */
int ox_check_sequence_version(const ox_node_ctx *c, tool_error *err);

#endif /* CLEAVE_OX_NODE_H */
