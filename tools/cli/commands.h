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

#ifdef CLEAVE_HAVE_CHECKPOINT
/* The checkpoint commands (tools/checkpoint/commands) and the formats they pin. */
#include "ckpt_commands.h"
#include "gguf_driver.h"
#include "st_driver.h"
#endif

#endif /* CLEAVE_CLI_COMMANDS_H */
