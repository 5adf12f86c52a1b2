/*
 * The vocabulary of a Hugging Face folder as a GGUF file of metadata only, for the tests: runs
 * convert_vocab_add on an empty metadata array and writes what it put (GGUF version 3, no
 * tensors), so that the tests compare its tokenizer.* keys with those llama.cpp's converter
 * writes with --vocab-only, independently of the rest of `cleave convert`.
 *
 *   vocab_gguf HF_FOLDER ARCH OUT.gguf
 *
 * Exits with convert_vocab_add's status and its message on stderr ("vocab_gguf: error: ..."),
 * writing nothing then.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_vocab.h"
#include "gguf_meta_build.h"
#include "gguf_value.h"

static void put_le(FILE *f, uint64_t v, unsigned n) {
  unsigned char b[8];
  gguf_put_le(b, v, n);
  fwrite(b, 1, n, f);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: vocab_gguf HF_FOLDER ARCH OUT.gguf\n");
    return 64;
  }
  ckpt_meta *meta = NULL;
  size_t count = 0;
  tool_error err = {0};
  int rc = convert_vocab_add(argv[1], argv[2], &meta, &count, &err);
  if (rc != 0) {
    tool_scrub(&err);
    fprintf(stderr, "vocab_gguf: error: %s\n", err.message);
    gguf_meta_free_all(meta, count);
    return rc;
  }
  FILE *f = fopen(argv[3], "wb");
  if (f == NULL) {
    perror(argv[3]);
    gguf_meta_free_all(meta, count);
    return 73;
  }
  fwrite("GGUF", 1, 4, f);
  put_le(f, 3, 4);
  put_le(f, 0, 8);
  put_le(f, count, 8);
  for (size_t i = 0; i < count; i++) {
    size_t klen = strlen(meta[i].key);
    int type = gguf_meta_type(&meta[i]);
    put_le(f, klen, 8);
    fwrite(meta[i].key, 1, klen, f);
    put_le(f, (uint64_t)type, 4);
    if (type == GGUF_STRING) {
      put_le(f, meta[i].value_size, 8);
    }
    fwrite(meta[i].value, 1, meta[i].value_size, f);
  }
  int bad = ferror(f) != 0;
  bad |= fclose(f) != 0;
  gguf_meta_free_all(meta, count);
  return bad ? 74 : 0;
}
