/* Options of the joining commands and of `cleave infer concat...`. */
#include "concat_options.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli_util.h"
#include "op_options.h"
#include "packed_input.h"

static const concat_command commands[] = {
    {"concat", CLEAVE_OP_CONCAT},
    {"concat-from-sequence", CLEAVE_OP_CONCAT_FROM_SEQUENCE},
};

const concat_command *concat_command_find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(commands[i].name, name) == 0) {
      return &commands[i];
    }
  }
  return NULL;
}

/* The joining commands' own options; op_options.c has the ones the splitting commands share. */
enum { OPT_AXIS = OP_OUTPUT_ID_END, OPT_OPSET, OPT_NEW_AXIS, OPT_SHAPE, OPT_HELP };

static const cli_option own_options[] = {
    {"axis", 'a', 1, OPT_AXIS}, {"opset", 0, 1, OPT_OPSET}, {"new-axis", 0, 1, OPT_NEW_AXIS},
    {"shape", 0, 1, OPT_SHAPE}, {"help", 'h', 0, OPT_HELP},
};
#define OWN_OPTION_COUNT (sizeof own_options / sizeof own_options[0])

/* Whether `command` accepts its own option `id` (on files and under infer alike). */
static int accepts(const concat_command *command, int id) {
  return id != OPT_NEW_AXIS || command->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE;
}

static const char *scope(const concat_options *o, char *buf, size_t size) {
  snprintf(buf, size, "%s%s", o->for_infer ? "infer " : "", o->command->name);
  return buf;
}

static int twice(const concat_options *o, const char *label) {
  char s[64];
  return cli_error(CLI_EXIT_USAGE, "%s: option %s is given twice", scope(o, s, sizeof s), label);
}

/* Appends `value` to a growing array of strings (capacity: argc, so it never grows). */
static void push(const char **array, size_t *count, const char *value) {
  array[(*count)++] = value;
}

static int take_option(concat_options *o, int id, const char *value, const char *label) {
  switch (id) {
  case OPT_AXIS:
    if (o->has_axis) {
      return twice(o, label);
    }
    o->has_axis = 1;
    if (strcmp(value, "?") == 0) {
      if (!o->for_infer) {
        return cli_error(CLI_EXIT_USAGE,
                         "%s: '?' (an unknown value) is only meaningful for 'cleave infer'", label);
      }
      o->axis_unknown = 1;
      return 0;
    }
    return cli_parse_int64(value, label, &o->axis);
  case OPT_OPSET:
    if (o->has_opset) {
      return twice(o, label);
    }
    o->has_opset = 1;
    return cli_parse_int64(value, label, &o->opset);
  case OPT_NEW_AXIS:
    if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
      return cli_error(CLI_EXIT_USAGE, "%s: '%s' is not 0 or 1", label, value);
    }
    o->new_axis = value[0] - '0';
    return 0;
  case OPT_SHAPE:
    push(o->shapes, &o->shape_count, value);
    return 0;
  default: {
    char s[64];
    return op_output_take(&o->flags, id, value, label, scope(o, s, sizeof s), "output file name");
  }
  }
}

static int missing(const concat_options *o, const char *what, const char *why) {
  char s[64];
  scope(o, s, sizeof s);
  return cli_error(CLI_EXIT_USAGE, "%s: %s is required%s (see 'cleave %s --help')", s, what, why,
                   s);
}

/* The checks of the command line as a whole, after every option is read. */
static int check_combination(concat_options *o) {
  char s[64];
  scope(o, s, sizeof s);
  if (o->command->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
    if (!o->has_opset) {
      o->opset = 11;
    } else if (o->opset < 11) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --opset %" PRId64 " is below ConcatFromSequence's first version (11)",
                       s, o->opset);
    }
    if (!o->has_axis) {
      return missing(o, "-a/--axis", " (ConcatFromSequence has no default axis)");
    }
  } else if (!o->has_opset) {
    if (!o->has_axis) {
      return missing(o, "-a/--axis",
                     " (OpenVINO Concat-1 has no default axis; with --opset 1 to 3, ONNX Concat-1 "
                     "defaults to 1)");
    }
  } else if (o->opset < 1) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --opset %" PRId64 " is below ONNX Concat's first version (1)", s,
                     o->opset);
  } else if (o->opset >= 4 && !o->has_axis) {
    return missing(o, "-a/--axis",
                   " (ONNX Concat has no default axis from version 4; --opset 1 to 3 runs "
                   "Concat-1, whose default is 1)");
  }
  if (o->for_infer) {
    if (o->shape_count == 0) {
      return missing(o, "--shape (one per input, in order)", "");
    }
    return 0;
  }
  if (packed_dtype(o->flags.dtype.dtype)) {
    if (o->shape_count == 0) {
      return missing(o, "--shape",
                     " with a packed --dtype (one per input, in order: the files hold the packed "
                     "bytes, --shape gives each one's logical shape)");
    }
  } else if (o->shape_count > 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --shape is only for a packed --dtype (u1, u2, u4, i4, nf4, f4e2m1, "
                     "int4, uint4, int2, uint2, float4e2m1); the .npy headers give the shapes of "
                     "other data",
                     s);
  }
  if (o->flags.output == NULL) {
    return missing(o, "-o/--output OUTPUT.npy", "");
  }
  if (o->input_count == 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: the input files are missing (usage: cleave %s [OPTIONS] -o OUTPUT.npy "
                     "INPUT.npy...)",
                     s, s);
  }
  if (o->shape_count > 0 && o->shape_count != o->input_count) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: %zu --shape %s for %zu %s: a packed --dtype takes one --shape per "
                     "input, in order",
                     s, o->shape_count, tool_plural(o->shape_count, "option", "options"),
                     o->input_count, tool_plural(o->input_count, "input", "inputs"));
  }
  return 0;
}

int concat_options_parse(concat_options *o, const concat_command *command, int for_infer, int argc,
                         char **argv, int first) {
  memset(o, 0, sizeof *o);
  o->command = command;
  o->for_infer = for_infer;
  op_output_flags_init(&o->flags);
  size_t room = argc > first ? (size_t)(argc - first) : 0;
  o->inputs = calloc(room + 1, sizeof *o->inputs);
  o->shapes = calloc(room + 1, sizeof *o->shapes);
  if (o->inputs == NULL || o->shapes == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  cli_option accepted[OWN_OPTION_COUNT + OP_OUTPUT_OPTION_COUNT];
  size_t count = 0;
  for (size_t i = 0; i < OWN_OPTION_COUNT; i++) {
    if (accepts(command, own_options[i].id)) {
      accepted[count++] = own_options[i];
    }
  }
  count += op_output_accepted(for_infer, accepted + count);
  char s[64];
  scope(o, s, sizeof s);
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, s);
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
      if (for_infer) {
        return cli_error(CLI_EXIT_USAGE,
                         "%s: unexpected argument '%s' (infer reads no file: give one --shape "
                         "per input)",
                         s, value);
      }
      push(o->inputs, &o->input_count, value);
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

void concat_options_free(concat_options *o) {
  free(o->inputs);
  free(o->shapes);
  o->inputs = NULL;
  o->shapes = NULL;
}

cleave_concat_op concat_options_build(const concat_options *o) {
  if (o->command->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
    return cleave_op_concat_from_sequence(o->opset, &o->axis, o->new_axis);
  }
  if (o->has_opset) {
    return cleave_op_onnx_concat(o->opset, o->has_axis ? &o->axis : NULL);
  }
  return cleave_op_concat(&o->axis);
}

const char *concat_options_operator(const concat_options *o) {
  if (o->command->kind == CLEAVE_OP_CONCAT_FROM_SEQUENCE) {
    return "ConcatFromSequence";
  }
  return o->has_opset ? "ONNX Concat" : "OpenVINO Concat-1";
}
