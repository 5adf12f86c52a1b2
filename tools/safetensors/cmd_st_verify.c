/* cleave st verify OUTDIR [--against MODEL...]: a run's outputs against its manifest. */
#include <stdlib.h>
#include <string.h>

#include "ckpt_manifest_verify.h"
#include "cli_util.h"
#include "help.h"
#include "st_cli.h"
#include "st_read.h"

static const cli_option verify_options[] = {
    {"help", 'h', 0, OPT_HELP},
    {"json", 0, 0, OPT_JSON},
    {"quiet", 'q', 0, OPT_QUIET},
    {"against", 0, 1, OPT_AGAINST},
};

/* A data file must pass st check's rules; departures the reference reader accepts are errors
 * here, since cleave wrote the file canonical. */
static int read_header(const char *path, ckpt_file *out, tool_error *err) {
  st_leniency strict = {1, 0, 0};
  return st_read_file_with(path, &strict, out, err);
}

int cmd_st_verify(int argc, char **argv, int first) {
  const char *name = "st verify";
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, name);
  ckpt_verify_options o;
  memset(&o, 0, sizeof o);
  o.cmd = name;
  o.read_header = read_header;
  o.header_suffix = ".safetensors";
  const char **against = calloc((size_t)argc + 1, sizeof *against);
  if (against == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  int rc = 0, against_given = 0;
  for (;;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, verify_options, sizeof verify_options / sizeof verify_options[0],
                               &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      rc = CLI_EXIT_USAGE;
      break;
    }
    if (kind == CLI_NEXT_POSITIONAL && o.outdir == NULL) {
      o.outdir = value;
    } else if (kind == CLI_NEXT_POSITIONAL && !against_given) {
      rc = cli_error(CLI_EXIT_USAGE,
                     "%s: unexpected argument '%s' (the models to compare with "
                     "follow --against)",
                     name, value);
      break;
    } else if (kind == CLI_NEXT_POSITIONAL || id == OPT_AGAINST) {
      against[o.against_count++] = value;
      against_given = 1;
    } else if (id == OPT_HELP) {
      help_print(name, stdout);
      free(against);
      return 0;
    } else if (id == OPT_JSON) {
      o.json = 1;
    } else if (id == OPT_QUIET) {
      o.quiet = 1;
    }
  }
  if (rc == 0 && o.outdir == NULL) {
    rc = cli_error(CLI_EXIT_USAGE, "%s: the OUTDIR (a folder a writing command wrote) is missing",
                   name);
  }
  if (rc == 0) {
    o.against = against;
    rc = ckpt_verify_outputs(&o);
  }
  free(against);
  return rc;
}
