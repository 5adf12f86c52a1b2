/* The help texts of the commands. Every option of every command is explained here and in
 * docs/cleave.1. */
#include <string.h>

#include "help.h"

static const char file_options[] =
    "\n"
    "Output options:\n"
    "  -o, --output PREFIX  write output i to PREFIX_i.npy (default: INPUT without .npy);\n"
    "                       an existing directory, or a PREFIX ending in '/', holds the\n"
    "                       outputs: DIR/STEM_i.npy, STEM being INPUT's file name without\n"
    "                       .npy. The directory must exist\n"
    "  -f, --force          replace outputs that already exist (otherwise: status 73); files\n"
    "                       PREFIX_k.npy beyond this run's outputs are left as they are, and\n"
    "                       named in a warning\n"
    "      --json           print {\"op\": ..., \"outputs\": [{\"shape\": \"[6,4]\", \"path\": "
    "...,\n"
    "                       \"dims\": [6, 4]}, ...]}\n"
    "  -q, --quiet          print nothing on success (--json still prints)\n"
    "      --no-progress    no progress line on stderr (it is shown only on a terminal)\n"
    "      --sync           fsync the outputs and their directory before finishing\n"
    "      --dtype TYPE     what the data holds when the file cannot say it: for raw void data\n"
    "                       (descr V<n>), bf16 for V2 as saved by ml_dtypes, f8e4m3, f8e5m2,\n"
    "                       f8e4m3fnuz, f8e5m2fnuz or f8e8m0 for V1; for a 1-D uint8 array of\n"
    "                       packed bytes, a packed sub-byte type (u1, u2, u4, i4, nf4, f4e2m1,\n"
    "                       int4, uint4, int2, uint2, float4e2m1) with --shape; for other data\n"
    "                       it must name the file's own type. Names count bits, not bytes as\n"
    "                       NumPy's codes do: i8 is int8 (NumPy's 'i8' is i64), u4 is packed\n"
    "                       4-bit (NumPy's 'u4' is u32)\n"
    "      --shape SHAPE    the logical shape of packed data, e.g. [4096,8191]: required with a\n"
    "                       packed --dtype, refused without one. The file must hold\n"
    "                       ceil(elements x bits / 8) bytes\n"
    "  -h, --help           print this help\n"
    "\n"
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

static const char split_help[] =
    "usage: cleave split -a AXIS -n NUM_SPLITS [OUTPUT OPTIONS] INPUT.npy\n"
    "\n"
    "OpenVINO Split-1: splits INPUT along AXIS into NUM_SPLITS parts of equal length.\n"
    "\n"
    "  -a, --axis AXIS            the axis, in [-rank, rank-1] (required: no default)\n"
    "  -n, --num-splits NUM       the number of outputs; must divide the axis dimension\n";

static const char variadic_help[] =
    "usage: cleave variadic-split -a AXIS -l LEN,LEN,... [OUTPUT OPTIONS] INPUT.npy\n"
    "\n"
    "OpenVINO VariadicSplit-1: splits INPUT along AXIS into parts of the given lengths.\n"
    "\n"
    "  -a, --axis AXIS            the axis, in [-rank, rank-1] (required: no default)\n"
    "  -l, --lengths LEN,...      split_lengths: one output per entry; entries >= 0 and at most\n"
    "                             one -1 (the rest of the axis); they sum to the axis dimension\n";

static const char sequence_help[] =
    "usage: cleave split-to-sequence [-a AXIS] [-s SIZE | -l LEN,...] [-k 0|1] [--opset N]\n"
    "                                [OUTPUT OPTIONS] INPUT.npy\n"
    "\n"
    "ONNX SplitToSequence: splits INPUT along AXIS into a sequence of tensors, one output file\n"
    "per element (an empty sequence writes no file).\n"
    "\n"
    "  -a, --axis AXIS            the axis (default 0)\n"
    "  -s, --split-size SIZE      a scalar split: chunks of SIZE, then the remainder\n"
    "  -l, --lengths LEN,...      a 1-D split: one element per entry, entries >= 0 summing to\n"
    "                             the axis dimension (excludes -s)\n"
    "  -k, --keepdims 0|1         without a split, 0 removes the axis from every element\n"
    "                             (default 1; ignored when a split is given)\n"
    "      --opset N              the ONNX opset (default 24): 11 to 23 run SplitToSequence-11,\n"
    "                             24 and above SplitToSequence-24 (which adds bfloat16)\n";

static const char onnx_split_help[] =
    "usage: cleave onnx-split --opset N [-a AXIS] [-l LEN,... | -n NUM] [OUTPUT OPTIONS]\n"
    "                         INPUT.npy\n"
    "\n"
    "ONNX Split at an opset: the operator version in force there (1, 2, 11, 13 or 18; opset 12\n"
    "runs Split-11).\n"
    "\n"
    "      --opset N              the ONNX opset (required, >= 1)\n"
    "  -a, --axis AXIS            the axis (default 0)\n"
    "  -l, --lengths LEN,...      the split lengths: entries >= 0 summing to the axis dimension\n"
    "  -n, --num-splits NUM       below opset 18: the node's number of outputs (equal parts, or\n"
    "                             checked against the number of lengths); at 18: num_outputs\n"
    "                             (parts of ceil(d/NUM), the last one smaller)\n"
    "Below opset 18 one of -l and -n is needed; at 18 exactly one of them.\n";

static const char infer_help[] =
    "usage: cleave infer OP [OP OPTIONS] --shape SHAPE [--dtype TYPE] [--json]\n"
    "       cleave infer concat|concat-from-sequence [OP OPTIONS] --shape SHAPE... [--dtype TYPE]\n"
    "\n"
    "Shape inference only: prints the shape of each output of OP (split, variadic-split,\n"
    "split-to-sequence or onnx-split) on data of SHAPE, one per line; for concat and\n"
    "concat-from-sequence, one --shape per input, in order, and the one output's shape. OP\n"
    "takes the options of its command (see 'cleave OP --help'), without the output options.\n"
    "Partial shapes and unknown values give the tightest bounds over every valid input they\n"
    "allow; a split-to-sequence whose element count varies prints 'COUNT x ELEMENT_SHAPE'\n"
    "instead. An empty sequence prints nothing.\n"
    "\n"
    "      --shape SHAPE          the data shape, e.g. [6,12,10,24]; [] is a scalar. A dim may\n"
    "                             be N, ? or -1 (unknown), L..H or L.. (at least L); [...] is\n"
    "                             an unknown rank\n"
    "  -a ?, -l ?,?,..., -s ?     the axis, the lengths (their count known), the scalar split:\n"
    "                             values unknown\n"
    "      --dtype TYPE           the element type (default f32): boolean, i8, i16, i32, i64,\n"
    "                             u8, u16, u32, u64, f16, bf16, f32, f64, c64, c128, f8e4m3,\n"
    "                             f8e5m2, f8e4m3fnuz, f8e5m2fnuz, f8e8m0, string, S<n>, U<n>,\n"
    "                             or packed: u1, u2, u4, i4, nf4, f4e2m1, int4, uint4, int2,\n"
    "                             uint2, float4e2m1 (u3 and u6 are not supported)\n"
    "      --json                 print {\"op\": ..., \"outputs\": [{\"shape\": \"[6,4]\", "
    "\"dims\":\n"
    "                             [6, 4]}, ...]} (\"dims\" for static shapes only), or\n"
    "                             {\"op\": ..., \"count\": ..., \"element\": ...}\n"
    "  -h, --help                 print this help\n";

static const char demo_help[] =
    "usage: cleave demo\n"
    "\n"
    "Runs, on built-in data and without files, the examples of the OpenVINO specifications\n"
    "(Split-1 of [6,12,10,24] along axis 1 into 3; VariadicSplit-1 with split_lengths [1,2,3]\n"
    "and [-1,2]) and two SplitToSequence examples (a scalar split with a remainder; keepdims 0),\n"
    "prints the output shapes, and checks that the outputs put back together give the input:\n"
    "once by offsets worked out from the output lengths alone, once by cleave's own inverse\n"
    "(Concat-1, or ConcatFromSequence-11 with new_axis 1 where the axis was removed).\n"
    "Exits with 0 when every round trip holds, 70 otherwise. The OpenVINO examples also exist as\n"
    "IR nets in docs/examples/ (split-1.xml, variadic-split-1*.xml): see 'cleave ir-run'.\n";

static const char onnx_test_help[] =
    "usage: cleave onnx-test DIR...\n"
    "\n"
    "Runs ONNX backend node test folders (model.onnx and test_data_set_*) through the library\n"
    "and compares the outputs. Available only in builds configured with -DCLEAVE_WITH_ONNX=ON.\n";

static const char ir_check_help[] =
    "usage: cleave ir-check MODEL.xml [--bin MODEL.bin] [--json] [-q]\n"
    "\n"
    "Reads an OpenVINO IR model (versions 10 and 11) and checks every Split, VariadicSplit and\n"
    "Concat layer: the input shapes as their producers declare them (a Parameter's shape,\n"
    "otherwise the producing port's <dim>s), the axis and split_lengths from Const layers\n"
    "(unknown when another layer computes them: the outputs are then checked against the hull\n"
    "of every possible value) or Concat's axis attribute, cleave's shape inference, and the\n"
    "layer's declared output <dim>s.\n"
    "Other layers are only traversed. One line per layer, then a summary:\n"
    "  OK             the declared outputs are what the inputs imply (or less precise)\n"
    "  MISMATCH       a declared output (or the data input port) contradicts the inference\n"
    "  RULE BROKEN    the inputs break a rule of the operator (the library's message)\n"
    "  NOT CHECKABLE  the file lacks what the check needs (the reason is printed)\n"
    "\n"
    "Options:\n"
    "      --bin FILE   the weights (default: MODEL with .xml replaced by .bin)\n"
    "      --json       print one JSON object: {\"op\": \"ir-check\", \"layers\": [...], ...}\n"
    "  -q, --quiet      print only the layers that are not OK, and no summary\n"
    "\n"
    "Exit status: 0 every layer is OK; 1 some layer is not; 64 malformed command line; 65 the\n"
    "file is not valid IR (the message names the file, line and layer); 66 the .xml or .bin\n"
    "cannot be opened.\n";

static const char ir_run_help[] =
    "usage: cleave ir-run MODEL.xml --input NAME=FILE.npy ... [-o PREFIX] [OPTIONS]\n"
    "\n"
    "Executes an OpenVINO IR graph made of Parameter, Const, Split, VariadicSplit, Concat and\n"
    "Result layers (chained to any depth) with the library, and writes Result k (in document\n"
    "order) to PREFIX_k.npy. Any other layer type is refused before anything runs. Each\n"
    "Parameter takes a .npy file of its element type (C order) and of a shape its shape allows;\n"
    "packed sub-byte and string Parameters (static shape) take a 1-D uint8 .npy of their bytes.\n"
    "Outputs keep their input's dtype and byte order; packed sub-byte types and strings are\n"
    "written as 1-D uint8 arrays of their bytes (strings in OpenVINO's packed string layout).\n"
    "All tensors are held in memory.\n"
    "\n"
    "Options:\n"
    "  -i, --input NAME=FILE  the data of the Parameter layer named NAME (one per Parameter)\n"
    "      --bin FILE         the weights (default: MODEL with .xml replaced by .bin)\n"
    "  -o, --output PREFIX    write Result k to PREFIX_k.npy (default: MODEL without .xml);\n"
    "                         an existing directory or a PREFIX ending in '/' holds the\n"
    "                         outputs: DIR/STEM_k.npy, STEM being MODEL's file name without\n"
    "                         .xml\n"
    "  -f, --force            replace outputs that already exist (otherwise: status 73)\n"
    "      --json             print {\"op\": \"ir-run\", \"outputs\": [{\"shape\", \"path\",\n"
    "                         \"dims\"}]}\n"
    "  -q, --quiet            print nothing on success\n"
    "      --sync             make the outputs durable (fsync) before exiting\n"
    "\n"
    "Exit status as for the split commands; 65 also for a model that is not valid IR or holds a\n"
    "layer ir-run does not run. On any failure no output is left behind.\n";
int help_print(const char *command, FILE *out) {
  if (command == NULL) {
    return -1;
  }
  int join_options = 0;
  const char *join = help_concat_text(command, &join_options);
  if (join != NULL) {
    fputs(join, out);
    if (join_options) {
      fputs(help_concat_options(), out);
    }
    return 0;
  }
  static const struct {
    const char *name;
    const char *text;
    int file_options;
  } texts[] = {
      {"split", split_help, 1},
      {"variadic-split", variadic_help, 1},
      {"split-to-sequence", sequence_help, 1},
      {"onnx-split", onnx_split_help, 1},
      {"infer", infer_help, 0},
      {"demo", demo_help, 0},
      {"onnx-test", onnx_test_help, 0},
      {"ir-check", ir_check_help, 0},
      {"ir-run", ir_run_help, 0},
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    if (strcmp(texts[i].name, command) == 0) {
      fputs(texts[i].text, out);
      if (texts[i].file_options == 1) {
        fputs(file_options, out);
      }
      return 0;
    }
  }
  return -1;
}
