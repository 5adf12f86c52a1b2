/* Running one ONNX backend test directory. */
#ifndef CLEAVE_OX_RUNNER_H
#define CLEAVE_OX_RUNNER_H

#include "error.h"

/**
 * Runs the backend test in `dir`: loads model.onnx and every test_data_set_*, checks that the
 * graph only uses supported operators, runs it on each data set and compares every output with
 * the expected one exactly. Returns CLI_EXIT_OK or the failure's status (CLI_EXIT_* of
 * tools/common/error.h) with a message saying why.
 */
int ox_run_test_dir(const char *dir, tool_error *err);

#endif /* CLEAVE_OX_RUNNER_H */
