/* Options of the operator commands and of `cleave infer`. */
#include "op_options.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli_util.h"
#include "dtype_note.h"
#include "packed_input.h"

static const op_command commands[] = {
    {"split", CLEAVE_OP_SPLIT, "OpenVINO Split-1"},
    {"variadic-split", CLEAVE_OP_VARIADIC_SPLIT, "OpenVINO VariadicSplit-1"},
    {"split-to-sequence", CLEAVE_OP_SPLIT_TO_SEQUENCE, "ONNX SplitToSequence"},
    {"onnx-split", CLEAVE_OP_ONNX_SPLIT, "ONNX Split"},
};

const op_command *op_command_find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(commands[i].name, name) == 0) {
      return &commands[i];
    }
  }
  return NULL;
}

/* ---- the options the splitting and joining commands share ------------------------------- */

static const cli_option output_options[OP_OUTPUT_OPTION_COUNT] = {
    {"output", 'o', 1, OP_OUTPUT_ID_OUTPUT},
    {"force", 'f', 0, OP_OUTPUT_ID_FORCE},
    {"json", 0, 0, OP_OUTPUT_ID_JSON},
    {"quiet", 'q', 0, OP_OUTPUT_ID_QUIET},
    {"no-progress", 0, 0, OP_OUTPUT_ID_NO_PROGRESS},
    {"sync", 0, 0, OP_OUTPUT_ID_SYNC},
    {"dtype", 0, 1, OP_OUTPUT_ID_DTYPE},
};

void op_output_flags_init(op_output_flags *flags) {
  memset(flags, 0, sizeof *flags);
  flags->dtype = cleave_type_of(CLEAVE_F32);
}

size_t op_output_accepted(int for_infer, cli_option *accepted) {
  size_t count = 0;
  for (size_t i = 0; i < OP_OUTPUT_OPTION_COUNT; i++) {
    int id = output_options[i].id;
    /* infer reads and writes no file: only the report's form and the data's type apply. */
    if (!for_infer || id == OP_OUTPUT_ID_JSON || id == OP_OUTPUT_ID_DTYPE) {
      accepted[count++] = output_options[i];
    }
  }
  return count;
}

static int output_twice(const char *scope, const char *label) {
  return cli_error(CLI_EXIT_USAGE, "%s: option %s is given twice", scope, label);
}

int op_output_take(op_output_flags *flags, int id, const char *value, const char *label,
                   const char *scope, const char *output_noun) {
  switch (id) {
  case OP_OUTPUT_ID_OUTPUT:
    if (flags->output != NULL) {
      return output_twice(scope, label);
    }
    if (value[0] == '\0') {
      return cli_error(CLI_EXIT_USAGE, "%s: the %s is empty", label, output_noun);
    }
    flags->output = value;
    return 0;
  case OP_OUTPUT_ID_FORCE:
    flags->force = 1;
    return 0;
  case OP_OUTPUT_ID_JSON:
    flags->json = 1;
    return 0;
  case OP_OUTPUT_ID_QUIET:
    flags->quiet = 1;
    return 0;
  case OP_OUTPUT_ID_NO_PROGRESS:
    flags->no_progress = 1;
    return 0;
  case OP_OUTPUT_ID_SYNC:
    flags->sync = 1;
    return 0;
  case OP_OUTPUT_ID_DTYPE:
    if (flags->has_dtype) {
      return output_twice(scope, label);
    }
    flags->has_dtype = 1;
    flags->dtype_text = value;
    return op_parse_dtype(value, &flags->dtype);
  default:
    return cli_error(CLI_EXIT_SOFTWARE, "unhandled option %s", label);
  }
}

/* ---- the splitting commands -------------------------------------------------------------- */

enum {
  OPT_AXIS = OP_OUTPUT_ID_END,
  OPT_NUM,
  OPT_LENGTHS,
  OPT_SIZE,
  OPT_KEEPDIMS,
  OPT_OPSET,
  OPT_SHAPE,
  OPT_HELP
};

static const cli_option own_options[] = {
    {"axis", 'a', 1, OPT_AXIS},         {"num-splits", 'n', 1, OPT_NUM},
    {"lengths", 'l', 1, OPT_LENGTHS},   {"split-size", 's', 1, OPT_SIZE},
    {"keepdims", 'k', 1, OPT_KEEPDIMS}, {"opset", 0, 1, OPT_OPSET},
    {"shape", 0, 1, OPT_SHAPE},         {"help", 'h', 0, OPT_HELP},
};
#define OWN_OPTION_COUNT (sizeof own_options / sizeof own_options[0])

/* Whether `command` accepts its own option `id` (on a file and under infer alike). */
static int accepts(const op_command *command, int id) {
  switch (id) {
  case OPT_NUM:
    return command->kind == CLEAVE_OP_SPLIT || command->kind == CLEAVE_OP_ONNX_SPLIT;
  case OPT_LENGTHS:
    return command->kind != CLEAVE_OP_SPLIT;
  case OPT_SIZE:
  case OPT_KEEPDIMS:
    return command->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE;
  case OPT_OPSET:
    return command->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE || command->kind == CLEAVE_OP_ONNX_SPLIT;
  default:
    return 1;
  }
}

int op_parse_dtype(const char *text, cleave_type *type) {
  cleave_dtype dtype;
  if (cleave_dtype_from_name(text, &dtype, NULL) == CLEAVE_OK) {
    if (dtype == CLEAVE_BYTES || dtype == CLEAVE_UNICODE) {
      return cli_error(CLI_EXIT_USAGE, "--dtype: '%s' needs a width: write S<n> or U<n> (e.g. U8)",
                       text);
    }
    *type = cleave_type_of(dtype);
    return 0;
  }
  if ((text[0] == 'S' || text[0] == 'U') && text[1] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "--dtype: '%s' needs a width: write %s<n> (e.g. %s8)", text,
                     text, text);
  }
  if ((text[0] == 'S' || text[0] == 'U') && text[1] == '0') {
    return cli_error(CLI_EXIT_USAGE, "--dtype: '%s': the width must be a positive integer", text);
  }
  if ((text[0] == 'S' || text[0] == 'U') && text[1] >= '1' && text[1] <= '9') {
    int64_t width = 0;
    if (cli_parse_int64(text + 1, "--dtype width", &width) != 0) {
      return CLI_EXIT_USAGE;
    }
    type->dtype = text[0] == 'S' ? CLEAVE_BYTES : CLEAVE_UNICODE;
    type->width = width;
    return 0;
  }
  char note[160];
  int numpy = dtype_numpy_note(text, NULL, note, sizeof note);
  return cli_error(CLI_EXIT_USAGE,
                   "--dtype: unknown type name '%s'%s%s (the names are boolean, i8, i16, i32, "
                   "i64, u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128, f8e4m3, f8e5m2, "
                   "f8e4m3fnuz, f8e5m2fnuz, f8e8m0, string, S<n>, U<n>, and the packed u1, u2, "
                   "u4, i4, nf4, f4e2m1, int4, uint4, int2, uint2, float4e2m1)",
                   text, numpy ? ": " : "", note);
}

/* "?" (a value that is unknown) is meaningful only for infer, where the library's partial
 * inference takes it; an operator command on a file needs every value. */
static int take_unknown(op_options *o, int *flag, const char *label) {
  if (!o->for_infer) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: '?' (an unknown value) is only meaningful for 'cleave infer'", label);
  }
  *flag = 1;
  return 0;
}

static int twice(const op_options *o, const char *label) {
  return output_twice(o->command->name, label);
}

/* Stores one option. Returns 0 or a usage error. */
static int take_option(op_options *o, int id, const char *value, const char *label) {
  switch (id) {
  case OPT_AXIS:
    if (o->has_axis) {
      return twice(o, label);
    }
    o->has_axis = 1;
    if (strcmp(value, "?") == 0) {
      return take_unknown(o, &o->axis_unknown, label);
    }
    return cli_parse_int64(value, label, &o->axis);
  case OPT_NUM:
    if (o->has_num) {
      return twice(o, label);
    }
    o->has_num = 1;
    return cli_parse_int64(value, label, &o->num);
  case OPT_LENGTHS: {
    if (o->has_lengths) {
      return twice(o, label);
    }
    o->has_lengths = 1;
    int unknown = 0;
    int rc = cli_parse_int64_list(value, label, &o->lengths, &o->length_count, &unknown);
    if (rc == 0 && unknown) {
      return take_unknown(o, &o->lengths_unknown, label);
    }
    return rc;
  }
  case OPT_SIZE:
    if (o->has_size) {
      return twice(o, label);
    }
    o->has_size = 1;
    if (strcmp(value, "?") == 0) {
      return take_unknown(o, &o->size_unknown, label);
    }
    return cli_parse_int64(value, label, &o->size);
  case OPT_KEEPDIMS:
    if (o->has_keepdims) {
      return twice(o, label);
    }
    o->has_keepdims = 1;
    if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
      return cli_error(CLI_EXIT_USAGE, "%s: '%s' is not 0 or 1", label, value);
    }
    o->keepdims = value[0] - '0';
    return 0;
  case OPT_OPSET:
    if (o->has_opset) {
      return twice(o, label);
    }
    o->has_opset = 1;
    return cli_parse_int64(value, label, &o->opset);
  case OPT_SHAPE:
    if (o->shape_text != NULL) {
      return twice(o, label);
    }
    o->shape_text = value;
    return 0;
  default:
    return op_output_take(&o->flags, id, value, label, o->command->name, "output prefix");
  }
}

static int missing(const op_options *o, const char *what, const char *why) {
  return cli_error(CLI_EXIT_USAGE, "%s%s: %s is required%s (see 'cleave %s%s --help')",
                   o->for_infer ? "infer " : "", o->command->name, what, why,
                   o->for_infer ? "infer " : "", o->command->name);
}

/* The checks of the command line as a whole, after every option is read. */
static int check_combination(op_options *o) {
  const char *name = o->command->name;
  switch (o->command->kind) {
  case CLEAVE_OP_SPLIT:
    if (!o->has_axis) {
      return missing(o, "-a/--axis", " (OpenVINO Split-1 has no default axis)");
    }
    if (!o->has_num) {
      return missing(o, "-n/--num-splits", "");
    }
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    if (!o->has_axis) {
      return missing(o, "-a/--axis", " (OpenVINO VariadicSplit-1 has no default axis)");
    }
    if (!o->has_lengths) {
      return missing(o, "-l/--lengths", "");
    }
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    if (o->has_size && o->has_lengths) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: -s/--split-size and -l/--lengths exclude each other (the split "
                       "input is either a scalar or a list)",
                       name);
    }
    if (!o->has_opset) {
      o->opset = 24;
    } else if (o->opset < 11) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --opset %" PRId64 " is below ONNX SplitToSequence's first version (11)",
                       name, o->opset);
    }
    if (!o->has_keepdims) {
      o->keepdims = 1;
    }
    break;
  case CLEAVE_OP_ONNX_SPLIT:
    if (!o->has_opset) {
      return missing(o, "--opset", " (it selects the Split version: 1, 2, 11, 13 or 18)");
    }
    if (o->opset < 1) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --opset %" PRId64 " is below ONNX Split's first version (1)", name,
                       o->opset);
    }
    if (o->opset < 18 && !o->has_lengths && !o->has_num) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: below opset 18 Split needs -l/--lengths or -n/--num-splits (the "
                       "node's number of outputs); --opset is %" PRId64,
                       name, o->opset);
    }
    break;
  }
  if (o->for_infer) {
    if (o->shape_text == NULL) {
      return missing(o, "--shape", "");
    }
    return 0;
  }
  /* On a file, --shape is the logical shape of packed data, whose .npy holds only bytes. */
  if (packed_dtype(o->flags.dtype.dtype) && o->shape_text == NULL) {
    /* u1, u2, u4 and i4 are NumPy codes too: say which one is meant here. */
    char note[160], why[320];
    int numpy = dtype_numpy_note(o->flags.dtype_text, NULL, note, sizeof note);
    snprintf(why, sizeof why,
             " with a packed --dtype (the file holds the packed bytes; --shape gives the logical "
             "shape)%s%s",
             numpy ? "; " : "", note);
    return missing(o, "--shape", why);
  }
  if (!packed_dtype(o->flags.dtype.dtype) && o->shape_text != NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --shape is only for a packed --dtype (u1, u2, u4, i4, nf4, f4e2m1, "
                     "int4, uint4, int2, uint2, float4e2m1); the .npy header gives the shape of "
                     "other data",
                     name);
  }
  if (o->input == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: the input file is missing (usage: cleave %s [OPTIONS] "
                     "INPUT.npy)",
                     name, name);
  }
  return 0;
}

int op_options_parse(op_options *o, const op_command *command, int for_infer, int argc, char **argv,
                     int first) {
  memset(o, 0, sizeof *o);
  o->command = command;
  o->for_infer = for_infer;
  op_output_flags_init(&o->flags);
  o->keepdims = 1;

  cli_option accepted[OWN_OPTION_COUNT + OP_OUTPUT_OPTION_COUNT];
  size_t count = 0;
  for (size_t i = 0; i < OWN_OPTION_COUNT; i++) {
    if (accepts(command, own_options[i].id)) {
      accepted[count++] = own_options[i];
    }
  }
  count += op_output_accepted(for_infer, accepted + count);
  char scope[64];
  snprintf(scope, sizeof scope, "%s%s", for_infer ? "infer " : "", command->name);
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, scope);
  for (;;) {
    int id = 0;
    const char *value = NULL;
    int kind = cli_parser_next(&p, accepted, count, &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      return CLI_EXIT_USAGE;
    }
    if (kind == CLI_NEXT_POSITIONAL) {
      if (for_infer || o->input != NULL) {
        return cli_error(CLI_EXIT_USAGE, "%s: unexpected argument '%s'%s", scope, value,
                         for_infer ? " (infer reads no file: give --shape)" : "");
      }
      o->input = value;
      continue;
    }
    if (id == OPT_HELP) {
      o->help = 1;
      return 0;
    }
    char label[64];
    cli_option_label_of(accepted, count, id, label, sizeof label);
    int rc = take_option(o, id, value, label);
    if (rc != 0) {
      return rc;
    }
  }
  return check_combination(o);
}

void op_options_free(op_options *o) {
  free(o->lengths);
  o->lengths = NULL;
}

unsigned op_options_unknown(const op_options *o) {
  unsigned flags = CLEAVE_UNKNOWN_NONE;
  if (o->axis_unknown) {
    flags |= CLEAVE_UNKNOWN_AXIS;
  }
  if (o->lengths_unknown || o->size_unknown) {
    flags |= CLEAVE_UNKNOWN_LENGTHS;
  }
  return flags;
}

cleave_op op_options_build(const op_options *o) {
  cleave_op op;
  switch (o->command->kind) {
  case CLEAVE_OP_SPLIT:
    op = cleave_op_split(&o->axis, o->num);
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    op = cleave_op_variadic_split(&o->axis, o->lengths, (size_t)o->length_count);
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    op = cleave_op_split_to_sequence(o->opset);
    op.keepdims = o->keepdims;
    if (o->has_size) {
      op.lengths = cleave_values_scalar(&o->size);
    }
    break;
  case CLEAVE_OP_ONNX_SPLIT:
  default:
    op = cleave_op_onnx_split(o->opset);
    if (o->has_num) {
      op.num_outputs = cleave_values_scalar(&o->num);
    }
    break;
  }
  if (o->command->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE || o->command->kind == CLEAVE_OP_ONNX_SPLIT) {
    if (o->has_axis) {
      op.axis = cleave_values_scalar(&o->axis);
    }
    if (o->has_lengths) {
      op.lengths = cleave_values_list(o->lengths, (size_t)o->length_count);
    }
  }
  return op;
}
