/* The command line of every format's verify (see ckpt_verify_cli.h). */
#include "ckpt_verify_cli.h"

#include <stdlib.h>

#include "args.h"
#include "cli_util.h"

enum { VOPT_HELP = 1, VOPT_JSON, VOPT_QUIET, VOPT_AGAINST };

static const cli_option verify_options[] = {
    {"help", 'h', 0, VOPT_HELP},
    {"json", 0, 0, VOPT_JSON},
    {"quiet", 'q', 0, VOPT_QUIET},
    {"against", 0, 1, VOPT_AGAINST},
};

/* What parse returns when -h/--help was given. */
#define VERIFY_HELP (-1)

/* Parses the command line into `o`; `*against` receives the array o->against points at (the
 * caller frees it, also after a failure). 0, VERIFY_HELP, or an exit status (error printed). */
static int parse(int argc, char **argv, int first, ckpt_verify_options *o, const char ***against) {
  const char *name = o->cmd;
  cli_parser p;
  cli_parser_init(&p, argc, argv, first, name);
  /* Every argument may be an input of --against: argc entries are always enough. */
  const char **list = calloc((size_t)argc + 1, sizeof *list);
  *against = list;
  if (list == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  o->against = list;
  o->against_count = 0;
  int against_given = 0;
  for (;;) {
    int id;
    const char *value;
    int kind = cli_parser_next(&p, verify_options, sizeof verify_options / sizeof verify_options[0],
                               &id, &value);
    if (kind == CLI_NEXT_END) {
      break;
    }
    if (kind == CLI_NEXT_ERROR) {
      return CLI_EXIT_USAGE;
    }
    if (kind == CLI_NEXT_POSITIONAL && o->outdir == NULL) {
      o->outdir = value;
    } else if (kind == CLI_NEXT_POSITIONAL && !against_given) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: unexpected argument '%s' (the models to compare with follow "
                       "--against)",
                       name, value);
    } else if (kind == CLI_NEXT_POSITIONAL || id == VOPT_AGAINST) {
      list[o->against_count++] = value;
      against_given = 1;
    } else if (id == VOPT_HELP) {
      return VERIFY_HELP;
    } else if (id == VOPT_JSON) {
      o->json = 1;
    } else if (id == VOPT_QUIET) {
      o->quiet = 1;
    }
  }
  if (o->outdir == NULL) {
    return cli_error(CLI_EXIT_USAGE, "%s: the OUTDIR (a folder a writing command wrote) is missing",
                     name);
  }
  return 0;
}

int ckpt_verify_command(int argc, char **argv, int first, ckpt_verify_options *o,
                        void (*print_help)(const char *command)) {
  const char **against = NULL;
  int rc = parse(argc, argv, first, o, &against);
  if (rc == VERIFY_HELP) {
    print_help(o->cmd);
    rc = 0;
  } else if (rc == 0) {
    rc = ckpt_verify_outputs(o);
  }
  free(against);
  return rc;
}
