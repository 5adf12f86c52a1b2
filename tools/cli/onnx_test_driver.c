/* cleave-onnx-test-driver: `cleave onnx-test` as a program of its own, for work on the ONNX
 * reader without the rest of the command-line tool. It takes the same arguments as `cleave`
 * (`cleave-onnx-test-driver onnx-test DIR...`) or the command's alone (`... DIR...`). The tests
 * run `cleave onnx-test`. */
#include "cmd_onnx_test.h"

#include <string.h>

#include "cli_util.h"

int main(int argc, char **argv) {
  int first = argc > 1 && strcmp(argv[1], "onnx-test") == 0 ? 2 : 1;
  cli_command_set("onnx-test");
  return cmd_onnx_test(argc, argv, first);
}
