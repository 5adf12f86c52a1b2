/* The `cleave onnx-test` command: argument parsing, one result line per directory, exit
 * status. */
#include "cmd_onnx_test.h"

#include "args.h"
#include "cli_util.h"
#include "ox_runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The command line. */
typedef struct ox_args {
  int quiet;
} ox_args;

static const cli_opt ox_options[] = {
    CLI_FLAG('q', "quiet", ox_args, quiet, "print only the FAIL lines"),
    CLI_END,
};

static const char ox_about[] =
    "Runs ONNX backend test directories (model.onnx and test_data_set_*/input_*.pb,\n"
    "output_*.pb) with cleave and compares every output exactly, tensors and sequences,\n"
    "by the graph's declared output types. The graphs may use Split (versions 1, 2, 11,\n"
    "13, 18), SplitToSequence (11, 24), Concat (1, 4, 11, 13), ConcatFromSequence,\n"
    "SequenceConstruct, SequenceAt, SequenceLength and Constant; any other operator is\n"
    "reported as unsupported. Prints one line per directory:\n"
    "'PASS DIR' or 'FAIL DIR: why'. Options may come anywhere before '--'.\n";

static const char ox_notes[] =
    "exit status:\n"
    "  0   every directory passes\n"
    "  1   a test fails: unsupported operator or type, an operator rule broken,\n"
    "      or an output that differs from the expected one\n"
    "  64  the command line is malformed (unknown option, no directory)\n"
    "  65  a protobuf file is malformed, or the model or a test data set is\n"
    "      (undefined names, missing files, data not matching its dims or type)\n"
    "  66  a file or directory cannot be opened or read\n"
    "  70  internal error (out of memory)\n"
    "When directories fail for different reasons, the status is the first of 66, 65, 70\n"
    "and 1 that applies to one of them.\n";

static const cli_spec ox_spec = {
    .name = "onnx-test",
    .usage = "cleave onnx-test [-q] DIR...",
    .about = ox_about,
    .options = ox_options,
    .notes = ox_notes,
};

/* Orders failure statuses: the lower the rank, the more it matters for the exit status. */
static int ox_rank(int status) {
  switch (status) {
  case CLI_EXIT_NOINPUT:
    return 0;
  case CLI_EXIT_DATA:
    return 1;
  case CLI_EXIT_SOFTWARE:
    return 2;
  case CLI_EXIT_FAIL:
    return 3;
  default:
    return 4;
  }
}

int cmd_onnx_test(int argc, char **argv, int first) {
  ox_args a = {0};
  cli_args args;
  int status = cli_parse(&ox_spec, &a, argc, argv, first, &args);
  if (status == 0 && args.positional_count == 0) {
    status = cli_error(CLI_EXIT_USAGE, "no test directory given");
    fputs("usage: cleave onnx-test [-q] DIR...\n", stderr);
  }
  if (status != 0) {
    cli_args_free(&args);
    return status == CLI_HELP_SHOWN ? 0 : status;
  }
  int quiet = a.quiet;
  int n_dirs = (int)args.positional_count;
  char **dirs = args.positional;
  for (int i = 0; i < n_dirs; i++) {
    char name[4096];
    tool_error err;
    size_t n = strlen(dirs[i]);
    if (n >= sizeof name) {
      n = sizeof name - 1;
    }
    memcpy(name, dirs[i], n);
    name[n] = '\0';
    while (n > 1 && name[n - 1] == '/') {
      name[--n] = '\0';
    }
    int st = ox_run_test_dir(name, &err);
    if (st == CLI_EXIT_OK) {
      if (!quiet) {
        printf("PASS %s\n", name);
      }
    } else {
      printf("FAIL %s: %s\n", name, err.message);
      if (status == CLI_EXIT_OK || ox_rank(st) < ox_rank(status)) {
        status = st;
      }
    }
    fflush(stdout);
  }
  cli_args_free(&args);
  return status;
}
