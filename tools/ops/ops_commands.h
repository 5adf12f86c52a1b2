/*
 * The operator commands on .npy files and their companions (tools/ops). Each takes the whole argv
 * and the index of its first own argument, and returns the process exit status (docs/cli.md,
 * "Errors and exit status").
 */
#ifndef CLEAVE_OPS_COMMANDS_H
#define CLEAVE_OPS_COMMANDS_H

/** split, variadic-split, split-to-sequence and onnx-split: runs the operator command named
 * argv[first - 1] (the four differ only in their operator) on a .npy file. */
int cmd_split_file(int argc, char **argv, int first);

/** concat and concat-from-sequence: runs the joining command named argv[first - 1] on .npy
 * files into one output file. */
int cmd_concat_file(int argc, char **argv, int first);

/** infer OP ...: shape inference, static or partial, without data. */
int cmd_infer(int argc, char **argv, int first);

/** demo: the spec examples on built-in data, with a round-trip check. */
int cmd_demo(int argc, char **argv, int first);

struct concat_command;

/** infer concat|concat-from-sequence ...: the joining `command`'s output shape from one --shape
 * per input; argv[first..argc) are the words after the operator. Called by cmd_infer. */
int cmd_infer_concat(const struct concat_command *command, int argc, char **argv, int first);

#endif /* CLEAVE_OPS_COMMANDS_H */
