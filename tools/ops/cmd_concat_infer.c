/* cleave infer concat|concat-from-sequence ...: the output's shape from one --shape per input. */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "concat_options.h"
#include "help.h"
#include "ops_commands.h"
#include "report.h"
#include "shape_text.h"

/* Every shape static and the axis known: static inference, which also checks byte sizes. */
static int infer_static(const concat_options *o, const cli_shape *shapes, size_t n) {
  cleave_tensor *tensors = cli_calloc(n, sizeof *tensors);
  int64_t **dims = cli_calloc(n, sizeof *dims);
  int rc = tensors == NULL || dims == NULL ? CLI_EXIT_SOFTWARE : 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    dims[i] = cli_calloc(shapes[i].rank, sizeof **dims);
    if (dims[i] == NULL) {
      rc = CLI_EXIT_SOFTWARE;
      break;
    }
    for (size_t d = 0; d < shapes[i].rank; d++) {
      dims[i][d] = shapes[i].dims[d].lo;
    }
    tensors[i].data = NULL;
    tensors[i].type = o->flags.dtype;
    tensors[i].rank = shapes[i].rank;
    tensors[i].shape = dims[i];
  }
  cleave_concat_op op = concat_options_build(o);
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

/* Partial shapes or an unknown axis: the library's partial inference (docs/operators.md 8.8). */
static int infer_partial(const concat_options *o, const cli_shape *shapes, size_t n) {
  cleave_partial_shape *in = cli_calloc(n, sizeof *in);
  if (in == NULL) {
    return CLI_EXIT_SOFTWARE;
  }
  for (size_t i = 0; i < n; i++) {
    in[i].rank = shapes[i].rank;
    in[i].dims = shapes[i].dims;
  }
  cleave_concat_op op = concat_options_build(o);
  unsigned unknown = o->axis_unknown ? CLEAVE_UNKNOWN_AXIS : CLEAVE_UNKNOWN_NONE;
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
  if (rc == 0) {
    cleave_partial_shape shape = {info.output_rank, dims};
    size_t length = 0;
    cleave_status st = cleave_partial_shape_format(&shape, NULL, 0, &length, &err);
    if (st != CLEAVE_OK && st != CLEAVE_ERROR_CAPACITY) {
      rc = cli_library_error(&err, "internal error: formatting a shape");
    } else if ((text = cli_calloc(length + 1, 1)) == NULL) {
      rc = CLI_EXIT_SOFTWARE;
    } else if (cleave_partial_shape_format(&shape, text, length + 1, NULL, &err) != CLEAVE_OK) {
      rc = cli_library_error(&err, "internal error: formatting a shape");
    }
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

int cmd_infer_concat(const concat_command *command, int argc, char **argv, int first) {
  concat_options o;
  int rc = concat_options_parse(&o, command, 1, argc, argv, first);
  if (rc == 0 && o.help) {
    help_print("infer", stdout);
    concat_options_free(&o);
    return 0;
  }
  size_t n = rc == 0 ? o.shape_count : 0;
  cli_shape *shapes = rc == 0 ? cli_calloc(n, sizeof *shapes) : NULL;
  if (rc == 0 && shapes == NULL) {
    rc = CLI_EXIT_SOFTWARE;
  }
  int is_static = !o.axis_unknown;
  size_t parsed = 0;
  for (; parsed < n && rc == 0; parsed++) {
    rc = cli_shape_parse(o.shapes[parsed], "--shape", &shapes[parsed]);
    is_static &= rc == 0 && cli_shape_is_static(&shapes[parsed]);
  }
  if (rc == 0) {
    rc = is_static ? infer_static(&o, shapes, n) : infer_partial(&o, shapes, n);
  }
  for (size_t i = 0; shapes != NULL && i < parsed; i++) {
    cli_shape_free(&shapes[i]);
  }
  free(shapes);
  concat_options_free(&o);
  return rc;
}
