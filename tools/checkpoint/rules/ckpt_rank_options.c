/* The rank commands' rules from a command line (see ckpt_rank_options.h). */
#include "ckpt_rank_options.h"

#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "ckpt_ranks.h"
#include "ckpt_rules.h"
#include "cli_util.h"

int ckpt_rank_rules_init(ckpt_rank_rules *r, int argc) {
  memset(r, 0, sizeof *r);
  size_t max = (size_t)argc + 1;
  r->axes = calloc(max, sizeof *r->axes);
  r->views = calloc(max, sizeof *r->views);
  r->replicate = calloc(max, sizeof *r->replicate);
  r->spec.axes = r->axes;
  r->spec.views = r->views;
  r->spec.replicate = r->replicate;
  return r->axes == NULL || r->views == NULL || r->replicate == NULL
             ? cli_error(CLI_EXIT_SOFTWARE, "out of memory")
             : 0;
}

void ckpt_rank_rules_free(ckpt_rank_rules *r) {
  for (size_t i = 0; i < r->spec.axis_count; i++) {
    free((char *)r->axes[i].glob);
  }
  for (size_t i = 0; i < r->spec.view_count; i++) {
    free((char *)r->views[i].glob);
  }
  free(r->axes);
  free(r->views);
  free(r->replicate);
  memset(r, 0, sizeof *r);
}

int ckpt_rank_rules_apply(ckpt_rank_rules *r, ckpt_rank_option kind, const char *value,
                          const char *place) {
  char *glob = NULL;
  const char *v = NULL;
  int rc = 0;
  switch (kind) {
  case CKPT_RANK_AXIS:
    rc = ckpt_parse_glob_value(place, value, "--axis", &glob, &v);
    if (rc == 0) {
      ckpt_shard_rule *rule = &r->axes[r->spec.axis_count++];
      rule->glob = glob;
      rc = cli_parse_int64(v, "--axis GLOB=AXIS", &rule->axis) != 0 ? CLI_EXIT_USAGE : 0;
    }
    return rc;
  case CKPT_RANK_VIEW:
    rc = ckpt_parse_glob_value(place, value, "--view", &glob, &v);
    if (rc == 0) {
      ckpt_shard_rule *rule = &r->views[r->spec.view_count++];
      rule->glob = glob;
      if (ckpt_parse_view(v, &rule->view) != 0) {
        rc = cli_error_at(place, CLI_EXIT_USAGE, "--view '%s': '%s' is not a shape like 8,18,-1",
                          value, v);
      }
    }
    return rc;
  case CKPT_RANK_REPLICATE:
    r->replicate[r->spec.replicate_count++] = value;
    return 0;
  case CKPT_RANK_UNMATCHED:
    if (strcmp(value, "replicate") == 0 || strcmp(value, "error") == 0) {
      r->spec.unmatched_error = value[0] == 'e';
      return 0;
    }
    return cli_error_at(place, CLI_EXIT_USAGE, "--unmatched is 'replicate' or 'error', not '%s'",
                        value);
  case CKPT_RANK_NUM:
    if (cli_parse_int64(value, "-n/--num-splits", &r->spec.ranks) != 0) {
      return CLI_EXIT_USAGE;
    }
    return r->spec.ranks < 1 || r->spec.ranks > CKPT_MAX_RANKS
               ? cli_error_at(place, CLI_EXIT_USAGE, "-n RANKS must be from 1 to %d, not %s",
                              CKPT_MAX_RANKS, value)
               : 0;
  }
  return cli_error_at(place, CLI_EXIT_SOFTWARE, "unknown rule option");
}
