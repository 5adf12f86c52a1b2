/* cleave infer OP ...: shape inference without data, on static or partial shapes. */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "concat_options.h"
#include "help.h"
#include "op_options.h"
#include "ops_commands.h"
#include "report.h"
#include "shape_text.h"
#include "split_infer.h"

/* Every value known and every dim a point: static inference, which also checks byte sizes. */
static int infer_static(const op_options *o, const cli_shape *shape) {
  size_t rank = shape->rank;
  int64_t *in = cli_calloc(rank, sizeof *in);
  int64_t *dims = cli_calloc(rank, sizeof *dims);
  int rc = in == NULL || dims == NULL ? CLI_EXIT_SOFTWARE : 0;
  for (size_t i = 0; i < rank && rc == 0; i++) {
    in[i] = shape->dims[i].lo;
  }
  cleave_op op = op_options_build(o);
  split_result res = {{0}, NULL};
  if (rc == 0) {
    rc = split_infer(&op, o->flags.dtype, in, rank, &res);
  }
  if (rc == 0) {
    report r;
    report_begin(&r, stdout, o->command->name, o->flags.json, 0);
    for (size_t i = 0; i < res.info.num_outputs; i++) {
      split_output_dims(&res, in, rank, i, dims);
      report_output(&r, dims, res.info.output_rank, NULL);
    }
    rc = report_end(&r);
  }
  split_result_free(&res);
  free(dims);
  free(in);
  return rc;
}

/* The text form of a partial shape, malloc'd, or NULL after reporting the failure. */
static char *format_partial(const cleave_partial_shape *shape) {
  size_t length = 0;
  cleave_error err;
  cleave_status st = cleave_partial_shape_format(shape, NULL, 0, &length, &err);
  if (st != CLEAVE_OK && st != CLEAVE_ERROR_CAPACITY) {
    cli_library_error(&err, "internal error: formatting a shape");
    return NULL;
  }
  char *text = cli_calloc(length + 1, 1);
  if (text != NULL &&
      cleave_partial_shape_format(shape, text, length + 1, NULL, &err) != CLEAVE_OK) {
    cli_library_error(&err, "internal error: formatting a shape");
    free(text);
    return NULL;
  }
  return text;
}

/* Partial shapes or unknown values: the library's partial inference (docs/operators.md section 6).
 */
static int infer_partial(const op_options *o, const cli_shape *shape) {
  cleave_op op = op_options_build(o);
  cleave_partial_shape in = {shape->rank, shape->dims};
  cleave_partial_info info;
  cleave_error err;
  unsigned unknown = op_options_unknown(o);
  cleave_status st = cleave_infer_partial(&op, unknown, o->flags.dtype, &in, &info, NULL, 0, &err);
  if (st != CLEAVE_OK) {
    return cli_library_error(&err, NULL);
  }
  cleave_dim *dims = cli_calloc(info.dims_needed, sizeof *dims);
  if (dims == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  st = cleave_infer_partial(&op, unknown, o->flags.dtype, &in, &info, dims, info.dims_needed, &err);
  if (st != CLEAVE_OK) {
    free(dims);
    return cli_library_error(&err, NULL);
  }
  size_t rank = info.output_rank;
  size_t step = rank == CLEAVE_RANK_DYNAMIC ? 0 : rank;
  report r;
  report_begin(&r, stdout, o->command->name, o->flags.json, 0);
  int rc = 0;
  for (size_t i = 0; i < info.num_shapes && rc == 0; i++) {
    cleave_partial_shape out = {rank, dims + i * step};
    char *text = format_partial(&out);
    if (text == NULL) {
      rc = CLI_EXIT_SOFTWARE;
    } else if (info.count_varies) {
      char count[CLEAVE_DIM_TEXT_SIZE];
      cleave_dim_format(info.count, count, sizeof count, NULL, NULL);
      report_sequence(&r, count, text);
    } else {
      report_output_text(&r, text);
    }
    free(text);
  }
  free(dims);
  int end = report_end(&r);
  return rc != 0 ? rc : end;
}

int cmd_infer(int argc, char **argv, int first) {
  if (first >= argc) {
    return cli_error(CLI_EXIT_USAGE, "infer: the operator is missing (usage: cleave infer OP "
                                     "[OPTIONS] --shape SHAPE... [--dtype TYPE])");
  }
  const char *name = argv[first];
  if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
    help_print("infer", stdout);
    return 0;
  }
  const concat_command *join = concat_command_find(name);
  if (join != NULL) {
    return cmd_infer_concat(join, argc, argv, first + 1);
  }
  const op_command *command = op_command_find(name);
  if (command == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "infer: unknown operator '%s' (one of split, variadic-split, "
                     "split-to-sequence, onnx-split, concat, concat-from-sequence)",
                     name);
  }
  op_options o;
  int rc = op_options_parse(&o, command, 1, argc, argv, first + 1);
  if (rc == 0 && o.help) {
    help_print("infer", stdout);
    op_options_free(&o);
    return 0;
  }
  cli_shape shape = {0, NULL};
  if (rc == 0) {
    rc = cli_shape_parse(o.shape_text, "--shape", &shape);
  }
  if (rc == 0) {
    rc = cli_shape_is_static(&shape) && op_options_unknown(&o) == CLEAVE_UNKNOWN_NONE
             ? infer_static(&o, &shape)
             : infer_partial(&o, &shape);
  }
  cli_shape_free(&shape);
  op_options_free(&o);
  return rc;
}
