/* cleave demo: the examples of the OpenVINO specs and a SplitToSequence example, on built-in
 * data, with a check that the outputs put back together give the input. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli_util.h"
#include "ops_commands.h"
#include "shape_format.h"
#include "split_infer.h"

#define DEMO_MAX_RANK 4
#define DEMO_MAX_OUTPUTS 8

typedef struct demo_case {
  const char *title;   /* e.g. "OpenVINO Split-1" */
  const char *details; /* the attributes and inputs, as the spec example gives them */
  size_t rank;
  int64_t shape[DEMO_MAX_RANK];
  cleave_op op;
} demo_case;

/* Checks that concatenating the outputs along the axis (stacking them, when the op removed the
 * axis) gives the input back, byte for byte. The offsets are recomputed here from the output
 * lengths alone, independently of the library's copy plan. */
static int round_trip_ok(const demo_case *c, const split_result *res, const unsigned char *input,
                         unsigned char *const *outputs, int64_t item) {
  size_t axis = res->info.axis;
  int64_t outer = 1, inner = item;
  for (size_t d = 0; d < c->rank; d++) {
    if (d < axis) {
      outer *= c->shape[d];
    } else if (d > axis) {
      inner *= c->shape[d];
    }
  }
  int64_t row = c->shape[axis] * inner;
  for (int64_t o = 0; o < outer; o++) {
    int64_t offset = 0;
    for (size_t i = 0; i < res->info.num_outputs; i++) {
      int64_t piece = res->lengths[i] * inner;
      if (memcmp(outputs[i] + o * piece, input + o * row + offset, (size_t)piece) != 0) {
        return 0;
      }
      offset += piece;
    }
    if (offset != row) {
      return 0;
    }
  }
  return 1;
}

/* Runs the library's inverse on the outputs: OpenVINO Concat-1 along the axis, or ONNX
 * ConcatFromSequence-11 with new_axis 1 when the split removed the axis. 1 when it gives the
 * input back byte for byte, 0 when not, -1 (message printed) when the library refused. */
static int inverse_ok(const demo_case *c, const split_result *res, const float *input,
                      unsigned char *const *outputs, const char **name) {
  size_t n = res->info.num_outputs, rank = res->info.output_rank;
  int64_t axis = (int64_t)res->info.axis;
  cleave_concat_op op = res->info.axis_removed ? cleave_op_concat_from_sequence(11, &axis, 1)
                                               : cleave_op_concat(&axis);
  *name = res->info.axis_removed ? "ConcatFromSequence-11 (new_axis 1)" : "Concat-1";
  int64_t dims[DEMO_MAX_OUTPUTS][DEMO_MAX_RANK];
  cleave_tensor parts[DEMO_MAX_OUTPUTS];
  for (size_t i = 0; i < n; i++) {
    split_output_dims(res, c->shape, c->rank, i, dims[i]);
    parts[i] = (cleave_tensor){outputs[i], cleave_type_of(CLEAVE_F32), rank, dims[i]};
  }
  cleave_concat_info info;
  int64_t shape[DEMO_MAX_RANK + 1];
  cleave_error err;
  if (cleave_concat_infer(&op, parts, n, &info, shape, DEMO_MAX_RANK + 1, &err) != CLEAVE_OK) {
    cli_library_error(&err, c->title);
    return -1;
  }
  unsigned char *joined = cli_calloc((size_t)info.output_bytes + 1, 1);
  if (joined == NULL) {
    return -1;
  }
  int ok = -1;
  if (cleave_concat_run(&op, parts, n, joined, &err) != CLEAVE_OK) {
    cli_library_error(&err, c->title);
  } else {
    ok = info.output_rank == c->rank && memcmp(shape, c->shape, c->rank * sizeof *shape) == 0 &&
         memcmp(joined, input, (size_t)info.output_bytes) == 0;
  }
  free(joined);
  return ok;
}

static int run_case(const demo_case *c) {
  const int64_t item = 4;
  split_result res;
  int rc = split_infer(&c->op, cleave_type_of(CLEAVE_F32), c->shape, c->rank, &res);
  if (rc != 0) {
    return rc;
  }
  printf("%s: data ", c->title);
  shape_print(stdout, c->shape, c->rank);
  printf(", %s\n", c->details);
  int64_t count = 1;
  for (size_t d = 0; d < c->rank; d++) {
    count *= c->shape[d];
  }
  float *input = cli_calloc((size_t)count, sizeof *input);
  unsigned char *outputs[DEMO_MAX_OUTPUTS] = {NULL};
  size_t n = res.info.num_outputs;
  if (input == NULL || n > DEMO_MAX_OUTPUTS) {
    free(input);
    split_result_free(&res);
    return CLI_EXIT_SOFTWARE;
  }
  for (int64_t k = 0; k < count; k++) {
    input[k] = (float)k;
  }
  int64_t dims[DEMO_MAX_RANK];
  for (size_t i = 0; i < n && rc == 0; i++) {
    split_output_dims(&res, c->shape, c->rank, i, dims);
    int64_t elements = 1;
    for (size_t d = 0; d < res.info.output_rank; d++) {
      elements *= dims[d];
    }
    outputs[i] = cli_calloc((size_t)elements, (size_t)item);
    if (outputs[i] == NULL) {
      rc = CLI_EXIT_SOFTWARE;
    }
    printf("  output %zu: ", i);
    shape_print(stdout, dims, res.info.output_rank);
    putchar('\n');
  }
  if (rc == 0) {
    cleave_tensor tensor = {input, cleave_type_of(CLEAVE_F32), c->rank, c->shape};
    cleave_error err;
    if (cleave_run(&c->op, &tensor, (void *const *)outputs, n, &err) != CLEAVE_OK) {
      rc = cli_library_error(&err, c->title);
    }
  }
  if (rc == 0) {
    int ok = round_trip_ok(c, &res, (const unsigned char *)input, outputs, item);
    printf("  round trip: %s the %zu %s along axis %zu %s\n",
           res.info.axis_removed ? "stacking" : "concatenating", n,
           tool_plural(n, "output", "outputs"), res.info.axis,
           ok ? "gives the input back" : "does NOT give the input back");
    if (!ok) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "the round trip of %s failed", c->title);
    }
  }
  if (rc == 0) {
    const char *name = NULL;
    int ok = inverse_ok(c, &res, input, outputs, &name);
    if (ok < 0) {
      rc = CLI_EXIT_SOFTWARE;
    } else {
      printf("  inverse: cleave's %s of the outputs %s\n", name,
             ok ? "gives the input back" : "does NOT give the input back");
      if (!ok) {
        rc = cli_error(CLI_EXIT_SOFTWARE, "the inverse of %s failed", c->title);
      }
    }
  }
  for (size_t i = 0; i < n; i++) {
    free(outputs[i]);
  }
  free(input);
  split_result_free(&res);
  return rc;
}

static const char demo_about[] =
    "Runs, on built-in data and without files, the examples of the OpenVINO specifications\n"
    "(Split-1 of [6,12,10,24] along axis 1 into 3; VariadicSplit-1 with split_lengths [1,2,3]\n"
    "and [-1,2]) and two SplitToSequence examples (a scalar split with a remainder; keepdims 0),\n"
    "prints the output shapes, and checks that the outputs put back together give the input:\n"
    "once by offsets worked out from the output lengths alone, once by cleave's own inverse\n"
    "(Concat-1, or ConcatFromSequence-11 with new_axis 1 where the axis was removed).\n"
    "Exits with 0 when every round trip holds, 70 otherwise. The OpenVINO examples also exist as\n"
    "IR nets in docs/examples/ (split-1.xml, variadic-split-1*.xml): see 'cleave ir-run'.\n";

static const cli_spec demo_spec = {
    .name = "demo",
    .usage = "cleave demo",
    .about = demo_about,
};

int cmd_demo(int argc, char **argv, int first) {
  cli_args args;
  int rc = cli_parse(&demo_spec, NULL, argc, argv, first, &args);
  if (rc == 0 && args.positional_count > 0) {
    rc =
        cli_error(CLI_EXIT_USAGE, "unexpected argument '%s' (demo takes none)", args.positional[0]);
  }
  cli_args_free(&args);
  if (rc != 0) {
    return rc == CLI_HELP_SHOWN ? 0 : rc;
  }
  static const int64_t axis1 = 1, axis0 = 0;
  static const int64_t lengths_123[] = {1, 2, 3};
  static const int64_t lengths_rest[] = {-1, 2};
  static const int64_t split3 = 3;
  demo_case cases[5] = {
      {"OpenVINO Split-1", "axis 1, num_splits 3", 4, {6, 12, 10, 24}, cleave_op_split(&axis1, 3)},
      {"OpenVINO VariadicSplit-1",
       "axis 0, split_lengths [1,2,3]",
       4,
       {6, 12, 10, 24},
       cleave_op_variadic_split(&axis0, lengths_123, 3)},
      {"OpenVINO VariadicSplit-1",
       "axis 0, split_lengths [-1,2] (-1 takes what is left: 6 - 2)",
       4,
       {6, 12, 10, 24},
       cleave_op_variadic_split(&axis0, lengths_rest, 2)},
      {"ONNX SplitToSequence-24",
       "axis 0, split 3 (a scalar: chunks of 3, then the remainder)",
       2,
       {7, 3},
       cleave_op_split_to_sequence(24)},
      {"ONNX SplitToSequence-24",
       "axis 1, keepdims 0, no split (one element per index, the "
       "axis removed)",
       2,
       {3, 4},
       cleave_op_split_to_sequence(24)},
  };
  cases[3].op.lengths = cleave_values_scalar(&split3);
  cases[4].op.axis = cleave_values_scalar(&axis1);
  cases[4].op.keepdims = 0;
  size_t count = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < count; i++) {
    if (i > 0) {
      putchar('\n');
    }
    rc = run_case(&cases[i]);
    if (rc != 0) {
      return rc;
    }
  }
  printf("\ndemo: all %zu examples passed the round trip\n", count);
  return fflush(stdout) == 0 ? 0 : CLI_EXIT_IOERR;
}
