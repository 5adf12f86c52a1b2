/* The Hugging Face classes `cleave convert` takes and their GGUF architectures. */
#include "convert_arch.h"

#include <string.h>

/* convert_hf_to_gguf.py registers LlamaForCausalLM and MistralForCausalLM to its LlamaModel
 * (architecture llama, Q and K permuted, conversion/llama.py), Qwen2ForCausalLM to Qwen2Model and
 * Qwen3ForCausalLM to Qwen3Model (conversion/qwen.py, no permutation). */
static const convert_hf_class classes[] = {
    {"LlamaForCausalLM", CONVERT_ARCH_LLAMA},
    {"MistralForCausalLM", CONVERT_ARCH_LLAMA},
    {"Qwen2ForCausalLM", CONVERT_ARCH_QWEN2},
    {"Qwen3ForCausalLM", CONVERT_ARCH_QWEN3},
};

static const convert_arch_info archs[CONVERT_ARCH_COUNT] = {
    [CONVERT_ARCH_LLAMA] = {"llama", 1},
    [CONVERT_ARCH_QWEN2] = {"qwen2", 0},
    [CONVERT_ARCH_QWEN3] = {"qwen3", 0},
};

const convert_hf_class *convert_hf_class_find(const char *hf_class) {
  for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
    if (strcmp(classes[i].hf_class, hf_class) == 0) {
      return &classes[i];
    }
  }
  return NULL;
}

const convert_hf_class *convert_hf_classes(unsigned *count) {
  *count = (unsigned)(sizeof classes / sizeof *classes);
  return classes;
}

const convert_arch_info *convert_arch_get(convert_arch arch) {
  return &archs[arch];
}

int convert_arch_by_name(const char *name) {
  for (int i = 0; i < CONVERT_ARCH_COUNT; i++) {
    if (strcmp(archs[i].name, name) == 0) {
      return i;
    }
  }
  return -1;
}
