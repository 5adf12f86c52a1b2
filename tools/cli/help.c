/* `cleave help` and the overview, from the command table. */
#include <string.h>

#include "cli.h"
#include "cli_util.h"

static const char overview_head[] =
    "usage: cleave COMMAND [OPTIONS] [INPUT.npy]\n"
    "       cleave --help | --version\n"
    "\n"
    "Split tensors stored in NumPy .npy files with the exact semantics of the OpenVINO and ONNX\n"
    "split operators (output i is written to PREFIX_i.npy), and join them back with their concat\n"
    "operators (into the one file -o names).\n"
    "\n"
    "Commands:\n";

static const char overview_tail[] =
    "\n"
    "Options:\n"
    "  -h, --help         print help; after a command, that command's help\n"
    "  -V, --version      print the version of cleave and its library\n"
    "\n"
    "Exit status: 0 success; 1 a check failed (verify: the outputs differ; ir-check: a layer is\n"
    "not OK; onnx-test: a test failed); 64 malformed command line; 65 a rule of the operator is\n"
    "broken, or an input is not a valid file of its format; 66 a file to read cannot be opened;\n"
    "70 internal error, or a resource limit (memory, open files) reached; 73 an output cannot\n"
    "be created or exists; 74 a read or write failed. On any failure no output is left behind\n"
    "and no existing file is changed.\n"
    "\n"
    "Run 'cleave COMMAND --help' for a command's options, 'man cleave' for the details.\n";

void cli_help_overview(const cli_command *table, size_t count, FILE *out) {
  fputs(overview_head, out);
  for (size_t i = 0; i < count; i++) {
    if (table[i].summary != NULL) {
      fprintf(out, "  %-22s%s\n", table[i].synopsis, table[i].summary);
    }
  }
  fputs(overview_tail, out);
}

int cli_help_command(const cli_command *table, size_t count, int argc, char **argv, int first) {
  int words = argc - first;
  if (words == 0) {
    cli_help_overview(table, count, stdout);
    return 0;
  }
  /* `cleave help COMMAND [SUBCOMMAND]` is `cleave COMMAND [SUBCOMMAND] --help`: each command
   * prints its own help, from its own table of options. */
  if (words > 2) {
    return cli_error(CLI_EXIT_USAGE, "unexpected argument '%s'", argv[first + 2]);
  }
  const char *name = argv[first];
  for (size_t i = 0; i < count; i++) {
    if (table[i].summary != NULL && strcmp(table[i].name, name) == 0) {
      char *help_argv[] = {argv[first], words == 2 ? argv[first + 1] : (char *)"--help",
                           (char *)"--help", NULL};
      /* The command that runs names its own errors, as `cleave COMMAND --help` would. */
      cli_command_set(table[i].name);
      return table[i].run(words + 1, help_argv, 1);
    }
  }
  return cli_error(CLI_EXIT_USAGE, "unknown command '%s'", name);
}
