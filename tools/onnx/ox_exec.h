/* Executing an ONNX graph on one test data set. */
#ifndef CLEAVE_OX_EXEC_H
#define CLEAVE_OX_EXEC_H

#include "error.h"
#include "ox_dataset.h"
#include "ox_model.h"
#include "ox_value.h"

/**
 * Checks that every node uses an operator the runner supports. Returns CLI_EXIT_OK or CLI_EXIT_FAIL
 * naming the first unsupported operator (and its node).
 */
int ox_check_operators(const ox_model *m, tool_error *err);

/**
 * Runs the graph on the inputs of `ds`, writing graph output i to `results[i]` (the caller
 * provides m->graph->n_output zeroed values and frees them). Nodes run in their listed order.
 * Returns CLI_EXIT_OK, CLI_EXIT_DATA, CLI_EXIT_FAIL or CLI_EXIT_SOFTWARE, with a message naming the
 * node.
 */
int ox_run_graph(const ox_model *m, const ox_data_set *ds, ox_value *results, tool_error *err);

#endif /* CLEAVE_OX_EXEC_H */
