/* Hugging Face <-> GGUF tensor names (convert_names.h). */
#include "convert_names.h"

#include <stdio.h>
#include <string.h>

#define LLAMA (1u << CONVERT_ARCH_LLAMA)
#define QWEN2 (1u << CONVERT_ARCH_QWEN2)
#define QWEN3 (1u << CONVERT_ARCH_QWEN3)
#define ALL (LLAMA | QWEN2 | QWEN3)

/* gguf-py (constants.py MODEL_TENSORS, tensor_mapping.py), read for node-llama-cpp 3.21.1's
 * llama.cpp: the tensors of LLAMA, QWEN2 and QWEN3 that a Hugging Face checkpoint of
 * LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM and Qwen3ForCausalLM holds. Q and K
 * norms are QWEN3's (LLAMA and QWEN2 do not list ATTN_Q_NORM). */
static const convert_name table[] = {
    {"model.embed_tokens", "token_embd", ALL, CONVERT_ROLE_TOKEN_EMBD},
    {"model.norm", "output_norm", ALL, CONVERT_ROLE_OTHER},
    {"lm_head", "output", ALL, CONVERT_ROLE_OUTPUT},
    {"model.layers.{bid}.input_layernorm", "blk.{bid}.attn_norm", ALL, CONVERT_ROLE_OTHER},
    {"model.layers.{bid}.self_attn.q_proj", "blk.{bid}.attn_q", ALL, CONVERT_ROLE_Q},
    {"model.layers.{bid}.self_attn.k_proj", "blk.{bid}.attn_k", ALL, CONVERT_ROLE_K},
    {"model.layers.{bid}.self_attn.v_proj", "blk.{bid}.attn_v", ALL, CONVERT_ROLE_OTHER},
    {"model.layers.{bid}.self_attn.o_proj", "blk.{bid}.attn_output", ALL, CONVERT_ROLE_OTHER},
    {"model.layers.{bid}.self_attn.q_norm", "blk.{bid}.attn_q_norm", QWEN3, CONVERT_ROLE_OTHER},
    {"model.layers.{bid}.self_attn.k_norm", "blk.{bid}.attn_k_norm", QWEN3, CONVERT_ROLE_OTHER},
    {"model.layers.{bid}.post_attention_layernorm", "blk.{bid}.ffn_norm", ALL, CONVERT_ROLE_OTHER},
    {"model.layers.{bid}.mlp.gate_proj", "blk.{bid}.ffn_gate", ALL, CONVERT_ROLE_OTHER},
    {"model.layers.{bid}.mlp.up_proj", "blk.{bid}.ffn_up", ALL, CONVERT_ROLE_OTHER},
    {"model.layers.{bid}.mlp.down_proj", "blk.{bid}.ffn_down", ALL, CONVERT_ROLE_OTHER},
};

const convert_name *convert_names(size_t *count) {
  *count = sizeof table / sizeof *table;
  return table;
}

/* Matches `name` against the stem `pattern` followed by a suffix: returns the suffix (which
 * starts with '.', or is empty) or NULL; `*bid` the block number where the pattern has one. */
static const char *match_stem(const char *pattern, const char *name, long *bid) {
  const char *mark = strstr(pattern, "{bid}");
  *bid = -1;
  if (mark == NULL) {
    size_t n = strlen(pattern);
    if (strncmp(name, pattern, n) != 0) {
      return NULL;
    }
    name += n;
  } else {
    size_t head = (size_t)(mark - pattern);
    if (strncmp(name, pattern, head) != 0) {
      return NULL;
    }
    name += head;
    /* A block number: digits, no leading zero but 0 itself, as Python's str(int) writes it. */
    if (*name < '0' || *name > '9' || (name[0] == '0' && name[1] >= '0' && name[1] <= '9')) {
      return NULL;
    }
    long v = 0;
    while (*name >= '0' && *name <= '9') {
      if (v > 99999999) {
        return NULL;
      }
      v = v * 10 + (*name - '0');
      name++;
    }
    const char *tail = mark + 5;
    size_t n = strlen(tail);
    if (strncmp(name, tail, n) != 0) {
      return NULL;
    }
    name += n;
    *bid = v;
  }
  /* The converter tries the name with ".weight" or ".bias" removed, and the name itself. */
  if (*name == '\0' || strcmp(name, ".weight") == 0 || strcmp(name, ".bias") == 0) {
    return name;
  }
  return NULL;
}

static int fill(const char *pattern, long bid, const char *suffix, char *out, size_t size) {
  const char *mark = strstr(pattern, "{bid}");
  int n;
  if (mark == NULL) {
    n = snprintf(out, size, "%s%s", pattern, suffix);
  } else {
    n = snprintf(out, size, "%.*s%ld%s%s", (int)(mark - pattern), pattern, bid, mark + 5, suffix);
  }
  return n >= 0 && (size_t)n < size ? 0 : -1;
}

static const convert_name *map(convert_arch arch, const char *name, int to_gguf, char *out,
                               size_t size, long *bid) {
  for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
    const convert_name *e = &table[i];
    if ((e->archs & (1u << arch)) == 0) {
      continue;
    }
    const char *suffix = match_stem(to_gguf ? e->hf : e->gguf, name, bid);
    if (suffix != NULL) {
      return fill(to_gguf ? e->gguf : e->hf, *bid, suffix, out, size) == 0 ? e : NULL;
    }
  }
  *bid = -1;
  return NULL;
}

const convert_name *convert_name_to_gguf(convert_arch arch, const char *hf, char *out, size_t size,
                                         long *bid) {
  return map(arch, hf, 1, out, size, bid);
}

const convert_name *convert_name_to_hf(convert_arch arch, const char *gguf, char *out, size_t size,
                                       long *bid) {
  return map(arch, gguf, 0, out, size, bid);
}
