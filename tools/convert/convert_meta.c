/* The converter's GGUF metadata from config.json and generation_config.json (convert_meta.h). */
#include "convert_meta.h"

#include <stdio.h>
#include <string.h>

#include "gguf_meta_build.h"

typedef struct builder {
  ckpt_meta **meta;
  size_t *count;
  const char *arch;
  tool_error *err;
  int rc;
} builder;

/* "ARCH.SUFFIX" into `key`. */
static const char *arch_key(const builder *b, const char *suffix, char *key, size_t size) {
  snprintf(key, size, "%s.%s", b->arch, suffix);
  return key;
}

static void put_u32(builder *b, const char *key, int64_t v, const char *what, const char *config) {
  if (b->rc != 0) {
    return;
  }
  if (v < 0 || v > (int64_t)UINT32_MAX) {
    b->rc = tool_fail(b->err, CLI_EXIT_DATA, "%s: %s is %lld, not a u32 as GGUF's %s", config, what,
                      (long long)v, key);
    return;
  }
  b->rc = gguf_meta_put_u32(b->meta, b->count, key, (uint32_t)v, b->err);
}

static void put_arch_u32(builder *b, const char *suffix, int64_t v, const char *what,
                         const char *config) {
  char key[128];
  put_u32(b, arch_key(b, suffix, key, sizeof key), v, what, config);
}

/* A float key: the double rounded to the nearest float, as NumPy's float32 of a Python float. */
static void put_f32(builder *b, const char *key, double v) {
  if (b->rc == 0) {
    b->rc = gguf_meta_put_f32(b->meta, b->count, key, (float)v, b->err);
  }
}

static void put_arch_f32(builder *b, const char *suffix, double v) {
  char key[128];
  put_f32(b, arch_key(b, suffix, key, sizeof key), v);
}

static void put_i32(builder *b, const char *key, int64_t v) {
  if (b->rc == 0) {
    b->rc = gguf_meta_put_i32(b->meta, b->count, key, (int32_t)v, b->err);
  }
}

static void put_string(builder *b, const char *key, const char *v) {
  if (b->rc == 0) {
    b->rc = gguf_meta_put_string(b->meta, b->count, key, v, b->err);
  }
}

/* general.sampling.*, in metadata.py's order (set_gguf_meta_model). */
static void sampling(builder *b, const ckpt_generation *g) {
  if (g == NULL) {
    return;
  }
  if (g->has_sequence) {
    put_string(b, "general.sampling.sequence", g->sequence);
  }
  if (g->has_top_k) {
    put_i32(b, "general.sampling.top_k", g->top_k);
  }
  if (g->has_top_p) {
    put_f32(b, "general.sampling.top_p", g->top_p);
  }
  if (g->has_min_p) {
    put_f32(b, "general.sampling.min_p", g->min_p);
  }
  if (g->has_xtc_probability) {
    put_f32(b, "general.sampling.xtc_probability", g->xtc_probability);
  }
  if (g->has_xtc_threshold) {
    put_f32(b, "general.sampling.xtc_threshold", g->xtc_threshold);
  }
  if (g->has_temp) {
    put_f32(b, "general.sampling.temp", g->temp);
  }
  if (g->has_penalty_last_n) {
    put_i32(b, "general.sampling.penalty_last_n", g->penalty_last_n);
  }
  if (g->has_penalty_repeat) {
    put_f32(b, "general.sampling.penalty_repeat", g->penalty_repeat);
  }
  if (g->has_mirostat) {
    put_i32(b, "general.sampling.mirostat", g->mirostat);
  }
  if (g->has_mirostat_tau) {
    put_f32(b, "general.sampling.mirostat_tau", g->mirostat_tau);
  }
  if (g->has_mirostat_eta) {
    put_f32(b, "general.sampling.mirostat_eta", g->mirostat_eta);
  }
}

/* rope.scaling.*, as TextModel.set_gguf_parameters writes them for each rope_type. */
static void rope_scaling(builder *b, const ckpt_config *c, const char *config) {
  const char *type = c->rope_type;
  if (b->rc != 0 || type[0] == '\0') {
    return;
  }
  char key[128];
  if (strcmp(type, "linear") == 0 && c->has_rope_factor) {
    put_string(b, arch_key(b, "rope.scaling.type", key, sizeof key), "linear");
    put_arch_f32(b, "rope.scaling.factor", c->rope_factor);
  } else if (strcmp(type, "yarn") == 0 && c->has_rope_factor) {
    if (c->rope_original_context == 0) {
      b->rc = tool_fail(b->err, CLI_EXIT_DATA,
                        "%s: a yarn rope scaling without original_max_position_embeddings", config);
      return;
    }
    put_string(b, arch_key(b, "rope.scaling.type", key, sizeof key), "yarn");
    put_arch_f32(b, "rope.scaling.factor", c->rope_factor);
    put_arch_u32(b, "rope.scaling.original_context_length", c->rope_original_context,
                 "original_max_position_embeddings", config);
    if (c->has_rope_ext_factor) {
      put_arch_f32(b, "rope.scaling.yarn_ext_factor", c->rope_ext_factor);
    }
    if (c->has_rope_attn_factor) {
      put_arch_f32(b, "rope.scaling.yarn_attn_factor", c->rope_attn_factor);
    }
    if (c->has_rope_beta_fast) {
      put_arch_f32(b, "rope.scaling.yarn_beta_fast", c->rope_beta_fast);
    }
    if (c->has_rope_beta_slow) {
      put_arch_f32(b, "rope.scaling.yarn_beta_slow", c->rope_beta_slow);
    }
  } else if (strcmp(type, "su") == 0 || strcmp(type, "longrope") == 0) {
    put_string(b, arch_key(b, "rope.scaling.type", key, sizeof key), "longrope");
  } else if (strcasecmp(type, "llama3") == 0) {
    /* The converter writes a rope_freqs tensor computed from the scaling (generate_extra_tensors):
     * arithmetic of its own that cleave does not redo. */
    b->rc = tool_fail(b->err, CLI_EXIT_DATA,
                      "%s: rope_type 'llama3' needs the rope_freqs tensor llama.cpp's converter "
                      "computes, which cleave does not make",
                      config);
  }
  /* Any other type ("default", "dynamic", ...): the converter writes no scaling key. */
}

int convert_meta_build(const convert_meta_input *in, ckpt_meta **meta, size_t *count,
                       tool_error *err) {
  const ckpt_config *c = in->config;
  const char *config = in->config_path;
  builder b = {meta, count, convert_arch_get(in->arch)->name, err, 0};
  if (c->layers == 0) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: num_hidden_layers is missing", config);
  }
  put_string(&b, "general.architecture", b.arch);
  put_string(&b, "general.type", "model");
  sampling(&b, in->generation);
  put_string(&b, "general.name", in->name);
  put_arch_u32(&b, "block_count", c->layers, "num_hidden_layers", config);
  if (c->context_length != 0) {
    put_arch_u32(&b, "context_length", c->context_length, "max_position_embeddings", config);
  }
  if (c->hidden_size != 0) {
    put_arch_u32(&b, "embedding_length", c->hidden_size, "hidden_size", config);
  }
  if (c->intermediate_size != 0) {
    put_arch_u32(&b, "feed_forward_length", c->intermediate_size, "intermediate_size", config);
  }
  if (c->heads != 0) {
    put_arch_u32(&b, "attention.head_count", c->heads, "num_attention_heads", config);
  }
  /* The converter writes head_count_kv only when config.json gives it (ckpt_config defaults
   * kv_heads to the heads for the presets). */
  if (c->kv_heads_given) {
    put_arch_u32(&b, "attention.head_count_kv", c->kv_heads, "num_key_value_heads", config);
  }
  rope_scaling(&b, c, config);
  if (c->has_rope_theta) {
    put_arch_f32(&b, "rope.freq_base", c->rope_theta);
  }
  if (c->has_rms_norm_eps) {
    put_arch_f32(&b, "attention.layer_norm_rms_epsilon", c->rms_norm_eps);
  }
  if (c->experts != 0) {
    put_arch_u32(&b, "expert_count", c->experts, "num_local_experts", config);
  }
  if (c->experts_used != 0) {
    put_arch_u32(&b, "expert_used_count", c->experts_used, "num_experts_per_tok", config);
  }
  if (c->head_dim_given) {
    put_arch_u32(&b, "attention.key_length", c->head_dim, "head_dim", config);
    put_arch_u32(&b, "attention.value_length", c->head_dim, "head_dim", config);
  }
  if (b.rc == 0) {
    b.rc = gguf_meta_put_u32(meta, count, "general.file_type", in->file_type, err);
  }
  if (b.rc == 0 && in->arch == CONVERT_ARCH_LLAMA) {
    /* LlamaModel.set_gguf_parameters: vocab_size, and the rotary dimensions (head_dim, else
     * hidden_size / heads). */
    if (c->vocab_size == 0 || c->heads == 0 || c->head_dim == 0) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: %s is missing", config,
                       c->vocab_size == 0 ? "vocab_size"
                       : c->heads == 0    ? "num_attention_heads"
                                          : "hidden_size");
    }
    put_arch_u32(&b, "vocab_size", c->vocab_size, "vocab_size", config);
    put_arch_u32(&b, "rope.dimension_count", c->head_dim, "head_dim", config);
  }
  if (b.rc == 0) {
    b.rc = gguf_meta_put_u32(meta, count, "general.quantization_version", 2, err);
  }
  return b.rc;
}
