/*
 * Building GGUF metadata values as the checkpoint layer holds them (gguf_value.h): a ckpt_meta of
 * kind GGUF_META_KIND(type) whose value is the bytes a GGUF file stores after the value's type.
 * For commands that make metadata rather than copy it (convert: the keys llama.cpp's converter
 * writes, the vocabulary).
 *
 * Every gguf_meta_put_* sets `key` in the array `*meta` of `*count` entries: an entry of that key
 * already there takes the new value in its place (as gguf-py's writer overwrites a key and keeps
 * its position); otherwise the entry is appended, growing the array with realloc. The array and
 * its keys and values are malloc'd and owned by the caller (free each key and value, then the
 * array). Returns 0, or CLI_EXIT_SOFTWARE (out of memory, or a count whose bytes overflow) with
 * `err` set; `*meta` and `*count` are then unchanged. Strings are taken as they are (the caller
 * checks UTF-8 where the input is hostile); they hold no NUL. Not thread-safe on one array.
 */
#ifndef CLEAVE_GGUF_META_BUILD_H
#define CLEAVE_GGUF_META_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "error.h"

int gguf_meta_put_u32(ckpt_meta **meta, size_t *count, const char *key, uint32_t v,
                      tool_error *err);
int gguf_meta_put_i32(ckpt_meta **meta, size_t *count, const char *key, int32_t v, tool_error *err);
int gguf_meta_put_u64(ckpt_meta **meta, size_t *count, const char *key, uint64_t v,
                      tool_error *err);
/** An f32 stored with the bits of `v` (no rounding beyond the caller's). */
int gguf_meta_put_f32(ckpt_meta **meta, size_t *count, const char *key, float v, tool_error *err);
/** A bool: 1 byte, 0 or 1 (`v` nonzero is 1). */
int gguf_meta_put_bool(ckpt_meta **meta, size_t *count, const char *key, int v, tool_error *err);
/** A string of `len` bytes at `s`. */
int gguf_meta_put_string_n(ckpt_meta **meta, size_t *count, const char *key, const char *s,
                           size_t len, tool_error *err);
/** A NUL-terminated string. */
int gguf_meta_put_string(ckpt_meta **meta, size_t *count, const char *key, const char *s,
                         tool_error *err);
/** An array of `n` strings (`lens` their lengths, or NULL when each is NUL-terminated). */
int gguf_meta_put_string_array(ckpt_meta **meta, size_t *count, const char *key,
                               const char *const *v, const size_t *lens, size_t n, tool_error *err);
/** An array of `n` f32 (the bits of each float). */
int gguf_meta_put_f32_array(ckpt_meta **meta, size_t *count, const char *key, const float *v,
                            size_t n, tool_error *err);
/** An array of `n` i32. */
int gguf_meta_put_i32_array(ckpt_meta **meta, size_t *count, const char *key, const int32_t *v,
                            size_t n, tool_error *err);

/** Sets `key` to a value of GGUF type `type` whose bytes (as gguf_value.h holds them) are the
 * `size` bytes at `bytes`; what the others are made of. */
int gguf_meta_put_raw(ckpt_meta **meta, size_t *count, const char *key, int type, const void *bytes,
                      size_t size, tool_error *err);

/** The entry of `key` in the array, or NULL. */
const ckpt_meta *gguf_meta_get(const ckpt_meta *meta, size_t count, const char *key);

/** Frees the `count` entries of `meta` and the array. */
void gguf_meta_free_all(ckpt_meta *meta, size_t count);

#endif /* CLEAVE_GGUF_META_BUILD_H */
