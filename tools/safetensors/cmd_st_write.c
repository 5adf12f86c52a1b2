/* What the `cleave st` commands share: option tables, errors, and running a plan through the
 * checkpoint layer (ckpt_report.h). */
#include "ckpt_report.h"
#include "cli_util.h"
#include "st_cli.h"

const cli_option st_common_options[] = {
    {"help", 'h', 0, OPT_HELP}, {"json", 0, 0, OPT_JSON},     {"quiet", 'q', 0, OPT_QUIET},
    {"glob", 0, 1, OPT_GLOB},   {"strict", 0, 0, OPT_STRICT},
};

const cli_option st_write_options[] = {
    {"help", 'h', 0, OPT_HELP},
    {"json", 0, 0, OPT_JSON},
    {"quiet", 'q', 0, OPT_QUIET},
    {"output", 'o', 1, OPT_OUTPUT},
    {"force", 'f', 0, OPT_FORCE},
    {"sync", 0, 0, OPT_SYNC},
    {"dry-run", 0, 0, OPT_DRY_RUN},
    {"no-progress", 0, 0, OPT_NO_PROGRESS},
    {"tensor", 0, 1, OPT_TENSOR},
    {"view", 0, 1, OPT_VIEW},
    {"axis", 'a', 1, OPT_AXIS},
    {"num-splits", 'n', 1, OPT_NUM},
    {"lengths", 'l', 1, OPT_LENGTHS},
    {"into", 0, 1, OPT_INTO},
    {"rules", 0, 1, OPT_RULES},
    {"replicate", 0, 1, OPT_REPLICATE},
    {"unmatched", 0, 1, OPT_UNMATCHED},
    {"max-shard-size", 0, 1, OPT_MAX_SHARD_SIZE},
    {"no-sidecar", 0, 0, OPT_NO_SIDECAR},
    {"preset", 0, 1, OPT_PRESET},
    {"replicate-kv", 0, 0, OPT_REPLICATE_KV},
    {"qkv-layout", 0, 1, OPT_QKV_LAYOUT},
    {"quant-block", 0, 1, OPT_QUANT_BLOCK},
};
const size_t st_common_option_count = sizeof st_common_options / sizeof st_common_options[0];
const size_t st_write_option_count = sizeof st_write_options / sizeof st_write_options[0];

int st_report(tool_error *err) {
  tool_scrub(err);
  return tool_report(err);
}

int st_load(const char *path, st_model *m) {
  tool_error err;
  int rc = st_model_load(path, m, &err);
  return rc != 0 ? st_report(&err) : 0;
}

int st_parse_write_common(int id, const char *value, write_opts *o) {
  switch (id) {
  case OPT_OUTPUT:
    o->outdir = value;
    return 1;
  case OPT_FORCE:
    o->force = 1;
    return 1;
  case OPT_SYNC:
    o->sync = 1;
    return 1;
  case OPT_DRY_RUN:
    o->dry_run = 1;
    return 1;
  case OPT_JSON:
    o->json = 1;
    return 1;
  case OPT_QUIET:
    o->quiet = 1;
    return 1;
  case OPT_NO_PROGRESS:
    o->progress = 0;
    return 1;
  case OPT_NO_SIDECAR:
    o->no_sidecar = 1;
    return 1;
  default:
    return 0;
  }
}

/* A safetensors checkpoint's files: an earlier run's that this one did not replace are named
 * after the commit, as a loader of the folder would read them with the new ones. */
static const char *const checkpoint_files[] = {".safetensors", ".safetensors.index.json", NULL};

int st_execute(const ckpt_plan *plan, const st_model *m, const write_opts *o, const char *cmd) {
  ckpt_run_options run = {.outdir = o->outdir,
                          .json = o->json,
                          .quiet = o->quiet,
                          .force = o->force,
                          .sync = o->sync,
                          .dry_run = o->dry_run,
                          .progress = o->progress,
                          .stale_suffixes = checkpoint_files,
                          .argc = o->argc,
                          .argv = o->argv,
                          .no_sidecar = o->no_sidecar};
  return ckpt_run_plan(plan, &m->ckpt, &run, cmd);
}
