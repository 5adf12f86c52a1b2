/* The help texts of the joining commands, concat and concat-from-sequence. */
#include <string.h>

#include "help.h"

static const char concat_help[] =
    "usage: cleave concat [-a AXIS] [--opset N] -o OUTPUT.npy [OPTIONS] INPUT.npy...\n"
    "\n"
    "Joins the inputs along AXIS into one file, in the order given: OpenVINO Concat-1, or with\n"
    "--opset the ONNX Concat in force at that opset (1, 4, 11 or 13; opset 12 runs Concat-11).\n"
    "The inputs have one element type and one rank, and equal dims except on AXIS, whose dim in\n"
    "the output is the sum of theirs. The inverse of the split commands: the parts of a split\n"
    "joined along its axis give back the input's data.\n"
    "\n"
    "  -a, --axis AXIS      the axis, in [-rank, rank-1]; required, except at --opset 1 to 3\n"
    "                       (ONNX Concat-1 defaults to 1; it and Concat-4 take no negative axis)\n"
    "      --opset N        ONNX Concat at opset N >= 1 instead of OpenVINO Concat-1: Concat-1\n"
    "                       takes f16, f32, f64; 4 and 11 the fifteen ONNX types; 13 adds bf16\n";

static const char sequence_help[] =
    "usage: cleave concat-from-sequence -a AXIS [--new-axis 0|1] -o OUTPUT.npy [OPTIONS]\n"
    "                                   INPUT.npy...\n"
    "\n"
    "ONNX ConcatFromSequence-11 on the sequence of the inputs, in the order given: with\n"
    "--new-axis 0 (the default) it joins them along AXIS as concat does; with --new-axis 1 the\n"
    "inputs have one shape and are stacked along a new axis inserted at AXIS, in\n"
    "[-rank-1, rank] (as numpy.stack). It undoes split-to-sequence: -k 0 without a split is\n"
    "undone by --new-axis 1.\n"
    "\n"
    "  -a, --axis AXIS      the axis (required)\n"
    "      --new-axis 0|1   1 stacks the inputs along a new axis (default 0)\n"
    "      --opset N        the ONNX opset, >= 11 (default 11: ConcatFromSequence has one\n"
    "                       version)\n";

static const char join_options[] =
    "\n"
    "Output options:\n"
    "  -o, --output FILE    the output file (required); its directory must exist. An input\n"
    "                       may be replaced only with -f (then by a rename, once every input\n"
    "                       is read)\n"
    "  -f, --force          replace FILE if it exists (otherwise: status 73)\n"
    "      --json           print {\"op\": ..., \"outputs\": [{\"shape\": \"[6,4]\", \"path\": "
    "...,\n"
    "                       \"dims\": [6, 4]}]}\n"
    "  -q, --quiet          print nothing on success (--json still prints)\n"
    "      --no-progress    no progress line on stderr (it is shown only on a terminal)\n"
    "      --sync           fsync the output and its directory before finishing\n"
    "      --dtype TYPE     what the data holds when the files cannot say it, as for the split\n"
    "                       commands: bf16 or an 8-bit float for raw void data (V2, V1), a\n"
    "                       packed sub-byte type (u1, u2, u4, i4, nf4, f4e2m1, int4, uint4,\n"
    "                       int2, uint2, float4e2m1) for 1-D uint8 arrays of packed bytes; for\n"
    "                       other data it must name the files' type\n"
    "      --shape SHAPE    with a packed --dtype, once per input in order: its logical shape\n"
    "  -h, --help           print this help\n"
    "\n"
    "The inputs are .npy files (format 1.0, 2.0 or 3.0) of one byte-sized type, in either byte\n"
    "order and in C or Fortran order. The output has the first input's dtype and byte order\n"
    "(inputs in the other byte order are converted) and the memory order of the first input\n"
    "whose layout depends on it (C order when none does; an input in the other order is\n"
    "transposed on the way); loaded with numpy.load it equals numpy.concatenate (numpy.stack)\n"
    "of the loaded inputs. Packed inputs give a 1-D uint8 array of the output's packed bytes.\n"
    "Memory use does not depend on the input sizes. Errors about an input name its file and\n"
    "the dimension at fault.\n";

const char *help_concat_text(const char *command, int *output_options) {
  *output_options = 1;
  if (strcmp(command, "concat") == 0) {
    return concat_help;
  }
  if (strcmp(command, "concat-from-sequence") == 0) {
    return sequence_help;
  }
  *output_options = 0;
  return NULL;
}

const char *help_concat_options(void) {
  return join_options;
}
