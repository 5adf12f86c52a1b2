/* cleave infer OP ...: shape inference without data. */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "report.h"
#include "shape_text.h"
#include "split_infer.h"

static int infer_static(const op_options *o, const int64_t *shape, size_t rank) {
  cleave_op op = op_options_build(o);
  split_result res;
  int rc = split_infer(&op, o->dtype, shape, rank, &res);
  if (rc != 0) {
    return rc;
  }
  int64_t *dims = cli_calloc(rank, sizeof *dims);
  if (dims == NULL) {
    split_result_free(&res);
    return CLI_EXIT_SOFTWARE;
  }
  report r;
  report_begin(&r, o->command->name, o->json, 0);
  for (size_t i = 0; i < (size_t)res.info.num_outputs; i++) {
    split_output_dims(&res, shape, rank, i, dims);
    report_output(&r, dims, (size_t)res.info.output_rank, NULL);
  }
  free(dims);
  split_result_free(&res);
  return report_end(&r);
}

int cmd_infer(int argc, char **argv, int first) {
  if (first >= argc) {
    return cli_error(CLI_EXIT_USAGE, "infer: the operator is missing (usage: cleave infer OP "
                                     "[OPTIONS] --shape SHAPE [--dtype TYPE])");
  }
  const char *name = argv[first];
  if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
    help_print("infer", stdout);
    return 0;
  }
  const op_command *command = op_command_find(name);
  if (command == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "infer: unknown operator '%s' (one of split, "
                     "variadic-split, split-to-sequence, onnx-split)",
                     name);
  }
  op_options o;
  int rc = op_options_parse(&o, command, 1, argc, argv, first + 1);
  if (rc == 0 && o.help) {
    help_print("infer", stdout);
    op_options_free(&o);
    return 0;
  }
  cli_partial_shape shape = {0, 0, NULL};
  if (rc == 0) {
    rc = cli_parse_shape(o.shape_text, "--shape", &shape);
  }
  if (rc == 0 && !cli_partial_shape_is_static(&shape)) {
    rc = cli_error(CLI_EXIT_USAGE,
                   "--shape: '%s' is a partial shape; partial shapes are not supported yet "
                   "(give every dimension as a number)",
                   o.shape_text);
  }
  if (rc == 0) {
    rc = op_options_check_type(&o);
  }
  if (rc == 0) {
    int64_t *dims = cli_calloc(shape.rank, sizeof *dims);
    if (dims == NULL) {
      rc = CLI_EXIT_SOFTWARE;
    } else {
      for (size_t i = 0; i < shape.rank; i++) {
        dims[i] = shape.dims[i].lo;
      }
      rc = infer_static(&o, dims, shape.rank);
      free(dims);
    }
  }
  cli_partial_shape_free(&shape);
  op_options_free(&o);
  return rc;
}
