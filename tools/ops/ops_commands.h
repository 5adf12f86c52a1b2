/*
 * The operator commands on .npy files and their companions (tools/ops). Each takes the whole argv
 * and the index of its first own argument, and returns the process exit status (docs/cli.md,
 * "Errors and exit status").
 */
#ifndef CLEAVE_OPS_COMMANDS_H
#define CLEAVE_OPS_COMMANDS_H

/** split, variadic-split, split-to-sequence, onnx-split, concat and concat-from-sequence: runs
 * the operator command named argv[first - 1] (an entry of the table of operators,
 * op_commands.h) on .npy files. */
int cmd_op_file(int argc, char **argv, int first);

/** infer OP ...: shape inference, static or partial, without data. */
int cmd_infer(int argc, char **argv, int first);

/** demo: the spec examples on built-in data, with a round-trip check. */
int cmd_demo(int argc, char **argv, int first);

#endif /* CLEAVE_OPS_COMMANDS_H */
