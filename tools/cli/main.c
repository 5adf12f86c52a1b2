/* The cleave command: one table of commands, and the dispatch through it. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "cli_util.h"
#include "commands.h"

/* The families a build may lack stand in the table as commands that say so. */
#ifdef CLEAVE_HAVE_ONNX
#define ONNX_TEST cmd_onnx_test
#else
/* What a build without the ONNX reader says of `cleave onnx-test`: its command line is read as
 * the real command reads it (tools/onnx/cmd_onnx_test.c), then it fails. */
typedef struct onnx_args {
  int quiet;
} onnx_args;

static const cli_opt onnx_options[] = {
    CLI_FLAG('q', "quiet", onnx_args, quiet, "print only the FAIL lines"),
    CLI_END,
};

static const char onnx_about[] =
    "Runs ONNX backend node test folders (model.onnx and test_data_set_*) through the library\n"
    "and compares the outputs. Available only in builds configured with -DCLEAVE_WITH_ONNX=ON.\n";

static const cli_spec onnx_spec = {
    .name = "onnx-test",
    .usage = "cleave onnx-test [-q] DIR...",
    .about = onnx_about,
    .options = onnx_options,
};

static int onnx_missing(int argc, char **argv, int first) {
  onnx_args a = {0};
  cli_args args;
  int rc = cli_parse(&onnx_spec, &a, argc, argv, first, &args);
  cli_args_free(&args);
  if (rc != 0) {
    return rc == CLI_HELP_SHOWN ? 0 : rc;
  }
  return cli_error(CLI_EXIT_SOFTWARE,
                   "this build has no ONNX support (configure with -DCLEAVE_WITH_ONNX=ON)");
}
#define ONNX_TEST onnx_missing
#endif

#ifdef CLEAVE_HAVE_OPENVINO
#define IR_CHECK cmd_ir_check
#define IR_RUN cmd_ir_run
#else
static int openvino_missing(int argc, char **argv, int first) {
  (void)argc;
  return cli_error(CLI_EXIT_SOFTWARE,
                   "this build has no OpenVINO IR support (install libexpat1-dev and rebuild)");
}
#define IR_CHECK openvino_missing
#define IR_RUN openvino_missing
#endif

/* The checkpoint commands: `cleave st VERB` and `cleave gguf VERB` pin the format; `cleave VERB`
 * finds it from the model. */
#ifdef CLEAVE_HAVE_CHECKPOINT
static int st_family(int argc, char **argv, int first) {
  return ckpt_family_command(&st_driver, argc, argv, first);
}
static int gguf_family(int argc, char **argv, int first) {
  return ckpt_family_command(&gguf_driver, argc, argv, first);
}
#define ST st_family
#define GGUF gguf_family
#define CHECKPOINT ckpt_detected_command
#else
static int checkpoint_missing(int argc, char **argv, int first) {
  (void)argc;
  return cli_error(CLI_EXIT_SOFTWARE,
                   "this build has no checkpoint support (install libjansson-dev and "
                   "rebuild)");
}
#define ST checkpoint_missing
#define GGUF checkpoint_missing
#define CHECKPOINT checkpoint_missing
#endif

static int help_option(int argc, char **argv, int first);
static int help_command(int argc, char **argv, int first);
static int version_option(int argc, char **argv, int first);

/* Every command, in the overview's order. */
static const cli_command commands[] = {
    {"split", cmd_op_file, "split", "OpenVINO Split-1: NUM equal parts along an axis"},
    {"variadic-split", cmd_op_file, "variadic-split",
     "OpenVINO VariadicSplit-1: parts of the given lengths (one may be -1)"},
    {"split-to-sequence", cmd_op_file, "split-to-sequence", "ONNX SplitToSequence-11/-24"},
    {"onnx-split", cmd_op_file, "onnx-split", "ONNX Split-1/2/11/13/18"},
    {"concat", cmd_op_file, "concat",
     "OpenVINO Concat-1 (ONNX Concat with --opset): joins files along an axis"},
    {"concat-from-sequence", cmd_op_file, "concat-from-sequence",
     "ONNX ConcatFromSequence-11: joins, or stacks with --new-axis 1"},
    {"infer", cmd_infer, "infer", "shape inference only: prints the output shapes, reads no file"},
    {"demo", cmd_demo, "demo",
     "runs the specs' examples on built-in data and checks the round trip"},
    {"onnx-test", ONNX_TEST, "onnx-test",
     "runs ONNX node test folders (needs a build with CLEAVE_WITH_ONNX=ON)"},
    {"ir-check", IR_CHECK, "ir-check",
     "checks every Split/VariadicSplit layer of an OpenVINO IR model"},
    {"ir-run", IR_RUN, "ir-run",
     "runs an OpenVINO IR graph of Parameter/Const/splits/Result layers"},
    {"ls", CHECKPOINT, "ls", "a checkpoint's tensors (safetensors or GGUF, found by itself)"},
    {"check", CHECKPOINT, "check", "checks every format rule of a checkpoint"},
    {"shard", CHECKPOINT, "shard", "a checkpoint cut into tensor-parallel ranks"},
    {"merge", CHECKPOINT, "merge",
     "ranks joined back into one model, or a split set into one file"},
    {"reshard", CHECKPOINT, "reshard", "ranks cut again into another number of ranks, in one pass"},
    {"verify", CHECKPOINT, "verify", "a run's outputs against its manifest (and its inputs)"},
    {"convert", CHECKPOINT, "convert",
     "a Hugging Face model into GGUF as llama.cpp's convert_hf_to_gguf.py writes it"},
    {"st", ST, "st", "safetensors checkpoints: ls, check, split, shard, merge, reshard, verify"},
    {"gguf", GGUF, "gguf",
     "GGUF files (llama.cpp): ls, check, split, shard, merge, reshard, verify"},
    {"help", help_command, "help [COMMAND]", "prints this text, or a command's help"},
    {"--help", help_option, NULL, NULL},
    {"-h", help_option, NULL, NULL},
    {"--version", version_option, NULL, NULL},
    {"-V", version_option, NULL, NULL},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

/* The options --help and --version take no argument. */
static int refuse_arguments(int argc, char **argv, int first) {
  if (argc > first) {
    return cli_error(CLI_EXIT_USAGE, "unexpected argument '%s'", argv[first]);
  }
  return 0;
}

static int help_option(int argc, char **argv, int first) {
  int rc = refuse_arguments(argc, argv, first);
  if (rc == 0) {
    cli_help_overview(commands, COMMAND_COUNT, stdout);
  }
  return rc;
}

static int help_command(int argc, char **argv, int first) {
  return cli_help_command(commands, COMMAND_COUNT, argc, argv, first);
}

static int version_option(int argc, char **argv, int first) {
  int rc = refuse_arguments(argc, argv, first);
  if (rc != 0) {
    return rc;
  }
  /* The command's own version (the project's, fixed at build time), then the library's as
   * linked (they differ only when the command runs against another libcleave). */
  printf("cleave %s (libcleave %s)\n", CLEAVE_CLI_VERSION, cleave_version_string());
  return fflush(stdout) == 0 ? 0 : CLI_EXIT_IOERR;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_help_overview(commands, COMMAND_COUNT, stderr);
    return cli_error(CLI_EXIT_USAGE, "a command is missing");
  }
  for (size_t i = 0; i < COMMAND_COUNT; i++) {
    if (strcmp(commands[i].name, argv[1]) == 0) {
      /* From here every error and warning names the command; a family that reads a second word
       * ("st shard", "infer split") records the two once it knows the second. */
      cli_command_set(commands[i].name);
      return commands[i].run(argc, argv, 2);
    }
  }
  return cli_error(CLI_EXIT_USAGE, "unknown command '%s' (see 'cleave --help')", argv[1]);
}
