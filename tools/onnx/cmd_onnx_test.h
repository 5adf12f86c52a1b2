/* `cleave onnx-test`: runs ONNX backend test directories with cleave. Built only with
 * CLEAVE_WITH_ONNX (it needs protobuf-c). */
#ifndef CLEAVE_CMD_ONNX_TEST_H
#define CLEAVE_CMD_ONNX_TEST_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The `onnx-test` command, with the argv convention of every cleave command: its arguments are
 * argv[first..argc) (argv[first - 1] is "onnx-test"): `[-q|--quiet] DIR...`, or `-h|--help`.
 * Options may come anywhere before a `--`; every other argument is a test directory.
 *
 * Prints one line per directory on stdout, `PASS DIR` or `FAIL DIR: why`, and returns the exit
 * status: 0 when every directory passes; 64 for a malformed command line; otherwise, of the
 * failures, the first that applies of 66 (a file or directory cannot be opened or read), 65 (a
 * malformed protobuf file, model or test data set), 70 (internal error, e.g. out of memory) and
 * 1 (a test fails: unsupported operator or type, an operator rule broken, an output differs).
 * Usage errors go to stderr as `cleave: error: ...`. Not thread-safe (it writes to stdout).
 */
int cmd_onnx_test(int argc, char **argv, int first);

#ifdef __cplusplus
}
#endif

#endif /* CLEAVE_CMD_ONNX_TEST_H */
