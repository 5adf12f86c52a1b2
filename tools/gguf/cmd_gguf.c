/* cleave gguf ls|check|split|shard|merge|reshard|verify: GGUF files (dispatch). */
#include <string.h>

#include "cli_util.h"
#include "gguf_cli.h"
#include "help.h"

int cmd_gguf(int argc, char **argv, int first) {
#ifdef CLEAVE_HAVE_GGUF_VERIFY
  static const char subs[] = "ls, check, split, shard, merge, reshard, verify";
#else
  static const char subs[] = "ls, check, split, shard, merge, reshard";
#endif
  if (first >= argc) {
    help_print("gguf", stderr);
    return cli_error(CLI_EXIT_USAGE, "gguf: a subcommand is missing (%s)", subs);
  }
  const char *sub = argv[first];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
    help_print("gguf", stdout);
    return 0;
  }
  if (strcmp(sub, "ls") == 0 || strcmp(sub, "check") == 0) {
    return cmd_gguf_inspect(argc, argv, first + 1, sub[0] == 'c');
  }
  if (strcmp(sub, "split") == 0) {
    return cmd_gguf_split(argc, argv, first + 1);
  }
  if (strcmp(sub, "shard") == 0) {
    return cmd_gguf_shard(argc, argv, first + 1);
  }
  if (strcmp(sub, "merge") == 0) {
    return cmd_gguf_merge(argc, argv, first + 1);
  }
  if (strcmp(sub, "reshard") == 0) {
    return cmd_gguf_reshard(argc, argv, first + 1);
  }
#ifdef CLEAVE_HAVE_GGUF_VERIFY
  if (strcmp(sub, "verify") == 0) {
    return cmd_gguf_verify(argc, argv, first + 1);
  }
#endif
  return cli_error(CLI_EXIT_USAGE, "gguf: unknown subcommand '%s' (%s)", sub, subs);
}
