/*
 * What the files of the vocabulary share (convert_vocab.c and the vocab_*.c files): the token
 * table being built and the files of the folder read as hostile input. The metadata keys are put
 * with gguf_meta_build.h, which overwrites a key in its place as gguf-py's writer does. Not
 * installed; nothing outside tools/convert includes it.
 */
#ifndef CLEAVE_VOCAB_INTERNAL_H
#define CLEAVE_VOCAB_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "error.h"

/** The token types llama.cpp's converter writes (gguf-py's TokenType; a SentencePiece piece's
 * type has the same numbers). */
enum {
  VOCAB_NORMAL = 1,
  VOCAB_UNKNOWN = 2,
  VOCAB_CONTROL = 3,
  VOCAB_USER_DEFINED = 4,
  VOCAB_UNUSED = 5,
  VOCAB_BYTE = 6
};

/** The largest vocabulary read: 2^24 tokens (the largest models have about 2^18). */
#define VOCAB_MAX_TOKENS (1u << 24)
/** The largest tokenizer.model read (a 256k-piece model is about 5 MB). */
#define VOCAB_MAX_MODEL_BYTES (64u << 20)
/** The largest JSON file of the tokenizer read (tokenizer.json, tokenizer_config.json, ...): a
 * 256k-token tokenizer.json with its merges is about 35 MB. */
#define VOCAB_MAX_JSON_BYTES (128u << 20)

/** The token table: `count` tokens by id, each a malloc'd NUL-terminated UTF-8 text, its score
 * (when `scores` is not NULL) and its type. */
typedef struct vocab_table {
  size_t count;
  char **text;
  float *scores;
  int32_t *types;
} vocab_table;

/** Allocates `count` tokens "[PAD<id>]" of type UNUSED, with scores `pad_score` when
 * `with_scores`. Returns 0 or CLI_EXIT_SOFTWARE. */
int vocab_table_init(vocab_table *t, size_t count, int with_scores, float pad_score,
                     tool_error *err);

/** Replaces token `id`'s text by the `n` bytes of `s`. Returns 0 or CLI_EXIT_SOFTWARE. */
int vocab_table_set(vocab_table *t, size_t id, const char *s, size_t n, tool_error *err);

/** Releases what `t` holds and zeroes it. */
void vocab_table_free(vocab_table *t);

/** "DIR/NAME" into a malloc'd string, or NULL when out of memory. */
char *vocab_path(const char *dir, const char *name);

/** 1 when `path` is a regular file (following links), 0 otherwise (a folder, nothing). */
int vocab_is_file(const char *path);

/** Reads the whole regular file `path` (at most `limit` bytes; "PATH: N bytes, more than ..."
 * with CLI_EXIT_DATA beyond) into a malloc'd buffer, NUL-terminated after its `*size` bytes.
 * Returns 0, CLI_EXIT_NOINPUT (cannot open), CLI_EXIT_IOERR or CLI_EXIT_SOFTWARE. */
int vocab_read_file(const char *path, size_t limit, char **data, size_t *size, tool_error *err);

/** Parses `path` as JSON into `*root` (the caller json_decref's it); `*root` is NULL and 0 is
 * returned when the file does not exist and `optional`. Errors name the file, line and column. */
int vocab_read_json(const char *path, int optional, json_t **root, tool_error *err);

/** Python's truth of a JSON value (what `if value:` decides after json.load): false for null,
 * false, 0, 0.0, "", [] and {}. */
int vocab_truthy(const json_t *v);

/** 1 when the `n` bytes of `s` are UTF-8 without NUL (what a GGUF string holds). */
int vocab_utf8_ok(const char *s, size_t n);

/** 1 when the converter's does_token_look_special holds for `s` (TextModel, base.py): "<pad>",
 * "<mask>", "<2mass>", "[@BOS@]", "<|...|>", "<｜...｜>", "<unused...>". */
int vocab_looks_special(const char *s);

/** `s` with each U+2581 (SentencePiece's space) replaced by a space, into a malloc'd string
 * (*out), its length in *n. Returns 0 or CLI_EXIT_SOFTWARE. */
int vocab_unescape_spaces(const char *s, char **out, size_t *n, tool_error *err);

/** The SentencePiece model `path` (tokenizer.model) read into `t`: `vocab_size` tokens (0: as
 * many as the model's pieces), as _create_vocab_sentencepiece makes them before the added
 * tokens. vocab_spm.c. */
int vocab_spm_read(const char *path, size_t vocab_size, vocab_table *t, tool_error *err);

/** added_tokens.json and tokenizer_config.json's added_tokens_decoder of `dir` laid over a
 * SentencePiece table (scores -1000, types USER_DEFINED or CONTROL). vocab_spm.c. */
int vocab_spm_added(const char *dir, vocab_table *t, tool_error *err);

/** The BPE vocabulary of `tokenizer` (tokenizer.json at `path`, parsed) into `t`, with
 * `vocab_size` tokens (0: one past the largest id), as get_vocab_base makes it. vocab_bpe.c. */
int vocab_bpe_tokens(const json_t *tokenizer, const char *path, size_t vocab_size, vocab_table *t,
                     tool_error *err);

/** The merges of tokenizer.json (`path`, parsed) as "A B" strings (a pair's spaces written
 * U+0120), or of DIR/merges.txt when it has none; *merges malloc'd, each malloc'd. */
int vocab_bpe_merges(const json_t *tokenizer, const char *path, const char *dir, char ***merges,
                     size_t *count, tool_error *err);

/** The kind of a tokenizer.json's model as LlamaModel.set_vocab tells them apart: 1 when it is
 * Llama 3's (BPE, ignore_merges, no byte_fallback) or not a SentencePiece-like BPE (converted as
 * GPT-2's), 0 when it is a SentencePiece-like BPE (byte_fallback, a Sequence decoder: gguf-py's
 * LlamaHfVocab, which needs transformers). vocab_bpe.c. */
int vocab_bpe_is_gpt2(const json_t *tokenizer);

/** The name llama.cpp gives the pre-tokenizer of `tokenizer` (tokenizer.json at `path`) for a
 * model of architecture `arch` (tokenizer.ggml.pre), or CLI_EXIT_DATA naming what is not
 * known. vocab_pre.c. */
int vocab_pre_name(const json_t *tokenizer, const char *path, const char *arch, const char **name,
                   tool_error *err);

/** gguf-py's SpecialVocab of `dir` put into the metadata: merges (when `merges`), special token
 * ids (of the types `types`, NULL: bos eos unk sep pad cls mask; below `n_vocab` unless it is
 * 0), add_*_token, the chat template, the normalizer's flags. `set_ids`/`set_count` are ids set
 * by the caller after loading (CodeLlama's, `_set_special_token`). vocab_special.c. */
typedef struct vocab_special_opts {
  int load_merges;
  /** The folder's tokenizer.json when the caller has parsed it already (NULL: read here). */
  const json_t *tokenizer;
  const char *const *types;
  size_t type_count;
  size_t n_vocab;
  const char *const *set_types;
  const uint32_t *set_ids;
  size_t set_count;
} vocab_special_opts;
int vocab_special_add(const char *dir, const vocab_special_opts *o, ckpt_meta **meta, size_t *count,
                      tool_error *err);

#endif /* CLEAVE_VOCAB_INTERNAL_H */
