/* The command line of the operator commands, on files and under `cleave infer`. */
#include "op_options.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "dtype_note.h"
#include "op_commands.h"
#include "packed_input.h"

/* ---- the values ------------------------------------------------------------------------- */

/* "?" (a value that is unknown) is meaningful only for infer, where the library's partial
 * inference takes it; a command on files needs every value. */
static int unknown_refused(const cli_opt *opt) {
  char label[64];
  cli_opt_label(opt, label, sizeof label);
  return cli_error(CLI_EXIT_USAGE,
                   "%s: '?' (an unknown value) is only meaningful for 'cleave infer'", label);
}

int op_take_int(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)place;
  op_int *v = target;
  v->given = 1;
  if (opt->number == OP_MAY_BE_UNKNOWN && strcmp(value, "?") == 0) {
    if (!v->unknown_ok) {
      return unknown_refused(opt);
    }
    v->unknown = 1;
    return 0;
  }
  char label[64];
  cli_opt_label(opt, label, sizeof label);
  return cli_parse_int64(value, label, &v->value);
}

int op_take_bit(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)place;
  op_int *v = target;
  v->given = 1;
  if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
    char label[64];
    cli_opt_label(opt, label, sizeof label);
    return cli_error(CLI_EXIT_USAGE, "%s: '%s' is not 0 or 1", label, value);
  }
  v->value = value[0] - '0';
  return 0;
}

int op_take_list(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)place;
  op_list *v = target;
  v->given = 1;
  char label[64];
  cli_opt_label(opt, label, sizeof label);
  int rc = cli_parse_int64_list(value, label, &v->values, &v->count, &v->unknown);
  if (rc == 0 && v->unknown && !v->unknown_ok) {
    return unknown_refused(opt);
  }
  return rc;
}

int op_take_string(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)opt;
  (void)place;
  op_strings *v = target;
  v->items[v->count++] = value;
  return 0;
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

static int take_dtype(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)opt;
  (void)place;
  op_output_flags *f = target;
  f->has_dtype = 1;
  f->dtype_text = value;
  return op_parse_dtype(value, &f->dtype);
}

/* ---- the shared groups ------------------------------------------------------------------ */

#define DTYPE(HELP)                                                                                \
  {                                                                                                \
    .kind = CLI_OPT_CALL, .long_name = "dtype", .arg = "TYPE", .help = (HELP), .call = take_dtype, \
    .once = 1                                                                                      \
  }
#define SHAPE(HELP) CLI_CALL(0, "shape", "SHAPE", op_output_flags, shapes, op_take_string, 0, HELP)

const cli_opt op_output_options[] = {
    CLI_GROUP("Output options"),
    CLI_STRING('o', "output", "OUT", op_output_flags, output,
               "a split: write output i to OUT_i.npy (default: INPUT without .npy); an existing "
               "directory, or an OUT ending in '/', holds the outputs as DIR/STEM_i.npy, STEM "
               "being INPUT's file name without .npy. A join: the output file (required); an input "
               "may be replaced only with -f, by a rename once every input is read. The directory "
               "must exist"),
    CLI_FLAG('f', "force", op_output_flags, force,
             "replace outputs that already exist (otherwise: status 73); files OUT_k.npy beyond a "
             "split's outputs are left as they are, and named in a warning"),
    CLI_FLAG(0, "json", op_output_flags, json,
             "print {\"op\": ..., \"outputs\": [{\"shape\": \"[6,4]\", \"path\": ..., \"dims\": "
             "[6, 4]}, ...]}"),
    CLI_FLAG('q', "quiet", op_output_flags, quiet,
             "print nothing on success (--json still prints)"),
    CLI_FLAG(0, "no-progress", op_output_flags, no_progress,
             "no progress line on stderr (it is shown only on a terminal)"),
    CLI_FLAG(0, "sync", op_output_flags, sync,
             "fsync the outputs and their directory before finishing"),
    DTYPE("what the data holds when the file cannot say it: for raw void data (descr V<n>), bf16 "
          "for V2 as saved by ml_dtypes, f8e4m3, f8e5m2, f8e4m3fnuz, f8e5m2fnuz or f8e8m0 for V1; "
          "for a 1-D uint8 array of packed bytes, a packed sub-byte type (u1, u2, u4, i4, nf4, "
          "f4e2m1, int4, uint4, int2, uint2, float4e2m1) with --shape; for other data it must name "
          "the file's own type. Names count bits, not bytes as NumPy's codes do: i8 is int8 "
          "(NumPy's 'i8' is i64), u4 is packed 4-bit (NumPy's 'u4' is u32)"),
    SHAPE("the logical shape of packed data, e.g. [4096,8191], once per input in order: required "
          "with a packed --dtype, refused without one. A file must hold ceil(elements x bits / 8) "
          "bytes"),
    CLI_END,
};

const cli_opt op_infer_options[] = {
    CLI_GROUP("Inference options"),
    SHAPE("the data shape, e.g. [6,12,10,24]; [] is a scalar. A dim may be N, ? or -1 "
          "(unknown), L..H or L.. (at least L); [...] is an unknown rank. concat and "
          "concat-from-sequence take one per input, in order"),
    DTYPE("the element type (default f32): boolean, i8, i16, i32, i64, u8, u16, u32, u64, f16, "
          "bf16, f32, f64, c64, c128, f8e4m3, f8e5m2, f8e4m3fnuz, f8e5m2fnuz, f8e8m0, string, "
          "S<n>, U<n>, or packed: u1, u2, u4, i4, nf4, f4e2m1, int4, uint4, int2, uint2, "
          "float4e2m1 (u3 and u6 are not supported)"),
    CLI_FLAG(0, "json", op_output_flags, json,
             "print {\"op\": ..., \"outputs\": [{\"shape\": \"[6,4]\", \"dims\": [6, 4]}, ...]} "
             "(\"dims\" for static shapes only), or {\"op\": ..., \"count\": ..., \"element\": "
             "...}"),
    CLI_END,
};

/* ---- the command line as a whole -------------------------------------------------------- */

static int missing(const op_options *o, const char *what, const char *why) {
  return cli_error(CLI_EXIT_USAGE, "%s is required%s (see 'cleave %s --help')", what, why,
                   o->scope);
}

static int below_first_version(const op_options *o, const char *op, int64_t first) {
  return cli_error(CLI_EXIT_USAGE, "--opset %" PRId64 " is below %s first version (%" PRId64 ")",
                   o->opset.value, op, first);
}

/* A split's operator options. */
static int check_split(op_options *o) {
  switch (o->command->kind) {
  case CLEAVE_OP_SPLIT:
    if (!o->axis.given) {
      return missing(o, "-a/--axis", " (OpenVINO Split-1 has no default axis)");
    }
    if (!o->num.given) {
      return missing(o, "-n/--num-splits", "");
    }
    return 0;
  case CLEAVE_OP_VARIADIC_SPLIT:
    if (!o->axis.given) {
      return missing(o, "-a/--axis", " (OpenVINO VariadicSplit-1 has no default axis)");
    }
    if (!o->lengths.given) {
      return missing(o, "-l/--lengths", "");
    }
    return 0;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    if (o->size.given && o->lengths.given) {
      return cli_error(CLI_EXIT_USAGE,
                       "-s/--split-size and -l/--lengths exclude each other (the split "
                       "input is either a scalar or a list)");
    }
    if (!o->opset.given) {
      o->opset.value = 24;
    } else if (o->opset.value < 11) {
      return below_first_version(o, "ONNX SplitToSequence's", 11);
    }
    return 0;
  case CLEAVE_OP_ONNX_SPLIT:
  default:
    if (!o->opset.given) {
      return missing(o, "--opset", " (it selects the Split version: 1, 2, 11, 13 or 18)");
    }
    if (o->opset.value < 1) {
      return below_first_version(o, "ONNX Split's", 1);
    }
    if (o->opset.value < 18 && !o->lengths.given && !o->num.given) {
      return cli_error(CLI_EXIT_USAGE,
                       "below opset 18 Split needs -l/--lengths or -n/--num-splits (the "
                       "node's number of outputs); --opset is %" PRId64,
                       o->opset.value);
    }
    return 0;
  }
}

/* A join's operator options. */
static int check_join(op_options *o) {
  if (o->command->join_kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
    if (!o->opset.given) {
      o->opset.value = 11;
    } else if (o->opset.value < 11) {
      return below_first_version(o, "ConcatFromSequence's", 11);
    }
    if (!o->axis.given) {
      return missing(o, "-a/--axis", " (ConcatFromSequence has no default axis)");
    }
  } else if (!o->opset.given) {
    if (!o->axis.given) {
      return missing(o, "-a/--axis",
                     " (OpenVINO Concat-1 has no default axis; with --opset 1 to 3, ONNX Concat-1 "
                     "defaults to 1)");
    }
  } else if (o->opset.value < 1) {
    return below_first_version(o, "ONNX Concat's", 1);
  } else if (o->opset.value >= 4 && !o->axis.given) {
    return missing(o, "-a/--axis",
                   " (ONNX Concat has no default axis from version 4; --opset 1 to 3 runs "
                   "Concat-1, whose default is 1)");
  }
  return 0;
}

/* A split on a file: --shape is the logical shape of packed data, whose .npy holds only bytes. */
static int check_split_file(const op_options *o) {
  size_t shapes = o->flags.shapes.count;
  if (packed_dtype(o->flags.dtype.dtype) && shapes == 0) {
    /* u1, u2, u4 and i4 are NumPy codes too: say which one is meant here. */
    char note[160], why[320];
    int numpy = dtype_numpy_note(o->flags.dtype_text, NULL, note, sizeof note);
    snprintf(why, sizeof why,
             " with a packed --dtype (the file holds the packed bytes; --shape gives the logical "
             "shape)%s%s",
             numpy ? "; " : "", note);
    return missing(o, "--shape", why);
  }
  if (!packed_dtype(o->flags.dtype.dtype) && shapes > 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "--shape is only for a packed --dtype (u1, u2, u4, i4, nf4, f4e2m1, "
                     "int4, uint4, int2, uint2, float4e2m1); the .npy header gives the shape of "
                     "other data");
  }
  if (o->inputs.count == 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "the input file is missing (usage: cleave %s [OPTIONS] INPUT.npy)", o->scope);
  }
  return 0;
}

/* A join on files: -o, the inputs, and one --shape per input exactly when the data is packed. */
static int check_join_files(const op_options *o) {
  size_t shapes = o->flags.shapes.count, inputs = o->inputs.count;
  if (packed_dtype(o->flags.dtype.dtype)) {
    if (shapes == 0) {
      return missing(o, "--shape",
                     " with a packed --dtype (one per input, in order: the files hold the packed "
                     "bytes, --shape gives each one's logical shape)");
    }
  } else if (shapes > 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "--shape is only for a packed --dtype (u1, u2, u4, i4, nf4, f4e2m1, "
                     "int4, uint4, int2, uint2, float4e2m1); the .npy headers give the shapes of "
                     "other data");
  }
  if (o->flags.output == NULL) {
    return missing(o, "-o/--output OUTPUT.npy", "");
  }
  if (inputs == 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "the input files are missing (usage: cleave %s [OPTIONS] -o OUTPUT.npy "
                     "INPUT.npy...)",
                     o->scope);
  }
  if (shapes > 0 && shapes != inputs) {
    return cli_error(CLI_EXIT_USAGE,
                     "%zu --shape %s for %zu %s: a packed --dtype takes one --shape per "
                     "input, in order",
                     shapes, tool_plural(shapes, "option", "options"), inputs,
                     tool_plural(inputs, "input", "inputs"));
  }
  return 0;
}

/* What the parser cannot tell from the table: the arguments, and the options a split takes
 * once but a join once per input. */
static int check_arguments(const op_options *o) {
  const op_command *c = o->command;
  if (o->for_infer && o->inputs.count > 0) {
    return cli_error(CLI_EXIT_USAGE, "unexpected argument '%s' (infer reads no file: give %s)",
                     o->inputs.items[0], c->join ? "one --shape per input" : "--shape");
  }
  if (!c->join && o->inputs.count > 1) {
    return cli_error(CLI_EXIT_USAGE, "unexpected argument '%s'", o->inputs.items[1]);
  }
  if (!c->join && o->flags.shapes.count > 1) {
    return cli_error(CLI_EXIT_USAGE, "option --shape is given twice");
  }
  if (o->flags.output != NULL && o->flags.output[0] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "-o/--output: the %s is empty",
                     c->join ? "output file name" : "output prefix");
  }
  return 0;
}

int op_options_parse(op_options *o, const op_command *command, int for_infer, int argc, char **argv,
                     int first) {
  memset(o, 0, sizeof *o);
  o->command = command;
  o->for_infer = for_infer;
  const cli_spec *spec = for_infer ? command->infer_spec : command->spec;
  o->scope = spec->name;
  o->flags.dtype = cleave_type_of(CLEAVE_F32);
  o->keepdims.value = 1;
  o->axis.unknown_ok = o->size.unknown_ok = o->lengths.unknown_ok = for_infer;
  size_t room = argc > first ? (size_t)(argc - first) : 0;
  o->flags.shapes.items = calloc(room + 1, sizeof *o->flags.shapes.items);
  o->inputs.items = calloc(room + 1, sizeof *o->inputs.items);
  if (o->flags.shapes.items == NULL || o->inputs.items == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  cli_args args;
  int rc = cli_parse(spec, o, argc, argv, first, &args);
  for (size_t i = 0; rc == 0 && i < args.positional_count; i++) {
    o->inputs.items[o->inputs.count++] = args.positional[i];
  }
  cli_args_free(&args);
  if (rc == 0) {
    rc = check_arguments(o);
  }
  if (rc == 0) {
    rc = command->join ? check_join(o) : check_split(o);
  }
  if (rc != 0) {
    return rc;
  }
  if (for_infer) {
    return o->flags.shapes.count == 0
               ? missing(o, command->join ? "--shape (one per input, in order)" : "--shape", "")
               : 0;
  }
  return command->join ? check_join_files(o) : check_split_file(o);
}

void op_options_free(op_options *o) {
  free(o->lengths.values);
  free(o->flags.shapes.items);
  free(o->inputs.items);
  memset(o, 0, sizeof *o);
}

unsigned op_options_unknown(const op_options *o) {
  unsigned flags = CLEAVE_UNKNOWN_NONE;
  if (o->axis.unknown) {
    flags |= CLEAVE_UNKNOWN_AXIS;
  }
  if (o->lengths.unknown || o->size.unknown) {
    flags |= CLEAVE_UNKNOWN_LENGTHS;
  }
  return flags;
}

cleave_op op_options_split(const op_options *o) {
  cleave_op op;
  switch (o->command->kind) {
  case CLEAVE_OP_SPLIT:
    op = cleave_op_split(&o->axis.value, o->num.value);
    break;
  case CLEAVE_OP_VARIADIC_SPLIT:
    op = cleave_op_variadic_split(&o->axis.value, o->lengths.values, (size_t)o->lengths.count);
    break;
  case CLEAVE_OP_SPLIT_TO_SEQUENCE:
    op = cleave_op_split_to_sequence(o->opset.value);
    op.keepdims = o->keepdims.value;
    if (o->size.given) {
      op.lengths = cleave_values_scalar(&o->size.value);
    }
    break;
  case CLEAVE_OP_ONNX_SPLIT:
  default:
    op = cleave_op_onnx_split(o->opset.value);
    if (o->num.given) {
      op.num_outputs = cleave_values_scalar(&o->num.value);
    }
    break;
  }
  if (o->command->kind == CLEAVE_OP_SPLIT_TO_SEQUENCE || o->command->kind == CLEAVE_OP_ONNX_SPLIT) {
    if (o->axis.given) {
      op.axis = cleave_values_scalar(&o->axis.value);
    }
    if (o->lengths.given) {
      op.lengths = cleave_values_list(o->lengths.values, (size_t)o->lengths.count);
    }
  }
  return op;
}

cleave_concat_op op_options_join(const op_options *o) {
  if (o->command->join_kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
    return cleave_op_concat_from_sequence(o->opset.value, &o->axis.value, o->new_axis.value);
  }
  if (o->opset.given) {
    return cleave_op_onnx_concat(o->opset.value, o->axis.given ? &o->axis.value : NULL);
  }
  return cleave_op_concat(&o->axis.value);
}
