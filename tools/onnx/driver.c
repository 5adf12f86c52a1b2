/* cleave-onnx-test-driver: `cleave onnx-test` as a program of its own, for working on the ONNX
 * reader without the rest of the command-line tool. The tests use `cleave onnx-test`. */
#include "onnx_test.h"

int main(int argc, char **argv) {
  return cleave_onnx_test_main(argc, argv);
}
