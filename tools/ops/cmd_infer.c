/* cleave infer OP ...: shape inference without data, for every operator of the table: static
 * inference when every shape is static and every value known, else the library's partial
 * inference (docs/operators.md sections 6 and 8.8). */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "op_commands.h"
#include "op_options.h"
#include "ops_commands.h"
#include "report.h"
#include "shape_text.h"
#include "split_infer.h"

/* A static shape's dims (malloc'd, at least one entry), or NULL after reporting. */
static int64_t *static_dims(const cli_shape *shape) {
  int64_t *dims = cli_calloc(shape->rank + 1, sizeof *dims);
  for (size_t d = 0; dims != NULL && d < shape->rank; d++) {
    dims[d] = shape->dims[d].lo;
  }
  return dims;
}

/* The text form of a partial shape, malloc'd, or NULL after reporting the failure. */
static char *format_partial(size_t rank, cleave_dim *dims) {
  cleave_partial_shape shape = {rank, dims};
  size_t length = 0;
  cleave_error err;
  cleave_status st = cleave_partial_shape_format(&shape, NULL, 0, &length, &err);
  if (st != CLEAVE_OK && st != CLEAVE_ERROR_CAPACITY) {
    cli_library_error(&err, "internal error: formatting a shape");
    return NULL;
  }
  char *text = cli_calloc(length + 1, 1);
  if (text != NULL &&
      cleave_partial_shape_format(&shape, text, length + 1, NULL, &err) != CLEAVE_OK) {
    cli_library_error(&err, "internal error: formatting a shape");
    free(text);
    return NULL;
  }
  return text;
}

/* A split, every value known and every dim a point: static inference, which also checks byte
 * sizes. */
static int split_static(const op_options *o, const cli_shape *shape) {
  size_t rank = shape->rank;
  int64_t *in = static_dims(shape);
  int64_t *dims = cli_calloc(rank + 1, sizeof *dims);
  int rc = in == NULL || dims == NULL ? CLI_EXIT_SOFTWARE : 0;
  cleave_op op = op_options_split(o);
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

/* A split on a partial shape or with unknown values. */
static int split_partial(const op_options *o, const cli_shape *shape) {
  cleave_op op = op_options_split(o);
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
    char *text = format_partial(rank, dims + i * step);
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

/* A join, every shape static and the axis known: static inference, which also checks byte
 * sizes. */
static int join_static(const op_options *o, const cli_shape *shapes, size_t n) {
  cleave_tensor *tensors = cli_calloc(n, sizeof *tensors);
  int64_t **dims = cli_calloc(n, sizeof *dims);
  int rc = tensors == NULL || dims == NULL ? CLI_EXIT_SOFTWARE : 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    dims[i] = static_dims(&shapes[i]);
    if (dims[i] == NULL) {
      rc = CLI_EXIT_SOFTWARE;
      break;
    }
    tensors[i].data = NULL;
    tensors[i].type = o->flags.dtype;
    tensors[i].rank = shapes[i].rank;
    tensors[i].shape = dims[i];
  }
  cleave_concat_op op = op_options_join(o);
  cleave_concat_info info;
  cleave_error err;
  int64_t *out = NULL;
  if (rc == 0 && cleave_concat_infer(&op, tensors, n, &info, NULL, 0, &err) != CLEAVE_OK) {
    rc = cli_library_error(&err, NULL);
  }
  if (rc == 0) {
    out = cli_calloc(info.output_rank, sizeof *out);
    rc = out == NULL ? CLI_EXIT_SOFTWARE : 0;
  }
  if (rc == 0 &&
      cleave_concat_infer(&op, tensors, n, &info, out, info.output_rank, &err) != CLEAVE_OK) {
    rc = cli_library_error(&err, NULL);
  }
  if (rc == 0) {
    report r;
    report_begin(&r, stdout, o->command->name, o->flags.json, 0);
    report_output(&r, out, info.output_rank, NULL);
    rc = report_end(&r);
  }
  free(out);
  for (size_t i = 0; dims != NULL && i < n; i++) {
    free(dims[i]);
  }
  free(dims);
  free(tensors);
  return rc;
}

/* A join of partial shapes or along an unknown axis. */
static int join_partial(const op_options *o, const cli_shape *shapes, size_t n) {
  cleave_partial_shape *in = cli_calloc(n, sizeof *in);
  if (in == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  for (size_t i = 0; i < n; i++) {
    in[i].rank = shapes[i].rank;
    in[i].dims = shapes[i].dims;
  }
  cleave_concat_op op = op_options_join(o);
  unsigned unknown = op_options_unknown(o);
  cleave_partial_info info;
  cleave_error err;
  int rc = 0;
  cleave_dim *dims = NULL;
  if (cleave_concat_infer_partial(&op, unknown, o->flags.dtype, in, n, &info, NULL, 0, &err) !=
      CLEAVE_OK) {
    rc = cli_library_error(&err, NULL);
  }
  if (rc == 0) {
    dims = cli_calloc(info.dims_needed, sizeof *dims);
    rc = dims == NULL ? CLI_EXIT_SOFTWARE : 0;
  }
  if (rc == 0 && cleave_concat_infer_partial(&op, unknown, o->flags.dtype, in, n, &info, dims,
                                             info.dims_needed, &err) != CLEAVE_OK) {
    rc = cli_library_error(&err, NULL);
  }
  char *text = NULL;
  if (rc == 0 && (text = format_partial(info.output_rank, dims)) == NULL) {
    rc = CLI_EXIT_SOFTWARE;
  }
  if (rc == 0) {
    report r;
    report_begin(&r, stdout, o->command->name, o->flags.json, 0);
    report_output_text(&r, text);
    rc = report_end(&r);
  }
  free(text);
  free(dims);
  free(in);
  return rc;
}

/* The shapes parsed, then the inference the options and shapes call for. */
static int infer(const op_options *o) {
  size_t n = o->flags.shapes.count;
  cli_shape *shapes = cli_calloc(n, sizeof *shapes);
  int rc = shapes == NULL ? CLI_EXIT_SOFTWARE : 0;
  int is_static = op_options_unknown(o) == CLEAVE_UNKNOWN_NONE;
  size_t parsed = 0;
  for (; parsed < n && rc == 0; parsed++) {
    rc = cli_shape_parse(o->flags.shapes.items[parsed], "--shape", &shapes[parsed]);
    is_static &= rc == 0 && cli_shape_is_static(&shapes[parsed]);
  }
  if (rc == 0 && o->command->join) {
    rc = is_static ? join_static(o, shapes, n) : join_partial(o, shapes, n);
  } else if (rc == 0) {
    rc = is_static ? split_static(o, shapes) : split_partial(o, shapes);
  }
  for (size_t i = 0; shapes != NULL && i < parsed; i++) {
    cli_shape_free(&shapes[i]);
  }
  free(shapes);
  return rc;
}

int cmd_infer(int argc, char **argv, int first) {
  if (first >= argc) {
    return cli_error(CLI_EXIT_USAGE, "the operator is missing (usage: cleave infer OP "
                                     "[OPTIONS] --shape SHAPE... [--dtype TYPE])");
  }
  const char *name = argv[first];
  if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
    cli_help_print(&op_infer_spec, stdout);
    return 0;
  }
  const op_command *command = op_command_find(name);
  if (command == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "unknown operator '%s' (one of split, variadic-split, "
                     "split-to-sequence, onnx-split, concat, concat-from-sequence)",
                     name);
  }
  /* "infer split": the operator is part of the command's name in every message. */
  cli_command_set(command->infer_spec->name);
  op_options o;
  int rc = op_options_parse(&o, command, 1, argc, argv, first + 1);
  if (rc == 0) {
    rc = infer(&o);
  }
  op_options_free(&o);
  return rc == CLI_HELP_SHOWN ? 0 : rc;
}
