/* The test data sets of an ONNX backend test directory: test_data_set_N/input_K.pb and
 * output_K.pb, decoded by the graph's declared input and output types. */
#ifndef CLEAVE_OX_DATASET_H
#define CLEAVE_OX_DATASET_H

#include "error.h"
#include "ox_model.h"
#include "ox_value.h"

#include <stddef.h>

/** One test data set. Everything is owned; `inputs` and `outputs` may point into `messages`. */
typedef struct ox_data_set {
  /** The directory name, e.g. "test_data_set_0". */
  char *name;
  /** One entry per graph input: inputs[i] is graph input i's value when fed[i] is set (graph
   * inputs with an initializer are not fed by the data set). */
  ox_value *inputs;
  int *fed;
  size_t n_inputs;
  /** One expected value per graph output. */
  ox_value *outputs;
  size_t n_outputs;
  /** The parsed messages the values' strings point into. */
  ProtobufCMessage **messages;
  size_t n_messages;
} ox_data_set;

/**
 * Finds the test_data_set_* directories of `dir` (in numeric order) and loads each one: input
 * file K feeds the K-th graph input without an initializer, output file K is the expected value
 * of graph output K, each parsed as a TensorProto or SequenceProto by the declared type. A
 * non-empty name in a file must equal the graph's name for it.
 * Returns CLI_EXIT_OK, CLI_EXIT_NOINPUT, CLI_EXIT_DATA (no data set, missing or extra files, bad
 * messages), CLI_EXIT_FAIL (unsupported types) or CLI_EXIT_SOFTWARE. On failure nothing is left
 * allocated.
 */
int ox_data_sets_load(const char *dir, const ox_model *m, ox_data_set **sets, size_t *count,
                      tool_error *err);

/** Releases `count` data sets and the array. */
void ox_data_sets_free(ox_data_set *sets, size_t count);

#endif /* CLEAVE_OX_DATASET_H */
