/*
 * The architectures `cleave convert` takes: a Hugging Face model class (config.json's
 * `architectures[0]`) and the GGUF architecture llama.cpp's converter writes for it
 * (convert_hf_to_gguf.py's registrations), with what the converter does differently for each.
 * Static tables; thread-safe.
 */
#ifndef CLEAVE_CONVERT_ARCH_H
#define CLEAVE_CONVERT_ARCH_H

/** The GGUF architectures (each a bit in convert_name.archs). */
typedef enum convert_arch {
  CONVERT_ARCH_LLAMA = 0,
  CONVERT_ARCH_QWEN2 = 1,
  CONVERT_ARCH_QWEN3 = 2,
  CONVERT_ARCH_COUNT = 3
} convert_arch;

/** One Hugging Face model class the command takes. */
typedef struct convert_hf_class {
  /** config.json's architectures[0], e.g. "MistralForCausalLM". */
  const char *hf_class;
  convert_arch arch;
} convert_hf_class;

/** What the converter does for a GGUF architecture. */
typedef struct convert_arch_info {
  /** general.architecture, and the prefix of its keys ("llama"). */
  const char *name;
  /** Whether the Q and K rows are permuted (LlamaModel.permute: llama, mistral), or kept. */
  int permute_qk;
} convert_arch_info;

/** The class named `hf_class`, or NULL when the command does not take it. */
const convert_hf_class *convert_hf_class_find(const char *hf_class);

/** The classes taken, `*count` of them (for messages and docs). */
const convert_hf_class *convert_hf_classes(unsigned *count);

/** What the converter does for `arch` (< CONVERT_ARCH_COUNT). */
const convert_arch_info *convert_arch_get(convert_arch arch);

/** The architecture whose general.architecture is `name`, or -1. */
int convert_arch_by_name(const char *name);

#endif /* CLEAVE_CONVERT_ARCH_H */
