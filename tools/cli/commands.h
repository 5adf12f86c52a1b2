/*
 * The entry points of every command family that the command table (main.c) names; each has the
 * signature of cli_handler (cli.h).
 */
#ifndef CLEAVE_CLI_COMMANDS_H
#define CLEAVE_CLI_COMMANDS_H

#include "ops_commands.h"

#ifdef CLEAVE_HAVE_OPENVINO
#include "ir_commands.h"
#endif
#ifdef CLEAVE_HAVE_ONNX
#include "cmd_onnx_test.h"
#endif

/** st ls|check|split|shard: safetensors checkpoints (tools/safetensors). */
int cmd_st(int argc, char **argv, int first);

/** gguf ls|check|split|shard|merge: GGUF files (tools/gguf). */
int cmd_gguf(int argc, char **argv, int first);

#endif /* CLEAVE_CLI_COMMANDS_H */
