/* cleave st ls|check|split|shard|merge|reshard: checkpoint surgery on safetensors files (dispatch).
 */
#include <string.h>

#include "cli_util.h"
#include "help.h"
#include "st_cli.h"

int cmd_st(int argc, char **argv, int first) {
  if (first >= argc) {
    help_print("st", stderr);
    return cli_error(CLI_EXIT_USAGE,
                     "st: a subcommand is missing (ls, check, split, shard, merge, reshard)");
  }
  const char *sub = argv[first];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
    help_print("st", stdout);
    return 0;
  }
  if (strcmp(sub, "ls") == 0) {
    return cmd_st_inspect(argc, argv, first + 1, 0);
  }
  if (strcmp(sub, "check") == 0) {
    return cmd_st_inspect(argc, argv, first + 1, 1);
  }
  if (strcmp(sub, "split") == 0) {
    return cmd_st_split(argc, argv, first + 1);
  }
  if (strcmp(sub, "shard") == 0) {
    return cmd_st_shard(argc, argv, first + 1);
  }
  if (strcmp(sub, "merge") == 0 || strcmp(sub, "reshard") == 0) {
    return cmd_st_merge(argc, argv, first + 1, sub[0] == 'r');
  }
  if (strcmp(sub, "verify") == 0) {
    return cmd_st_verify(argc, argv, first + 1);
  }
  return cli_error(CLI_EXIT_USAGE,
                   "st: unknown subcommand '%s' (ls, check, split, shard, merge, reshard, verify)",
                   sub);
}
