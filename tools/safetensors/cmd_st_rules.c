/* The rules of the rank commands (st shard, merge, reshard) on the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_by_size.h"
#include "ckpt_companion.h"
#include "ckpt_config.h"
#include "ckpt_cut.h"
#include "cli_util.h"
#include "st_cli.h"

int st_rank_rules_init(st_rank_rules *r, int argc) {
  memset(r, 0, sizeof *r);
  return ckpt_rank_rules_init(&r->base, argc);
}

void st_rank_rules_free(st_rank_rules *r) {
  /* The preset's globs are static; only the command line's were copied. */
  if (r->preset.name != NULL) {
    r->base.spec.axis_count = r->command_axes;
  }
  ckpt_rank_rules_free(&r->base);
  ckpt_preset_free(&r->preset);
  memset(r, 0, sizeof *r);
}

int st_rank_rule_option(st_rank_rules *r, int id, const char *value, const char *cmd, int *rc) {
  *rc = 0;
  switch (id) {
  case OPT_AXIS:
    *rc = ckpt_rank_rules_apply(&r->base, CKPT_RANK_AXIS, value, cmd);
    return 1;
  case OPT_VIEW:
    *rc = ckpt_rank_rules_apply(&r->base, CKPT_RANK_VIEW, value, cmd);
    return 1;
  case OPT_REPLICATE:
    *rc = ckpt_rank_rules_apply(&r->base, CKPT_RANK_REPLICATE, value, cmd);
    return 1;
  case OPT_UNMATCHED:
    *rc = ckpt_rank_rules_apply(&r->base, CKPT_RANK_UNMATCHED, value, cmd);
    return 1;
  case OPT_PRESET:
    r->preset_name = value;
    if (!ckpt_preset_known(value)) {
      *rc = cli_error(CLI_EXIT_USAGE, "%s: --preset '%s' is not one of auto, %s", cmd, value,
                      ckpt_preset_names());
    }
    return 1;
  case OPT_REPLICATE_KV:
    r->replicate_kv = 1;
    return 1;
  case OPT_QKV_LAYOUT:
    r->has_qkv_layout = 1;
    *rc = st_parse_qkv_layout(value, cmd, &r->qkv_layout);
    return 1;
  default:
    return 0;
  }
}

int st_parse_max_shard_size(const char *value, const char *cmd, uint64_t *bytes) {
  if (ckpt_parse_size(value, bytes) != 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --max-shard-size '%s' is not a size like 5GB, 500MiB or 1000000 (a "
                     "number of at least 1 byte and KB, MB, GB, TB, KiB, MiB, GiB or TiB)",
                     cmd, value);
  }
  return 0;
}

int st_parse_quant_block(const char *value, const char *cmd, ckpt_quant *q) {
  const char *p = value;
  for (int i = 0; i < 2; i++) {
    char *end = NULL;
    long long v = *p >= '0' && *p <= '9' ? strtoll(p, &end, 10) : 0;
    if (end == NULL || v < 1 || v > (1LL << 31) || *end != (i == 0 ? ',' : '\0')) {
      return cli_error(CLI_EXIT_USAGE,
                       "%s: --quant-block '%s' is not B0,B1 (the rows and columns of a "
                       "quantization block, each from 1 to 2147483648, e.g. 128,128)",
                       cmd, value);
    }
    q->block[i] = v;
    p = end + 1;
  }
  q->has_block = 1;
  return 0;
}

/* Whether a tensor of `m` is the block scale of another. */
static int has_scales(const ckpt_model *m) {
  for (size_t k = 0; k < m->tensor_count; k++) {
    size_t at;
    if (ckpt_companion_weight(m, m->by_name[k], &at) != NULL) {
      return 1;
    }
  }
  return 0;
}

/* The config.json of MODEL's folder, malloc'd: MODEL/config.json for a folder, else beside it. */
static char *config_path(const char *model) {
  struct stat st;
  char *path = NULL;
  if (stat(model, &st) == 0 && S_ISDIR(st.st_mode)) {
    size_t n = strlen(model);
    return asprintf(&path, "%s%sconfig.json", model, n > 0 && model[n - 1] == '/' ? "" : "/") < 0
               ? NULL
               : path;
  }
  const char *slash = strrchr(model, '/');
  int dir = slash != NULL ? (int)(slash - model + 1) : 0;
  return asprintf(&path, "%.*sconfig.json", dir, model) < 0 ? NULL : path;
}

int st_model_quant(st_model *m, const ckpt_quant *given, const char *model, const char *cmd) {
  if (given->has_block) {
    m->ckpt.quant = *given;
    return 0;
  }
  /* config.json is read only for a model that has scales, so that a model without them is not
   * refused for a configuration it does not need. */
  if (!has_scales(&m->ckpt)) {
    return 0;
  }
  char *path = config_path(model);
  if (path == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  ckpt_config config;
  tool_error err;
  int rc = ckpt_config_read_quantization(path, &config, &err);
  free(path);
  if (rc == CLI_EXIT_NOINPUT) {
    return 0; /* no config.json: the block size is not known */
  }
  if (rc != 0) {
    tool_prefix(&err, "%s", cmd);
    return st_report(&err);
  }
  if (config.has_block) {
    m->ckpt.quant.has_block = 1;
    m->ckpt.quant.block[0] = config.block[0];
    m->ckpt.quant.block[1] = config.block[1];
  }
  return 0;
}

/* Room for `n` entries more in an array of `have` (its size is have + 1 or more). */
static void *grow(void *array, size_t have, size_t n, size_t size) {
  return realloc(array, (have + n + 1) * size);
}

int st_parse_qkv_layout(const char *value, const char *cmd, ckpt_qkv_layout *layout) {
  if (strcmp(value, "concat") == 0 || strcmp(value, "interleaved") == 0) {
    *layout = strcmp(value, "concat") == 0 ? CKPT_QKV_CONCAT : CKPT_QKV_INTERLEAVED;
    return 0;
  }
  return cli_error(CLI_EXIT_USAGE, "%s: --qkv-layout is 'concat' or 'interleaved', not '%s'", cmd,
                   value);
}

int st_check_qkv_layout(const char *preset_name, int has_layout, const char *cmd) {
  if (has_layout && preset_name == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --qkv-layout needs --preset, whose rules know the fused QKV's heads",
                     cmd);
  }
  if (has_layout && strcmp(preset_name, "auto") != 0 && !ckpt_preset_splits(preset_name)) {
    return cli_error(CLI_EXIT_USAGE, "%s: --qkv-layout: preset '%s' has no fused QKV (phi3 has)",
                     cmd, preset_name);
  }
  return 0;
}

int st_preset_config(const char *model, const char *preset_name, ckpt_config *config, char **path,
                     tool_error *err) {
  *path = config_path(model);
  if (*path == NULL) {
    return tool_oom(err, "finding config.json");
  }
  int rc = ckpt_config_read(*path, config, err);
  if (rc == CLI_EXIT_NOINPUT) {
    tool_prefix(err, "--preset %s: the model's config.json gives its heads", preset_name);
  }
  return rc;
}

int st_rank_rules_check(const st_rank_rules *r, const char *cmd) {
  if (r->preset_name == NULL && r->replicate_kv) {
    return cli_error(CLI_EXIT_USAGE,
                     "%s: --replicate-kv needs --preset, whose rules know the KV heads", cmd);
  }
  return st_check_qkv_layout(r->preset_name, r->has_qkv_layout, cmd);
}

int st_rank_rules_preset(st_rank_rules *r, const char *model, const char *cmd) {
  if (r->preset_name == NULL) {
    return 0;
  }
  r->command_axes = r->base.spec.axis_count;
  char *path = NULL;
  tool_error err;
  ckpt_config config;
  int rc = st_preset_config(model, r->preset_name, &config, &path, &err);
  if (rc == 0) {
    rc = ckpt_preset_make(r->preset_name, &config, path, r->replicate_kv, r->qkv_layout, &r->preset,
                          &err);
  }
  if (rc == 0 && r->has_qkv_layout && !ckpt_preset_splits(r->preset.name)) {
    rc = tool_fail(&err, CLI_EXIT_DATA,
                   "--qkv-layout: preset '%s' (model_type of %s) has no fused QKV (phi3 has)",
                   r->preset.name, path);
  }
  free(path);
  ckpt_shard_rule *axes = NULL;
  const char **replicate = NULL;
  if (rc == 0) {
    axes = grow(r->base.axes, r->base.spec.axis_count, r->preset.axis_count, sizeof *axes);
    r->base.axes = axes != NULL ? axes : r->base.axes;
    replicate = grow(r->base.replicate, r->base.spec.replicate_count, r->preset.replicate_count,
                     sizeof *replicate);
    r->base.replicate = replicate != NULL ? replicate : r->base.replicate;
    if (axes == NULL || replicate == NULL) {
      rc = tool_oom(&err, "adding the preset's rules");
    }
  }
  if (rc != 0) {
    tool_prefix(&err, "%s", cmd);
    return st_report(&err);
  }
  memcpy(r->base.axes + r->base.spec.axis_count, r->preset.axes,
         r->preset.axis_count * sizeof *r->base.axes);
  r->base.spec.axis_count += r->preset.axis_count;
  memcpy(r->base.replicate + r->base.spec.replicate_count, r->preset.replicate,
         r->preset.replicate_count * sizeof *r->base.replicate);
  r->base.spec.replicate_count += r->preset.replicate_count;
  r->base.spec.replicate_preset_count = r->preset.replicate_count;
  r->base.spec.axes = r->base.axes;
  r->base.spec.replicate = r->base.replicate;
  return 0;
}
