/* Fuzz target: a model folder's config.json (tools/checkpoint/model/ckpt_config.c, jansson) and the
 * presets made from it (ckpt_preset.c), as `--preset` reads a downloaded model's file.
 *
 * A refusal must be CLI_EXIT_DATA (CLI_EXIT_SOFTWARE for an allocation failure) with a message
 * naming the file. An accepted config's counts must hold what the presets rely on (KV heads
 * dividing the heads, a head_dim when the heads and hidden_size are given), and every preset
 * made from it must give head-aware rules whose sizes are positive and free of overflow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_config.h"
#include "ckpt_preset.h"
#include "cli_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"auto",    "llama",     "mistral",   "qwen2", "qwen3",
                                    "mixtral", "qwen2_moe", "qwen3_moe", "phi3"};

static void check_rules(const ckpt_preset *p) {
  for (size_t i = 0; i < p->axis_count; i++) {
    const ckpt_shard_rule *r = &p->axes[i];
    if (r->glob == NULL || !r->preset || r->heads < 0 || r->head_size < 0) {
      abort();
    }
    if (r->heads > 0 && (r->head_size <= 0 || r->heads > INT64_MAX / r->head_size)) {
      abort();
    }
    int64_t total = 0;
    for (int k = 0; k < r->segment_count; k++) {
      if (r->segment_heads[k] <= 0 || r->segment_heads[k] > (INT64_MAX - total) / r->head_size) {
        abort();
      }
      total += r->segment_heads[k] * r->head_size;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ckpt_config c;
  tool_error err;
  int rc = ckpt_config_parse((const char *)data, size, "config.json", &c, &err);
  if (rc != 0) {
    if ((rc != CLI_EXIT_DATA && rc != CLI_EXIT_SOFTWARE) ||
        (rc == CLI_EXIT_DATA && strncmp(err.message, "config.json: ", 13) != 0)) {
      abort();
    }
    return 0;
  }
  if (c.heads > 0 && (c.kv_heads <= 0 || c.heads % c.kv_heads != 0)) {
    abort();
  }
  if (c.heads > 0 && c.hidden_size > 0 && c.head_dim <= 0) {
    abort();
  }
  if (memchr(c.model_type, '\0', sizeof c.model_type) == NULL ||
      memchr(c.architecture, '\0', sizeof c.architecture) == NULL) {
    abort();
  }
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    for (int layout = 0; layout < 2; layout++) {
      for (int replicate = 0; replicate < 4; replicate++) {
        /* Bit 0: --replicate-kv; bit 1: --override-preset. */
        int override = replicate >> 1;
        ckpt_preset p;
        rc = ckpt_preset_make(names[i], &c, "config.json", replicate & 1, (ckpt_qkv_layout)layout,
                              override, &p, &err);
        if (rc == 0) {
          check_rules(&p);
        } else if (rc != CLI_EXIT_DATA && rc != CLI_EXIT_SOFTWARE) {
          abort();
        }
        ckpt_preset_free(&p);
        ckpt_preset_split ps;
        rc = ckpt_preset_make_split(names[i], &c, "config.json", (ckpt_qkv_layout)layout, override,
                                    &ps, &err);
        if (rc == 0 && (ps.count != 2 || ps.lengths[0] <= 0 || ps.lengths[1] <= 0)) {
          abort();
        }
      }
    }
  }
  return 0;
}
