/*
 * The commands of the cleave executable. Each takes the whole argv and the index of its first
 * own argument, and returns the process exit status (docs/cli.md, "Errors and exit status").
 */
#ifndef CLEAVE_CLI_COMMANDS_H
#define CLEAVE_CLI_COMMANDS_H

#include "help.h"
#include "op_options.h"

/** split, variadic-split, split-to-sequence, onnx-split: runs `command` on a .npy file. */
int cmd_split_file(const op_command *command, int argc, char **argv, int first);

/** infer OP ...: static shape inference. */
int cmd_infer(int argc, char **argv, int first);

/** demo: the spec examples on built-in data, with a round-trip check. */
int cmd_demo(int argc, char **argv, int first);

/** st ls|check|split|shard: safetensors checkpoints (tools/safetensors). */
int cmd_st(int argc, char **argv, int first);

#endif /* CLEAVE_CLI_COMMANDS_H */
