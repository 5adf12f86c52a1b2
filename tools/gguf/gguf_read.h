/*
 * Reading one GGUF file strictly (the rules in tools/gguf/README.md) into the checkpoint
 * layer's ckpt_file, as llama.cpp's reader (ggml/src/gguf.cpp) reads versions 2 and 3, and
 * stricter where marked there.
 *
 * A file is the magic "GGUF", a u32 version, u64 tensor and metadata counts, the metadata
 * entries (key, type, value), the tensor infos (name, dimensions ne[] innermost first, ggml type,
 * offset in the data section), padding to the alignment (general.alignment, default 32), and the
 * data section, which the tensors tile in the order of their infos, each padded to the
 * alignment. Every error names the file, the byte offset and the field.
 */
#ifndef CLEAVE_GGUF_READ_H
#define CLEAVE_GGUF_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "error.h"

/** The alignment of a file without general.alignment. */
#define GGUF_DEFAULT_ALIGNMENT 32u
/** Limits on what a header may claim, checked before anything is allocated from it. */
#define GGUF_MAX_TENSORS (1u << 20)
#define GGUF_MAX_KV (1u << 20)
/** A key's length (the format's limit), and a tensor name's (ggml's GGML_MAX_NAME - 1). */
#define GGUF_MAX_KEY 65535u
#define GGUF_MAX_NAME 63u
/** Dimensions of a tensor (ggml's GGML_MAX_DIMS), and elements of an array (llama.cpp's). */
#define GGUF_MAX_DIMS 4
#define GGUF_MAX_ARRAY (1u << 30)

/** What a GGUF file has beyond the checkpoint layer's ckpt_file. */
typedef struct gguf_info {
  uint32_t version;
  /** The data section's alignment (general.alignment, or 32). */
  uint64_t alignment;
  /** The metadata in header order: order[k] is the index in the file's (sorted) meta of the
   * k-th entry of the header (malloc'd). */
  size_t *order;
  /** By index in the file's (sorted) meta: the file offset of the entry's key, and its place in
   * the header (pos[order[k]] == k). */
  uint64_t *key_at;
  size_t *pos;
} gguf_info;

/**
 * Reads the header of the GGUF file open as `fd` (`size` bytes, named `path` in messages) into
 * `out` and `info`: metadata sorted by key (kinds GGUF_META_KIND, values as gguf_value.h says),
 * tensors in the order of their infos with absolute file offsets, shapes in NumPy order (the
 * reverse of ne[]) and `file` 0. Sets out->data_start and out->size; leaves out->path and
 * out->name to the caller. Returns 0, or CLI_EXIT_DATA / CLI_EXIT_IOERR / CLI_EXIT_SOFTWARE
 * with the message in `err`. Free both with ckpt_file_free and gguf_info_free, also after a
 * failure.
 */
int gguf_read_fd(int fd, const char *path, uint64_t size, ckpt_file *out, gguf_info *info,
                 tool_error *err);

/** Opens `path` and reads it with gguf_read_fd; sets out->path and out->name (the part after
 * the last '/'). Also returns CLI_EXIT_NOINPUT when it cannot be opened. */
int gguf_read_file(const char *path, ckpt_file *out, gguf_info *info, tool_error *err);

/** The header (everything before the data section) may not reach past this offset: what the
 * reader allocates for the metadata is bounded by it, whatever the file claims. */
#define GGUF_MAX_HEADER (128u << 20)

/** The offset of the first byte of `text[0..n)` that is not valid UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF included) or is NUL, or -1 when there is none. */
int64_t gguf_utf8_error(const unsigned char *text, size_t n);

/** Releases what `info` holds and zeroes it. */
void gguf_info_free(gguf_info *info);

#endif /* CLEAVE_GGUF_READ_H */
