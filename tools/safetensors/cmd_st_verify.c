/* cleave st verify OUTDIR [--against MODEL...]: a run's outputs against its manifest. */
#include <stdio.h>

#include "ckpt_verify_cli.h"
#include "help.h"
#include "st_cli.h"
#include "st_read.h"

/* A data file must pass st check's rules; departures the reference reader accepts are errors
 * here, since cleave wrote the file canonical. */
static int read_header(const char *path, ckpt_file *out, tool_error *err) {
  st_leniency strict = {1, 0, 0};
  return st_read_file_with(path, &strict, out, err);
}

static void print_help(const char *command) {
  help_print(command, stdout);
}

int cmd_st_verify(int argc, char **argv, int first) {
  ckpt_verify_options o = {
      .cmd = "st verify", .read_header = read_header, .header_suffix = ".safetensors"};
  return ckpt_verify_command(argc, argv, first, &o, print_help);
}
