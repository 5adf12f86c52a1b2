/* The options of Hugging Face models (safetensors): --preset, --replicate-kv, --qkv-layout and
 * --quant-block, and what they read from the model folder's config.json (ckpt_commands.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_commands.h"
#include "ckpt_companion.h"
#include "ckpt_config.h"
#include "cli_util.h"

/* --preset NAME|auto of the rank commands. */
static int rank_preset(void *target, const char *value, const cli_opt *opt, const char *place) {
  (void)opt;
  if (!ckpt_preset_known(value)) {
    return cli_error_at(place, CLI_EXIT_USAGE, "--preset '%s' is not one of auto, %s", value,
                        ckpt_preset_names());
  }
  ((ckpt_preset_args *)target)->name = value;
  return 0;
}

/* --preset NAME|auto of split: a preset with fused tensors to split. */
static int split_preset(void *target, const char *value, const cli_opt *opt, const char *place) {
  int rc = rank_preset(target, value, opt, place);
  if (rc == 0 && strcmp(value, "auto") != 0 && !ckpt_preset_splits(value)) {
    return cli_error_at(place, CLI_EXIT_USAGE,
                        "preset '%s' has no fused tensors to split (st shard --preset %s shards "
                        "the model as it is)",
                        value, value);
  }
  return rc;
}

#define QKV_LAYOUT_HELP                                                                            \
  "the rows of a fused QKV (phi3): [q; k; v] (default), or Megatron's per KV group: its q heads, " \
  "its k, its v"

/* --override-preset, of split and the rank commands. */
#define OVERRIDE_HELP                                                                              \
  "take the named preset's rules though config.json's model_type (or architectures) names "        \
  "another family: refused otherwise, since they would cut some of its tensors and leave others"

const cli_opt ckpt_preset_options[] = {
    {.kind = CLI_OPT_GROUP, .help = "Hugging Face models (safetensors)", .tag = CKPT_FORMAT_ST},
    {.kind = CLI_OPT_CALL,
     .long_name = "preset",
     .arg = "NAME|auto",
     .help = "the rules of an architecture (llama, mistral, qwen2, qwen3, mixtral, qwen2_moe, "
             "qwen3_moe, phi3; auto: config.json's model_type), after the command line's; "
             "config.json (beside MODEL, or of the ranks' folder) gives the heads, and a cut "
             "inside an attention or KV head is an error",
     .offset = offsetof(ckpt_args, preset),
     .call = rank_preset,
     .tag = CKPT_FORMAT_ST},
    {.kind = CLI_OPT_FLAG,
     .long_name = "replicate-kv",
     .help = "with --preset, when the KV heads are fewer than the ranks (and the ranks a "
             "multiple of them), rank r takes KV head r * kv_heads / ranks whole (merge: each "
             "head once, its copies compared)",
     .offset = offsetof(ckpt_args, preset.replicate_kv),
     .number = 1,
     .tag = CKPT_FORMAT_ST},
    {.kind = CLI_OPT_CHOICE,
     .long_name = "qkv-layout",
     .arg = "concat|interleaved",
     .choices = "concat|interleaved",
     .help = QKV_LAYOUT_HELP "; each rank takes [its q; its k; its v], or its whole groups",
     .offset = offsetof(ckpt_args, preset.qkv_layout),
     .tag = CKPT_FORMAT_ST},
    {.kind = CLI_OPT_FLAG,
     .long_name = "override-preset",
     .help = OVERRIDE_HELP,
     .offset = offsetof(ckpt_args, preset.override),
     .number = 1,
     .tag = CKPT_FORMAT_ST},
    CLI_END,
};

const cli_opt ckpt_split_preset_options[] = {
    {.kind = CLI_OPT_GROUP, .help = "Hugging Face models (safetensors)", .tag = CKPT_FORMAT_ST},
    {.kind = CLI_OPT_CALL,
     .long_name = "preset",
     .arg = "NAME|auto",
     .help = "the split rules of an architecture whose tensors are fused (phi3: qkv_proj into "
             "q_proj, k_proj, v_proj by the heads of config.json, gate_up_proj into gate_proj, "
             "up_proj; auto: config.json's model_type), added to the rules given",
     .offset = offsetof(ckpt_args, preset),
     .call = split_preset,
     .tag = CKPT_FORMAT_ST},
    {.kind = CLI_OPT_CHOICE,
     .long_name = "qkv-layout",
     .arg = "concat|interleaved",
     .choices = "concat|interleaved",
     .help = QKV_LAYOUT_HELP,
     .offset = offsetof(ckpt_args, preset.qkv_layout),
     .tag = CKPT_FORMAT_ST},
    {.kind = CLI_OPT_FLAG,
     .long_name = "override-preset",
     .help = OVERRIDE_HELP,
     .offset = offsetof(ckpt_args, preset.override),
     .number = 1,
     .tag = CKPT_FORMAT_ST},
    CLI_END,
};

int ckpt_preset_args_check(const ckpt_command *c, int split) {
  const ckpt_preset_args *p = &c->args.preset;
  if (!split && p->name == NULL && p->replicate_kv) {
    return cli_error(CLI_EXIT_USAGE,
                     "--replicate-kv needs --preset, whose rules know the KV heads");
  }
  if (p->override && p->name == NULL) {
    return cli_error(CLI_EXIT_USAGE, "--override-preset needs --preset NAME");
  }
  if (p->qkv_layout >= 0 && p->name == NULL) {
    return cli_error(CLI_EXIT_USAGE,
                     "--qkv-layout needs --preset, whose rules know the fused QKV's heads");
  }
  if (p->qkv_layout >= 0 && strcmp(p->name, "auto") != 0 && !ckpt_preset_splits(p->name)) {
    return cli_error(CLI_EXIT_USAGE, "--qkv-layout: preset '%s' has no fused QKV (phi3 has)",
                     p->name);
  }
  return 0;
}

static ckpt_qkv_layout layout_of(const ckpt_preset_args *p) {
  return p->qkv_layout == CKPT_QKV_INTERLEAVED ? CKPT_QKV_INTERLEAVED : CKPT_QKV_CONCAT;
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

/* config.json for --preset `name`; `*path` its path (malloc'd, freed by the caller, also on
 * failure). Returns 0 or the status of the error in `err`. */
static int preset_config(const char *model, const char *name, ckpt_config *config, char **path,
                         tool_error *err) {
  *path = config_path(model);
  if (*path == NULL) {
    return tool_oom(err, "finding config.json");
  }
  int rc = ckpt_config_read(*path, config, err);
  if (rc == CLI_EXIT_NOINPUT) {
    tool_prefix(err, "--preset %s: the model's config.json gives its heads", name);
  }
  return rc;
}

int ckpt_preset_split_rules(const ckpt_command *c, const char *model, ckpt_preset_split *ps) {
  memset(ps, 0, sizeof *ps);
  const ckpt_preset_args *p = &c->args.preset;
  if (p->name == NULL) {
    return 0;
  }
  tool_error err;
  ckpt_config config;
  char *path = NULL;
  int rc = preset_config(model, p->name, &config, &path, &err);
  if (rc == 0) {
    rc = ckpt_preset_make_split(p->name, &config, path, layout_of(p), p->override, ps, &err);
  }
  free(path);
  if (rc != 0) {
    ckpt_command_report(&err);
  }
  return rc;
}

/* Room for `n` entries more in an array of `have` (its size is have + 1 or more). */
static void *grow(void *array, size_t have, size_t n, size_t size) {
  return realloc(array, (have + n + 1) * size);
}

int ckpt_preset_rank_rules(ckpt_command *c, const char *model, ckpt_preset *preset,
                           size_t *command_axes) {
  memset(preset, 0, sizeof *preset);
  ckpt_rank_rules *r = &c->args.ranks;
  *command_axes = r->spec.axis_count;
  const ckpt_preset_args *p = &c->args.preset;
  if (p->name == NULL) {
    return 0;
  }
  char *path = NULL;
  tool_error err;
  ckpt_config config;
  int rc = preset_config(model, p->name, &config, &path, &err);
  if (rc == 0) {
    rc = ckpt_preset_make(p->name, &config, path, p->replicate_kv, layout_of(p), p->override,
                          preset, &err);
  }
  if (rc == 0 && p->qkv_layout >= 0 && !ckpt_preset_splits(preset->name)) {
    rc = tool_fail(&err, CLI_EXIT_DATA,
                   "--qkv-layout: preset '%s' (model_type of %s) has no fused QKV (phi3 has)",
                   preset->name, path);
  }
  free(path);
  ckpt_shard_rule *axes = NULL;
  const char **replicate = NULL;
  if (rc == 0) {
    axes = grow(r->axes, r->spec.axis_count, preset->axis_count, sizeof *axes);
    r->axes = axes != NULL ? axes : r->axes;
    replicate =
        grow(r->replicate, r->spec.replicate_count, preset->replicate_count, sizeof *replicate);
    r->replicate = replicate != NULL ? replicate : r->replicate;
    if (axes == NULL || replicate == NULL) {
      rc = tool_oom(&err, "adding the preset's rules");
    }
  }
  if (rc != 0) {
    return ckpt_command_report(&err);
  }
  /* The preset's rules go after the command line's: a tensor both match is the command line's. */
  memcpy(r->axes + r->spec.axis_count, preset->axes, preset->axis_count * sizeof *r->axes);
  r->spec.axis_count += preset->axis_count;
  memcpy(r->replicate + r->spec.replicate_count, preset->replicate,
         preset->replicate_count * sizeof *r->replicate);
  r->spec.replicate_count += preset->replicate_count;
  r->spec.replicate_preset_count = preset->replicate_count;
  /* Under a preset every tensor is claimed by a rule, the preset's or the command line's: one it
   * does not know is an error naming it, never a silent copy, unless --unmatched says so. */
  int unmatched_given = 0;
  for (size_t i = 0; i < c->args.given_rule_count; i++) {
    unmatched_given |= c->args.given_rules[i].kind == CKPT_RANK_UNMATCHED;
  }
  if (!unmatched_given) {
    r->spec.unmatched_error = 1;
    r->spec.unmatched_preset = preset->name;
  }
  r->spec.axes = r->axes;
  r->spec.replicate = r->replicate;
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

int ckpt_model_quant(const ckpt_command *c, ckpt_model *m, const char *model) {
  if (c->args.quant.has_block) {
    m->quant = c->args.quant;
    return 0;
  }
  /* config.json is read only for a model that has scales, so that a model without them is not
   * refused for a configuration it does not need. */
  if (!has_scales(m)) {
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
  if (rc == CLI_EXIT_NOINPUT && config.absent) {
    return 0; /* no config.json: the block size is not known (one that cannot be read is 66) */
  }
  if (rc != 0) {
    return ckpt_command_report(&err);
  }
  if (config.has_block) {
    m->quant.has_block = 1;
    m->quant.block[0] = config.block[0];
    m->quant.block[1] = config.block[1];
  }
  return 0;
}
