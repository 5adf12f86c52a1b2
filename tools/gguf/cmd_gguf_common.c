/* What the `cleave gguf` commands share: option tables, loading, and running a plan. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "gguf_cli.h"

const cli_option gguf_inspect_options[] = {
    {"help", 'h', 0, GOPT_HELP}, {"json", 0, 0, GOPT_JSON},         {"quiet", 'q', 0, GOPT_QUIET},
    {"glob", 0, 1, GOPT_GLOB},   {"metadata", 0, 0, GOPT_METADATA},
};
const size_t gguf_inspect_option_count =
    sizeof gguf_inspect_options / sizeof gguf_inspect_options[0];

const cli_option gguf_write_options[] = {
    {"help", 'h', 0, GOPT_HELP},
    {"json", 0, 0, GOPT_JSON},
    {"quiet", 'q', 0, GOPT_QUIET},
    {"output", 'o', 1, GOPT_OUTPUT},
    {"force", 'f', 0, GOPT_FORCE},
    {"sync", 0, 0, GOPT_SYNC},
    {"dry-run", 0, 0, GOPT_DRY_RUN},
    {"no-progress", 0, 0, GOPT_NO_PROGRESS},
    {"max-shard-size", 0, 1, GOPT_MAX_SIZE},
    {"rules", 0, 1, GOPT_RULES},
    {"replicate", 0, 1, GOPT_REPLICATE},
    {"unmatched", 0, 1, GOPT_UNMATCHED},
    {"tensor", 0, 1, CKPT_RULE_TENSOR},
    {"view", 0, 1, CKPT_RULE_VIEW},
    {"axis", 'a', 1, CKPT_RULE_AXIS},
    {"num-splits", 'n', 1, CKPT_RULE_NUM},
    {"lengths", 'l', 1, CKPT_RULE_LENGTHS},
    {"into", 0, 1, CKPT_RULE_INTO},
};
const size_t gguf_write_option_count = sizeof gguf_write_options / sizeof gguf_write_options[0];

/* SIZE: a positive integer with an optional unit: B; K, M, G, T (powers of 1000, as gguf-split
 * reads M and G), with or without a B; KiB, MiB, GiB, TiB (powers of 1024). Letters in any case. */
static int parse_size(const char *text, uint64_t *bytes) {
  uint64_t n = 0;
  const char *p = text;
  for (; isdigit((unsigned char)*p); p++) {
    if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, (uint64_t)(*p - '0'), &n)) {
      return -1;
    }
  }
  if (p == text || n == 0) {
    return -1;
  }
  static const char prefixes[] = "kmgt";
  uint64_t scale = 1;
  if (*p != '\0' && strchr(prefixes, tolower((unsigned char)*p)) != NULL) {
    int power = (int)(strchr(prefixes, tolower((unsigned char)*p)) - prefixes) + 1;
    int binary = tolower((unsigned char)p[1]) == 'i';
    p += 1 + binary;
    for (int i = 0; i < power; i++) {
      scale *= binary ? 1024 : 1000;
    }
    if (binary && tolower((unsigned char)*p) != 'b') {
      return -1;
    }
  }
  if (tolower((unsigned char)*p) == 'b') {
    p++;
  }
  if (*p != '\0' || __builtin_mul_overflow(n, scale, bytes)) {
    return -1;
  }
  return 0;
}

int gguf_parse_write_option(int id, const char *value, gguf_write_opts *o, int *rc) {
  *rc = 0;
  switch (id) {
  case GOPT_OUTPUT:
    o->run.outdir = value;
    return 1;
  case GOPT_FORCE:
    o->run.force = 1;
    return 1;
  case GOPT_SYNC:
    o->run.sync = 1;
    return 1;
  case GOPT_DRY_RUN:
    o->run.dry_run = 1;
    return 1;
  case GOPT_JSON:
    o->run.json = 1;
    return 1;
  case GOPT_QUIET:
    o->run.quiet = 1;
    return 1;
  case GOPT_NO_PROGRESS:
    o->run.progress = 0;
    return 1;
  case GOPT_MAX_SIZE:
    if (parse_size(value, &o->max_size) != 0) {
      *rc = cli_error(CLI_EXIT_USAGE,
                      "--max-shard-size '%s' is not a size like 4G, 500MB or 2GiB (a positive "
                      "number of bytes)",
                      value);
    }
    return 1;
  default:
    return 0;
  }
}

int gguf_rank_option(ckpt_rank_rules *r, int id, const char *value, const char *cmd, int *rc) {
  ckpt_rank_option kind;
  switch (id) {
  case CKPT_RULE_AXIS:
    kind = CKPT_RANK_AXIS;
    break;
  case CKPT_RULE_VIEW:
    kind = CKPT_RANK_VIEW;
    break;
  case GOPT_REPLICATE:
    kind = CKPT_RANK_REPLICATE;
    break;
  case GOPT_UNMATCHED:
    kind = CKPT_RANK_UNMATCHED;
    break;
  case CKPT_RULE_NUM:
    kind = CKPT_RANK_NUM;
    break;
  default:
    return 0;
  }
  *rc = ckpt_rank_rules_apply(r, kind, value, cmd);
  return 1;
}

/* A GGUF folder's files: an earlier run's that this one did not replace (rank2.gguf and rank3.gguf
 * after a shard -n 2 where a shard -n 4 wrote) are named after the commit, as a reader of the
 * folder's ranks or of a set would take them for the new ones'. */
static const char *const gguf_files[] = {".gguf", NULL};

void gguf_write_opts_init(gguf_write_opts *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->run.stale_suffixes = gguf_files;
  o->run.progress = 1;
  o->run.argc = argc;
  o->run.argv = argv;
}

int gguf_report(tool_error *err) {
  tool_scrub(err);
  return tool_report(err);
}

int gguf_load(const char *path, gguf_model *m) {
  tool_error err;
  int rc = gguf_model_load(path, m, &err);
  return rc != 0 ? gguf_report(&err) : 0;
}

int gguf_run(const gguf_model *m, ckpt_plan *plan, const gguf_write_opts *o,
             const gguf_output_options *out, const char *cmd) {
  gguf_outputs store;
  memset(&store, 0, sizeof store);
  tool_error err;
  int rc = gguf_finish_plan(m, plan, out, &store, &err);
  if (rc != 0) {
    tool_prefix(&err, "%s", cmd);
    gguf_report(&err);
  } else {
    /* ckpt_run_plan also writes the manifest (OUTDIR/cleave-manifest.json) from the plan's
     * spans, the last output of the all-or-nothing set. */
    rc = ckpt_run_plan(plan, &m->ckpt, &o->run, cmd);
  }
  gguf_outputs_free(&store);
  return rc;
}
