/* The table of operators: each operator command's entry, options and help. */
#include "op_commands.h"

#include <string.h>

#include "op_options.h"
#include "op_run.h"

/* ---- the operators' own options --------------------------------------------------------- */

#define AXIS(HELP)                                                                                 \
  CLI_CALL_ONCE('a', "axis", "AXIS", op_options, axis, op_take_int, OP_MAY_BE_UNKNOWN, HELP)
#define NUM(HELP) CLI_CALL_ONCE('n', "num-splits", "NUM", op_options, num, op_take_int, 0, HELP)
#define LENGTHS(HELP)                                                                              \
  CLI_CALL_ONCE('l', "lengths", "LEN,...", op_options, lengths, op_take_list, 0, HELP)
#define SPLIT_SIZE(HELP)                                                                           \
  CLI_CALL_ONCE('s', "split-size", "SIZE", op_options, size, op_take_int, OP_MAY_BE_UNKNOWN, HELP)
#define KEEPDIMS(HELP)                                                                             \
  CLI_CALL_ONCE('k', "keepdims", "0|1", op_options, keepdims, op_take_bit, 0, HELP)
#define OPSET(HELP) CLI_CALL_ONCE(0, "opset", "N", op_options, opset, op_take_int, 0, HELP)
#define NEW_AXIS(HELP)                                                                             \
  CLI_CALL_ONCE(0, "new-axis", "0|1", op_options, new_axis, op_take_bit, 0, HELP)

static const char openvino_axis[] = "the axis, in [-rank, rank-1] (required: no default)";

static const cli_opt split_own[] = {
    AXIS(openvino_axis),
    NUM("the number of outputs; must divide the axis dimension"),
    CLI_END,
};

static const cli_opt variadic_own[] = {
    AXIS(openvino_axis),
    LENGTHS("split_lengths: one output per entry; entries >= 0 and at most one -1 (the rest of "
            "the axis); they sum to the axis dimension"),
    CLI_END,
};

static const cli_opt sequence_own[] = {
    AXIS("the axis (default 0)"),
    SPLIT_SIZE("a scalar split: chunks of SIZE, then the remainder"),
    LENGTHS("a 1-D split: one element per entry, entries >= 0 summing to the axis dimension "
            "(excludes -s)"),
    KEEPDIMS("without a split, 0 removes the axis from every element (default 1; ignored when a "
             "split is given)"),
    OPSET("the ONNX opset (default 24): 11 to 23 run SplitToSequence-11, 24 and above "
          "SplitToSequence-24 (which adds bfloat16)"),
    CLI_END,
};

static const cli_opt onnx_split_own[] = {
    OPSET("the ONNX opset (required, >= 1)"),
    AXIS("the axis (default 0)"),
    LENGTHS("the split lengths: entries >= 0 summing to the axis dimension"),
    NUM("below opset 18: the node's number of outputs (equal parts, or checked against the "
        "number of lengths); at 18: num_outputs (parts of ceil(d/NUM), the last one smaller)"),
    CLI_END,
};

static const cli_opt concat_own[] = {
    AXIS("the axis, in [-rank, rank-1]; required, except at --opset 1 to 3 (ONNX Concat-1 "
         "defaults to 1; it and Concat-4 take no negative axis)"),
    OPSET("ONNX Concat at opset N >= 1 instead of OpenVINO Concat-1: Concat-1 takes f16, f32, "
          "f64; 4 and 11 the fifteen ONNX types; 13 adds bf16"),
    CLI_END,
};

static const cli_opt sequence_join_own[] = {
    AXIS("the axis (required); with --new-axis 1, in [-rank-1, rank]"),
    NEW_AXIS("1 stacks the inputs along a new axis (default 0)"),
    OPSET("the ONNX opset, >= 11 (default 11: ConcatFromSequence has one version)"),
    CLI_END,
};

/* Each command's table on files (its own options and the output options) and under infer (its
 * own options and the inference options). */
#define TABLES(OWN)                                                                                \
  static const cli_opt OWN##_file[] = {                                                            \
      CLI_INCLUDE_SAME(OWN),                                                                       \
      CLI_INCLUDE(op_options, flags, op_output_options),                                           \
      CLI_END,                                                                                     \
  };                                                                                               \
  static const cli_opt OWN##_infer[] = {                                                           \
      CLI_INCLUDE_SAME(OWN),                                                                       \
      CLI_INCLUDE(op_options, flags, op_infer_options),                                            \
      CLI_END,                                                                                     \
  }
TABLES(split_own);
TABLES(variadic_own);
TABLES(sequence_own);
TABLES(onnx_split_own);
TABLES(concat_own);
TABLES(sequence_join_own);

/* ---- the help texts --------------------------------------------------------------------- */

static const char split_notes[] =
    "The input is a .npy file (format 1.0, 2.0 or 3.0) of any byte-sized dtype (in NumPy's\n"
    "codes: b1, i1-i8, u1-u8, f2, f4, f8, c8, c16, S<n>, U<n>), in either byte order and in C\n"
    "or Fortran order.\n"
    "Outputs keep the dtype, byte order and memory order, and load as NumPy's slices of the\n"
    "input. Memory use does not depend on the input size.\n"
    "\n"
    "Packed data (--dtype with --shape) is a stream of elements of 1, 2 or 4 bits: u1 and u2\n"
    "put the first element in the most significant bits of byte 0, the other types in the\n"
    "least significant bits. Each output is written as a 1-D uint8 array of\n"
    "ceil(elements x bits / 8) bytes, packed from its own bit 0, with the unused bits of its\n"
    "last byte zero; the reported shapes are the logical ones. u3 and u6 are not supported.\n"
    "Of the operators, split and variadic-split accept packed types (no ONNX version here\n"
    "does).\n";

static const char join_notes[] =
    "The inputs are .npy files (format 1.0, 2.0 or 3.0) of one byte-sized type, in either byte\n"
    "order and in C or Fortran order. The output has the first input's dtype and byte order\n"
    "(inputs in the other byte order are converted) and the memory order of the first input\n"
    "whose layout depends on it (C order when none does; an input in the other order is\n"
    "transposed on the way); loaded with numpy.load it equals numpy.concatenate (numpy.stack)\n"
    "of the loaded inputs. Packed inputs (a packed --dtype, one --shape per input) give a 1-D\n"
    "uint8 array of the output's packed bytes. Memory use does not depend on the input sizes.\n"
    "Errors about an input name its file and the dimension at fault.\n";

static const char infer_about[] =
    "Shape inference only, reading no file: prints the shape of each output of the operator on\n"
    "data of SHAPE, one per line (for a join, one --shape per input, in order, and the one\n"
    "output's shape). The operator takes the options of its command on files, without the\n"
    "output options. Partial shapes and unknown values give the tightest bounds over every\n"
    "valid input they allow; a split-to-sequence whose element count varies prints\n"
    "'COUNT x ELEMENT_SHAPE' instead. An empty sequence prints nothing.\n";

#define UNKNOWN_VALUES                                                                             \
  "Values unknown: -a ? (the axis), -l ?,?,... (the lengths, their count known), -s ? (the\n"      \
  "scalar split).\n"

static const char infer_split_notes[] =
    UNKNOWN_VALUES "\n"
                   "Example:\n"
                   "  cleave infer split -a '?' -n 2 --shape '[2,6,4]'\n";

static const char infer_join_notes[] =
    "Values unknown: -a ? (the axis).\n"
    "\n"
    "Example:\n"
    "  cleave infer concat -a 0 --shape '[2,?]' --shape '[3..5,4]'\n";

/* ---- the commands ----------------------------------------------------------------------- */

enum { COMMAND_COUNT = 6 };

static const cli_spec *const file_specs[COMMAND_COUNT + 1];
static const cli_spec *const infer_specs[COMMAND_COUNT + 1];

#define FILE_SPEC(NAME, OWN, USAGE, ABOUT, NOTES)                                                  \
  {                                                                                                \
    .name = NAME, .usage = USAGE, .about = ABOUT, .options = OWN##_file, .notes = NOTES,           \
    .siblings = file_specs                                                                         \
  }
#define INFER_SPEC(NAME, OWN, USAGE, NOTES)                                                        \
  {                                                                                                \
    .name = "infer " NAME, .usage = USAGE, .about = infer_about, .options = OWN##_infer,           \
    .notes = NOTES, .siblings = infer_specs                                                        \
  }

static const cli_spec specs[] = {
    FILE_SPEC("split", split_own, "cleave split -a AXIS -n NUM_SPLITS [OUTPUT OPTIONS] INPUT.npy",
              "OpenVINO Split-1: splits INPUT along AXIS into NUM_SPLITS parts of equal length.\n",
              split_notes),
    FILE_SPEC("variadic-split", variadic_own,
              "cleave variadic-split -a AXIS -l LEN,LEN,... [OUTPUT OPTIONS] INPUT.npy",
              "OpenVINO VariadicSplit-1: splits INPUT along AXIS into parts of the given "
              "lengths.\n",
              split_notes),
    FILE_SPEC("split-to-sequence", sequence_own,
              "cleave split-to-sequence [-a AXIS] [-s SIZE | -l LEN,...] [-k 0|1] [--opset N]\n"
              "                                [OUTPUT OPTIONS] INPUT.npy",
              "ONNX SplitToSequence: splits INPUT along AXIS into a sequence of tensors, one "
              "output file\nper element (an empty sequence writes no file).\n",
              split_notes),
    FILE_SPEC("onnx-split", onnx_split_own,
              "cleave onnx-split --opset N [-a AXIS] [-l LEN,... | -n NUM] [OUTPUT OPTIONS]\n"
              "                         INPUT.npy",
              "ONNX Split at an opset: the operator version in force there (1, 2, 11, 13 or 18; "
              "opset 12\nruns Split-11). Below opset 18 one of -l and -n is needed; at 18 "
              "exactly one of them.\n",
              split_notes),
    FILE_SPEC("concat", concat_own,
              "cleave concat [-a AXIS] [--opset N] -o OUTPUT.npy [OUTPUT OPTIONS] INPUT.npy...",
              "Joins the inputs along AXIS into one file, in the order given: OpenVINO Concat-1, "
              "or with\n--opset the ONNX Concat in force at that opset (1, 4, 11 or 13; opset 12 "
              "runs Concat-11).\nThe inputs have one element type and one rank, and equal dims "
              "except on AXIS, whose dim in\nthe output is the sum of theirs. The inverse of the "
              "split commands: the parts of a split\njoined along its axis give back the "
              "input's data.\n",
              join_notes),
    FILE_SPEC("concat-from-sequence", sequence_join_own,
              "cleave concat-from-sequence -a AXIS [--new-axis 0|1] -o OUTPUT.npy\n"
              "                                   [OUTPUT OPTIONS] INPUT.npy...",
              "ONNX ConcatFromSequence-11 on the sequence of the inputs, in the order given: with\n"
              "--new-axis 0 (the default) it joins them along AXIS as concat does; with "
              "--new-axis 1 the\ninputs have one shape and are stacked along a new axis "
              "inserted at AXIS, in\n[-rank-1, rank] (as numpy.stack). It undoes "
              "split-to-sequence: -k 0 without a split is\nundone by --new-axis 1.\n",
              join_notes),
    INFER_SPEC("split", split_own,
               "cleave infer split -a AXIS -n NUM_SPLITS --shape SHAPE [--dtype TYPE] [--json]",
               infer_split_notes),
    INFER_SPEC("variadic-split", variadic_own,
               "cleave infer variadic-split -a AXIS -l LEN,... --shape SHAPE [--dtype TYPE]\n"
               "                                   [--json]",
               infer_split_notes),
    INFER_SPEC("split-to-sequence", sequence_own,
               "cleave infer split-to-sequence [-a AXIS] [-s SIZE | -l LEN,...] [-k 0|1]\n"
               "                                      [--opset N] --shape SHAPE [--dtype TYPE] "
               "[--json]",
               infer_split_notes),
    INFER_SPEC("onnx-split", onnx_split_own,
               "cleave infer onnx-split --opset N [-a AXIS] [-l LEN,... | -n NUM] --shape SHAPE\n"
               "                               [--dtype TYPE] [--json]",
               infer_split_notes),
    INFER_SPEC("concat", concat_own,
               "cleave infer concat [-a AXIS] [--opset N] --shape SHAPE... [--dtype TYPE] "
               "[--json]",
               infer_join_notes),
    INFER_SPEC("concat-from-sequence", sequence_join_own,
               "cleave infer concat-from-sequence -a AXIS [--new-axis 0|1] --shape SHAPE...\n"
               "                                         [--dtype TYPE] [--json]",
               infer_join_notes),
};

static const cli_spec *const file_specs[COMMAND_COUNT + 1] = {
    &specs[0], &specs[1], &specs[2], &specs[3], &specs[4], &specs[5], NULL};
static const cli_spec *const infer_specs[COMMAND_COUNT + 1] = {
    &specs[6], &specs[7], &specs[8], &specs[9], &specs[10], &specs[11], NULL};

static const op_command commands[COMMAND_COUNT] = {
    {"split", 0, CLEAVE_OP_SPLIT, CLEAVE_OP_CONCAT, &op_split_family, &specs[0], &specs[6]},
    {"variadic-split", 0, CLEAVE_OP_VARIADIC_SPLIT, CLEAVE_OP_CONCAT, &op_split_family, &specs[1],
     &specs[7]},
    {"split-to-sequence", 0, CLEAVE_OP_SPLIT_TO_SEQUENCE, CLEAVE_OP_CONCAT, &op_split_family,
     &specs[2], &specs[8]},
    {"onnx-split", 0, CLEAVE_OP_ONNX_SPLIT, CLEAVE_OP_CONCAT, &op_split_family, &specs[3],
     &specs[9]},
    {"concat", 1, CLEAVE_OP_SPLIT, CLEAVE_OP_CONCAT, &op_join_family, &specs[4], &specs[10]},
    {"concat-from-sequence", 1, CLEAVE_OP_SPLIT, CLEAVE_OP_CONCAT_FROM_SEQUENCE, &op_join_family,
     &specs[5], &specs[11]},
};

const op_command *op_command_find(const char *name) {
  for (size_t i = 0; i < COMMAND_COUNT; i++) {
    if (strcmp(commands[i].name, name) == 0) {
      return &commands[i];
    }
  }
  return NULL;
}

static const cli_opt infer_table[] = {
    CLI_INCLUDE(op_options, flags, op_infer_options),
    CLI_END,
};

const cli_spec op_infer_spec = {
    .name = "infer",
    .usage = "cleave infer OP [OP OPTIONS] --shape SHAPE [--dtype TYPE] [--json]\n"
             "       cleave infer concat|concat-from-sequence [OP OPTIONS] --shape SHAPE... "
             "[--dtype TYPE]",
    .about = infer_about,
    .options = infer_table,
    .notes = "OP is split, variadic-split, split-to-sequence, onnx-split, concat or\n"
             "concat-from-sequence; 'cleave infer OP --help' lists its options.\n"
             "\n" UNKNOWN_VALUES,
};
