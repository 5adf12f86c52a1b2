/*
 * Reading a GGUF header from a file, hostile input: one buffered reader that moves forward
 * through the file, refuses to read past its end or past the header limit, and names the file,
 * the byte offset and the field in every error ("m.gguf: byte 24: the file ends inside the key of
 * metadata entry 0 (8 bytes needed, 3 left)").
 */
#ifndef CLEAVE_GGUF_SOURCE_H
#define CLEAVE_GGUF_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** The header (everything before the data section) may not reach past this offset: what the
 * reader allocates for the metadata is bounded by it, whatever the file claims. */
#define GGUF_MAX_HEADER (128u << 20)

/** A forward reader of one file. Fields are private to gguf_source.c but for `pos` (the offset
 * of the next byte) and `size` (the file's size). */
typedef struct gguf_source {
  int fd;
  const char *path;
  uint64_t size, pos, limit;
  unsigned char *buf;
  uint64_t buf_at;
  size_t buf_len;
} gguf_source;

/** Starts reading `fd` (`size` bytes, named `path` in messages; both borrowed) at offset 0.
 * Returns 0 or CLI_EXIT_SOFTWARE (out of memory). Call gguf_source_close in either case. */
int gguf_source_open(gguf_source *s, int fd, const char *path, uint64_t size, tool_error *err);

/** Releases the buffer. */
void gguf_source_close(gguf_source *s);

/**
 * Checks that `n` more bytes can be read for `field`: within the file (else CLI_EXIT_DATA, "the
 * file ends inside FIELD") and within the header limit (else CLI_EXIT_DATA). Returns 0 or the
 * status with the message in `err`. Call it before allocating for a size read from the file.
 */
int gguf_source_need(const gguf_source *s, uint64_t n, const char *field, tool_error *err);

/** Reads the next `n` bytes into `dst` (after gguf_source_need's checks). Returns 0 or an exit
 * status (CLI_EXIT_DATA, CLI_EXIT_IOERR) with the message in `err`. */
int gguf_source_read(gguf_source *s, void *dst, uint64_t n, const char *field, tool_error *err);

/** Reads a little-endian u32 / u64. */
int gguf_source_u32(gguf_source *s, uint32_t *v, const char *field, tool_error *err);
int gguf_source_u64(gguf_source *s, uint64_t *v, const char *field, tool_error *err);

/** Records CLI_EXIT_DATA with "PATH: byte AT: " and the formatted message. */
int gguf_fail_at(tool_error *err, const gguf_source *s, uint64_t at, const char *format, ...)
    TOOL_PRINTF(4, 5);

/** The offset of the first byte of `text[0..n)` that is not valid UTF-8 (overlong forms,
 * surrogates and code points above U+10FFFF included) or is NUL, or -1 when there is none. */
int64_t gguf_utf8_error(const unsigned char *text, size_t n);

#endif /* CLEAVE_GGUF_SOURCE_H */
