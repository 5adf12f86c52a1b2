/* An ONNX model loaded for the test runner: the parsed ModelProto, its default-domain opset and
 * the graph's declared input and output types. */
#ifndef CLEAVE_OX_MODEL_H
#define CLEAVE_OX_MODEL_H

#include "error.h"
#include "ox_decode.h"
#include "ox_value.h"

#include <stddef.h>
#include <stdint.h>

/** A loaded model. `proto` is owned; `graph` points into it. */
typedef struct ox_model {
  Onnx__ModelProto *proto;
  const Onnx__GraphProto *graph;
  /** The opset imported for the default domain ("" or "ai.onnx"). */
  int64_t opset;
} ox_model;

/**
 * Reads and parses `path` as a ModelProto and checks the graph's structure: a graph is present,
 * the default domain's opset is imported, every name a node reads is defined before (by a graph
 * input, an initializer or an earlier node), no name is defined twice, every graph output is
 * defined. Returns CLI_EXIT_OK, CLI_EXIT_NOINPUT, CLI_EXIT_DATA or CLI_EXIT_SOFTWARE; on failure
 * `*m` owns nothing.
 */
int ox_model_load(const char *path, ox_model *m, tool_error *err);

/** Releases the model. */
void ox_model_free(ox_model *m);

/** Returns the initializer called `name`, or NULL. */
const Onnx__TensorProto *ox_model_initializer(const ox_model *m, const char *name);

/** Whether graph input i is fed by the test data (it has no initializer of the same name). */
int ox_model_input_is_fed(const ox_model *m, size_t i);

/**
 * The declared type of a graph input or output: a tensor of `*elem_type`, or a sequence of
 * tensors of `*elem_type` (0 when not declared). Returns CLI_EXIT_OK, CLI_EXIT_DATA (no type) or
 * CLI_EXIT_FAIL (a kind the runner does not handle: maps, optionals, sparse tensors). `role`
 * ("input", "output") is used in messages.
 */
int ox_declared_type(const Onnx__ValueInfoProto *vi, const char *role, ox_kind *kind,
                     int32_t *elem_type, tool_error *err);

#endif /* CLEAVE_OX_MODEL_H */
