/* The cleave command: dispatch to the commands. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

#ifdef CLEAVE_HAVE_ONNX
#include "onnx/onnx_test.h"
#endif
#ifdef CLEAVE_HAVE_OPENVINO
#include "openvino/ir_commands.h"
#endif

static int onnx_test(int argc, char **argv) {
#ifdef CLEAVE_HAVE_ONNX
  return cleave_onnx_test_main(argc, argv);
#else
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    help_print("onnx-test", stdout);
    return 0;
  }
  return cli_error(CLI_EXIT_SOFTWARE,
                   "this build has no ONNX support (configure with -DCLEAVE_WITH_ONNX=ON)");
#endif
}

/* ir-check and ir-run: the OpenVINO IR commands, when the build has expat. */
static int ir_command(const char *command, int argc, char **argv) {
#ifdef CLEAVE_HAVE_OPENVINO
  return strcmp(command, "ir-check") == 0 ? cmd_ir_check(argc, argv, 2) : cmd_ir_run(argc, argv, 2);
#else
  (void)argc;
  (void)argv;
  return cli_error(CLI_EXIT_SOFTWARE,
                   "%s: this build has no OpenVINO IR support (install libexpat1-dev and rebuild)",
                   command);
#endif
}

/* st: the safetensors commands, when the build has jansson. */
static int st_command(int argc, char **argv) {
#ifdef CLEAVE_HAVE_SAFETENSORS
  return cmd_st(argc, argv, 2);
#else
  (void)argc;
  (void)argv;
  return cli_error(
      CLI_EXIT_SOFTWARE,
      "st: this build has no safetensors support (install libjansson-dev and rebuild)");
#endif
}

int main(int argc, char **argv) {
  if (argc < 2) {
    help_print(NULL, stderr);
    return cli_error(CLI_EXIT_USAGE, "a command is missing");
  }
  const char *command = argv[1];
  bool is_help = strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0;
  if ((is_help || strcmp(command, "--version") == 0) && argc > 2) {
    return cli_error(CLI_EXIT_USAGE, "%s: unexpected argument '%s'", command, argv[2]);
  }
  if (is_help) {
    help_print(NULL, stdout);
    return 0;
  }
  if (strcmp(command, "--version") == 0) {
    /* The command's own version (the project's, fixed at build time), then the library's as
     * linked (they differ only when the command runs against another libcleave). */
    printf("cleave %s (libcleave %s)\n", CLEAVE_CLI_VERSION, cleave_version_string());
    return fflush(stdout) == 0 ? 0 : CLI_EXIT_IOERR;
  }
  if (strcmp(command, "help") == 0) {
    if (argc == 4 && strcmp(argv[2], "st") == 0) {
      /* "cleave help st split": the st subcommands' help. */
      char name[64];
      snprintf(name, sizeof name, "st %s", argv[3]);
      if (help_print(name, stdout) != 0) {
        return cli_error(CLI_EXIT_USAGE, "help: unknown command 'st %s'", argv[3]);
      }
      return 0;
    }
    if (argc > 3) {
      return cli_error(CLI_EXIT_USAGE, "help: unexpected argument '%s'", argv[3]);
    }
    if (argc == 3 && strcmp(argv[2], "onnx-test") == 0) {
      /* The runner documents itself when it is built in. */
      char *help_argv[] = {argv[2], (char *)"--help", NULL};
      return onnx_test(2, help_argv);
    }
    if (help_print(argc == 3 ? argv[2] : NULL, stdout) != 0) {
      return cli_error(CLI_EXIT_USAGE, "help: unknown command '%s'", argv[2]);
    }
    return 0;
  }
  const op_command *op = op_command_find(command);
  if (op != NULL) {
    return cmd_split_file(op, argc, argv, 2);
  }
  if (strcmp(command, "infer") == 0) {
    return cmd_infer(argc, argv, 2);
  }
  if (strcmp(command, "demo") == 0) {
    return cmd_demo(argc, argv, 2);
  }
  if (strcmp(command, "ir-check") == 0 || strcmp(command, "ir-run") == 0) {
    return ir_command(command, argc, argv);
  }
  if (strcmp(command, "st") == 0) {
    return st_command(argc, argv);
  }
  if (strcmp(command, "onnx-test") == 0) {
    /* The ONNX runner sees "onnx-test" as argv[0] and its own arguments after it. */
    return onnx_test(argc - 1, argv + 1);
  }
  return cli_error(CLI_EXIT_USAGE, "unknown command '%s' (see 'cleave --help')", command);
}
