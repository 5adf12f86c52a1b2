/* Fuzz target: the vocabulary of `cleave convert` (tools/convert: convert_vocab_add) on a folder
 * whose one tokenizer file is the input, as a downloaded model's folder gives it. The first byte
 * picks the file: 0 tokenizer.model (SentencePiece, architecture llama), 1 tokenizer.json (BPE,
 * qwen2), 2 tokenizer_config.json beside a valid tokenizer.model; the rest is the file's bytes.
 *
 * A refusal must be CLI_EXIT_DATA with a message naming the folder (every message names its
 * file, which is in the folder), or CLI_EXIT_SOFTWARE for an allocation failure. An accepted
 * folder must give tokenizer.ggml.model and as many token types as tokens. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert_vocab.h"
#include "gguf_meta_build.h"
#include "gguf_value.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[64];

/* A SentencePiece model of two pieces: <unk> (UNKNOWN) and "a". */
static const unsigned char good_model[] = {0x0a, 0x0e, 0x0a, 0x05, '<',  'u',  'n',
                                           'k',  '>',  0x15, 0x00, 0x00, 0x00, 0x00,
                                           0x18, 0x02, 0x0a, 0x03, 0x0a, 0x01, 'a'};

static void put(const char *name, const void *bytes, size_t n) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) {
    abort();
  }
}

static void drop(const char *name) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (g_dir[0] == '\0') {
    strcpy(g_dir, "/tmp/fuzz_vocab.XXXXXX");
    if (mkdtemp(g_dir) == NULL) {
      abort();
    }
    put("config.json", "{\"vocab_size\": 4}", 17);
  }
  if (size == 0 || data[0] > 2) {
    return 0;
  }
  static const char *const files[] = {"tokenizer.model", "tokenizer.json", "tokenizer_config.json"};
  for (size_t i = 0; i < 3; i++) {
    drop(files[i]);
  }
  if (data[0] == 2) {
    put("tokenizer.model", good_model, sizeof good_model);
  }
  put(files[data[0]], data + 1, size - 1);
  ckpt_meta *meta = NULL;
  size_t count = 0;
  tool_error err = {0};
  int rc = convert_vocab_add(g_dir, data[0] == 1 ? "qwen2" : "llama", &meta, &count, &err);
  if (rc != 0) {
    if ((rc != CLI_EXIT_DATA && rc != CLI_EXIT_SOFTWARE) ||
        (rc == CLI_EXIT_DATA && strstr(err.message, g_dir) == NULL)) {
      abort();
    }
  } else {
    const ckpt_meta *tokens = gguf_meta_get(meta, count, "tokenizer.ggml.tokens");
    const ckpt_meta *types = gguf_meta_get(meta, count, "tokenizer.ggml.token_type");
    int et;
    uint64_t n_tokens = 0, n_types = 0;
    if (gguf_meta_get(meta, count, "tokenizer.ggml.model") == NULL ||
        (tokens != NULL && gguf_meta_array(tokens, &et, &n_tokens) != 0) ||
        (types != NULL && gguf_meta_array(types, &et, &n_types) != 0) || n_tokens != n_types) {
      abort();
    }
  }
  gguf_meta_free_all(meta, count);
  return 0;
}
