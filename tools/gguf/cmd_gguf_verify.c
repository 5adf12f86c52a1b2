/* cleave gguf verify OUTDIR [--against MODEL...]: a run's outputs against its manifest, each
 * GGUF output read back by the strict reader (gguf check's rules). */
#include <stdio.h>

#include "ckpt_verify_cli.h"
#include "gguf_cli.h"
#include "gguf_read.h"
#include "help.h"

static int read_header(const char *path, ckpt_file *out, tool_error *err) {
  gguf_info info = {0};
  int rc = gguf_read_file(path, out, &info, err);
  gguf_info_free(&info);
  return rc;
}

static void print_help(const char *command) {
  help_print(command, stdout);
}

int cmd_gguf_verify(int argc, char **argv, int first) {
  ckpt_verify_options o = {
      .cmd = "gguf verify", .read_header = read_header, .header_suffix = ".gguf"};
  return ckpt_verify_command(argc, argv, first, &o, print_help);
}
