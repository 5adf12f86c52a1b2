/* The presets' rule tables and their heads from config.json. */
#include "ckpt_preset.h"

#include <stdlib.h>
#include <string.h>

/* Which heads a rule's axis holds: none, the attention heads, the KV heads, a fused QKV's (its
 * layout says how), or none but a fused [gate; up] seen as [2, -1, hidden]. */
enum { NO_HEADS, QUERY_HEADS, KV_HEADS, FUSED_QKV, FUSED_GATE_UP };

typedef struct preset_rule {
  const char *glob;
  int64_t axis;
  int heads;
} preset_rule;

/* Attention of the Llama layout: q, k and v column-parallel (axis 0 of the [out, in] weight, and
 * their biases), o row-parallel (axis 1: its input columns are the heads). */
static const preset_rule attention[] = {
    {"*.self_attn.q_proj.weight", 0, QUERY_HEADS}, {"*.self_attn.q_proj.bias", 0, QUERY_HEADS},
    {"*.self_attn.k_proj.weight", 0, KV_HEADS},    {"*.self_attn.k_proj.bias", 0, KV_HEADS},
    {"*.self_attn.v_proj.weight", 0, KV_HEADS},    {"*.self_attn.v_proj.bias", 0, KV_HEADS},
    {"*.self_attn.o_proj.weight", 1, QUERY_HEADS},
};

/* The dense MLP: gate and up column-parallel, down row-parallel. */
static const preset_rule dense_mlp[] = {
    {"*.mlp.gate_proj.weight", 0, NO_HEADS},
    {"*.mlp.up_proj.weight", 0, NO_HEADS},
    {"*.mlp.down_proj.weight", 1, NO_HEADS},
};

/* Mixtral's experts (w1 gate and w3 up column-parallel, w2 down row-parallel), each expert cut
 * as a dense MLP; the router (block_sparse_moe.gate) is replicated. */
static const preset_rule mixtral_experts[] = {
    {"*.block_sparse_moe.experts.*.w1.weight", 0, NO_HEADS},
    {"*.block_sparse_moe.experts.*.w3.weight", 0, NO_HEADS},
    {"*.block_sparse_moe.experts.*.w2.weight", 1, NO_HEADS},
};

/* Qwen2-MoE and Qwen3-MoE: each expert and the shared expert cut as a dense MLP; the router
 * (mlp.gate) and the shared expert's gate are replicated. */
static const preset_rule qwen_experts[] = {
    {"*.mlp.experts.*.gate_proj.weight", 0, NO_HEADS},
    {"*.mlp.experts.*.up_proj.weight", 0, NO_HEADS},
    {"*.mlp.experts.*.down_proj.weight", 1, NO_HEADS},
    {"*.mlp.shared_expert.gate_proj.weight", 0, NO_HEADS},
    {"*.mlp.shared_expert.up_proj.weight", 0, NO_HEADS},
    {"*.mlp.shared_expert.down_proj.weight", 1, NO_HEADS},
};

/* Phi-3: q, k and v fused in qkv_proj, gate and up in gate_up_proj; each rank takes its share
 * of every part of both. */
static const preset_rule phi3_fused[] = {
    {"*.self_attn.qkv_proj.weight", 0, FUSED_QKV},
    {"*.self_attn.o_proj.weight", 1, QUERY_HEADS},
    {"*.mlp.gate_up_proj.weight", 1, FUSED_GATE_UP},
    {"*.mlp.down_proj.weight", 1, NO_HEADS},
};

/* The embeddings and the output projection, vocabulary-parallel (axis 0: one row per token). */
static const preset_rule vocabulary[] = {
    {"*embed_tokens.weight", 0, NO_HEADS},
    {"lm_head.weight", 0, NO_HEADS},
};

/* Replicated: the norms (Qwen3's per-head q_norm and k_norm included), the biases added after a
 * row-parallel product, rotary tables. */
static const char *const llama_replicated[] = {
    "*norm.weight",
    "*.self_attn.o_proj.bias",
    "*.mlp.down_proj.bias",
    "*.rotary_emb.inv_freq",
};

/* Llama's, and the routers of the mixtures of experts. */
static const char *const moe_replicated[] = {
    "*norm.weight",
    "*.self_attn.o_proj.bias",
    "*.mlp.down_proj.bias",
    "*.rotary_emb.inv_freq",
    "*.block_sparse_moe.gate.weight",
    "*.mlp.gate.weight",
    "*.mlp.shared_expert_gate.weight",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct rule_group {
  const preset_rule *rules;
  size_t count;
} rule_group;

typedef struct preset_def {
  /** The preset's name, config.json's model_type of its family; and the class of its models in
   * config.json's architectures. */
  const char *name;
  const char *architecture;
  rule_group groups[4];
  const char *const *replicate;
  size_t replicate_count;
} preset_def;

#define LLAMA_LAYOUT(name, architecture)                                                           \
  {                                                                                                \
    name, architecture,                                                                            \
        {{attention, COUNT(attention)},                                                            \
         {dense_mlp, COUNT(dense_mlp)},                                                            \
         {vocabulary, COUNT(vocabulary)}},                                                         \
        llama_replicated, COUNT(llama_replicated)                                                  \
  }

/* Qwen MoE models may keep dense MLPs in some layers (mlp_only_layers): both kinds of rules. */
#define QWEN_MOE_LAYOUT(name, architecture)                                                        \
  {                                                                                                \
    name, architecture,                                                                            \
        {{attention, COUNT(attention)},                                                            \
         {dense_mlp, COUNT(dense_mlp)},                                                            \
         {qwen_experts, COUNT(qwen_experts)},                                                      \
         {vocabulary, COUNT(vocabulary)}},                                                         \
        moe_replicated, COUNT(moe_replicated)                                                      \
  }

static const preset_def presets[] = {
    LLAMA_LAYOUT("llama", "LlamaForCausalLM"),
    LLAMA_LAYOUT("mistral", "MistralForCausalLM"),
    LLAMA_LAYOUT("qwen2", "Qwen2ForCausalLM"),
    LLAMA_LAYOUT("qwen3", "Qwen3ForCausalLM"),
    {"mixtral",
     "MixtralForCausalLM",
     {{attention, COUNT(attention)},
      {mixtral_experts, COUNT(mixtral_experts)},
      {vocabulary, COUNT(vocabulary)}},
     moe_replicated,
     COUNT(moe_replicated)},
    QWEN_MOE_LAYOUT("qwen2_moe", "Qwen2MoeForCausalLM"),
    QWEN_MOE_LAYOUT("qwen3_moe", "Qwen3MoeForCausalLM"),
    {"phi3",
     "Phi3ForCausalLM",
     {{phi3_fused, COUNT(phi3_fused)}, {vocabulary, COUNT(vocabulary)}},
     llama_replicated,
     COUNT(llama_replicated)},
};

const char *ckpt_preset_names(void) {
  return "llama, mistral, qwen2, qwen3, mixtral, qwen2_moe, qwen3_moe, phi3";
}

static const preset_def *find(const char *name) {
  for (size_t i = 0; i < COUNT(presets); i++) {
    if (strcmp(presets[i].name, name) == 0) {
      return &presets[i];
    }
  }
  return NULL;
}

int ckpt_preset_known(const char *name) {
  return strcmp(name, "auto") == 0 || find(name) != NULL;
}

/* The counts a head-aware preset needs from config.json. */
static int needs_heads(const ckpt_config *c, const char *path, const char *name, tool_error *err) {
  const char *missing = c->heads == 0      ? "num_attention_heads"
                        : c->head_dim == 0 ? "head_dim (or hidden_size)"
                                           : NULL;
  if (missing == NULL) {
    return 0;
  }
  return tool_fail(err, CLI_EXIT_DATA,
                   "%s: no %s, which preset '%s' needs to keep attention heads whole", path,
                   missing, name);
}

/* The preset `name` names, or config.json's model_type for "auto". A named preset must be the
 * model's (its model_type, or else its architectures): unless `override`, a preset of another
 * family is refused, whose rules would cut some of the model's tensors and copy others. */
static int choose(const char *name, const ckpt_config *config, const char *config_path,
                  int override, const preset_def **chosen, tool_error *err) {
  const preset_def *def = NULL;
  if (strcmp(name, "auto") != 0) {
    def = find(name);
    if (def == NULL) {
      return tool_fail(err, CLI_EXIT_USAGE, "--preset '%.100s' is not one of auto, %s", name,
                       ckpt_preset_names());
    }
    const char *what = config->model_type[0] != '\0'     ? "model_type"
                       : config->architecture[0] != '\0' ? "architectures"
                                                         : NULL;
    const char *is = config->model_type[0] != '\0' ? config->model_type : config->architecture;
    const char *want = config->model_type[0] != '\0' ? def->name : def->architecture;
    if (what != NULL && strcmp(is, want) != 0 && !override) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: the model's %s is '%.100s', not %s's '%s': --preset %s would cut it "
                       "by another family's rules (--preset auto takes the model's; "
                       "--override-preset takes %s's anyway)",
                       config_path, what, is, def->name, want, def->name, def->name);
    }
  } else if (config->model_type[0] == '\0') {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: no model_type, so --preset auto cannot choose a preset (%s); name one "
                     "with --preset NAME, or give the rules with --axis",
                     config_path, ckpt_preset_names());
  } else if ((def = find(config->model_type)) == NULL) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: model_type '%s' has no preset (the presets: %s); give its rules with "
                     "--axis and --replicate (docs/presets.md), or --preset NAME for a model laid "
                     "out as one of them",
                     config_path, config->model_type, ckpt_preset_names());
  }
  *chosen = def;
  return needs_heads(config, config_path, def->name, err);
}

/* The rule of a fused QKV: [q; k; v] as three segments, or Megatron's groups as plain heads. */
static void fused_qkv(const ckpt_config *c, ckpt_qkv_layout layout, ckpt_shard_rule *out) {
  out->head_size = c->head_dim;
  out->replicate_heads = CKPT_HEADS_CUT;
  if (layout == CKPT_QKV_INTERLEAVED) {
    /* Each KV head group holds heads / kv_heads query heads, a k head and a v head. */
    out->heads = c->kv_heads;
    out->head_size = (c->heads / c->kv_heads + 2) * c->head_dim;
    out->head_kind = "KV head groups (q, k and v)";
    return;
  }
  out->segment_count = 3;
  out->segment_heads[0] = c->heads;
  out->segment_heads[1] = out->segment_heads[2] = c->kv_heads;
  out->head_kind = "heads";
}

int ckpt_preset_make(const char *name, const ckpt_config *config, const char *config_path,
                     int replicate_kv, ckpt_qkv_layout layout, int override, ckpt_preset *p,
                     tool_error *err) {
  memset(p, 0, sizeof *p);
  const preset_def *def = NULL;
  int rc = choose(name, config, config_path, override, &def, err);
  if (rc != 0) {
    return rc;
  }
  for (size_t i = 0; i < COUNT(phi3_fused) && def->groups[0].rules == phi3_fused; i++) {
    if (phi3_fused[i].heads == FUSED_GATE_UP && config->hidden_size == 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: no hidden_size, which preset '%s' needs to cut gate_up_proj",
                       config_path, def->name);
    }
  }
  size_t total = 0;
  for (size_t g = 0; g < COUNT(def->groups); g++) {
    total += def->groups[g].count;
  }
  p->name = def->name;
  p->axes = calloc(total, sizeof *p->axes);
  if (p->axes == NULL) {
    rc = tool_oom(err, "making the preset's rules");
  }
  for (size_t g = 0; g < COUNT(def->groups) && rc == 0; g++) {
    for (size_t i = 0; i < def->groups[g].count; i++) {
      const preset_rule *r = &def->groups[g].rules[i];
      ckpt_shard_rule *out = &p->axes[p->axis_count++];
      out->glob = r->glob;
      out->axis = r->axis;
      out->preset = 1;
      if (r->heads == FUSED_QKV) {
        fused_qkv(config, layout, out);
      } else if (r->heads == FUSED_GATE_UP) {
        /* [gate; up] seen as [2, -1, hidden]: each rank takes its share of both. */
        out->view.has_view = 1;
        out->view.view_ndim = 3;
        out->view.view[0] = 2;
        out->view.view[1] = -1;
        out->view.view[2] = config->hidden_size;
      } else if (r->heads != NO_HEADS) {
        int kv = r->heads == KV_HEADS;
        out->heads = kv ? config->kv_heads : config->heads;
        out->head_size = config->head_dim;
        out->head_kind = kv ? "KV heads" : "attention heads";
        out->replicate_heads = !kv            ? CKPT_HEADS_CUT
                               : replicate_kv ? CKPT_HEADS_REPLICATED
                                              : CKPT_HEADS_REPLICABLE;
      }
    }
  }
  p->replicate = def->replicate;
  p->replicate_count = def->replicate_count;
  return rc;
}

void ckpt_preset_free(ckpt_preset *p) {
  free(p->axes);
  memset(p, 0, sizeof *p);
}

int ckpt_preset_splits(const char *name) {
  const preset_def *def = find(name);
  return def != NULL && def->groups[0].rules == phi3_fused;
}

/* The names of the parts (the '*' takes what the glob's captured). */
static char q_name[] = "*.self_attn.q_proj.weight", k_name[] = "*.self_attn.k_proj.weight",
            v_name[] = "*.self_attn.v_proj.weight", gate_name[] = "*.mlp.gate_proj.weight",
            up_name[] = "*.mlp.up_proj.weight";
static char *qkv_names[] = {q_name, k_name, v_name};
static char *gate_up_names[] = {gate_name, up_name};

int ckpt_preset_make_split(const char *name, const ckpt_config *config, const char *config_path,
                           ckpt_qkv_layout layout, int override, ckpt_preset_split *p,
                           tool_error *err) {
  memset(p, 0, sizeof *p);
  const preset_def *def = NULL;
  int rc = choose(name, config, config_path, override, &def, err);
  if (rc != 0) {
    return rc;
  }
  p->name = def->name;
  if (def->groups[0].rules != phi3_fused) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "preset '%s' has no fused tensors to split (st shard --preset %s shards the "
                     "model as it is)",
                     def->name, def->name);
  }
  int64_t hd = config->head_dim, group = config->heads / config->kv_heads;
  ckpt_split_rule *qkv = &p->rules[0], *gate_up = &p->rules[1];
  qkv->glob = "*.self_attn.qkv_proj.weight";
  qkv->origin = "preset phi3 (qkv_proj)";
  qkv->names = qkv_names;
  qkv->name_count = 3;
  qkv->cut.lengths = p->lengths;
  qkv->cut.length_count = 3;
  if (layout == CKPT_QKV_INTERLEAVED) {
    /* Seen as [kv groups, rows of a group, -1], each group cut into its q, k and v rows: the
     * parts fold back to [heads * head_dim, hidden] and twice [kv_heads * head_dim, hidden]. */
    qkv->cut.has_view = 1;
    qkv->cut.view_ndim = 3;
    qkv->cut.view[0] = config->kv_heads;
    qkv->cut.view[1] = (group + 2) * hd;
    qkv->cut.view[2] = -1;
    qkv->cut.axis = 1;
    p->lengths[0] = group * hd;
    p->lengths[1] = p->lengths[2] = hd;
  } else {
    p->lengths[0] = config->heads * hd;
    p->lengths[1] = p->lengths[2] = config->kv_heads * hd;
  }
  gate_up->glob = "*.mlp.gate_up_proj.weight";
  gate_up->origin = "preset phi3 (gate_up_proj)";
  gate_up->names = gate_up_names;
  gate_up->name_count = 2;
  gate_up->cut.has_parts = 1;
  gate_up->cut.parts = 2;
  p->count = 2;
  return 0;
}
