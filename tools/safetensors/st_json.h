/*
 * The JSON parser of safetensors headers: a strict parser of the header's one schema (an object
 * of tensor entries and an optional __metadata__ object of strings), written for the format
 * because a general tree costs too much on large headers. Measured with jansson 2.14 on an
 * 84 MB header of 1.2 million tensors: 1.4 GB peak memory and 11.7 s; this parser stores only
 * the tensors (about 100 bytes each beside the header text) and reports the exact byte of every
 * error. It is fuzzed by fuzz/fuzz_safetensors.c.
 *
 * Accepted JSON: RFC 8259 with these restrictions: no duplicate keys (in any object), no
 * \u0000 and no raw control characters in strings, valid UTF-8 only (no overlong forms,
 * surrogates or code points above U+10FFFF, escaped surrogates only in pairs), numbers that are
 * plain integers from 0 to 2^63-1, and nothing after the closing '}' but space padding.
 */
#ifndef CLEAVE_ST_JSON_H
#define CLEAVE_ST_JSON_H

#include <stddef.h>

#include "ckpt_model.h"
#include "error.h"

/**
 * Parses the `size` header bytes `text` of file `path` into out->tensors, in header order, each
 * with its name, dtype, shape (at most CKPT_MAX_RANK dimensions), entry_pos (the file offset of
 * its key) and, as they are in the header, its data offsets relative to the data section:
 * `offset` = begin and `bytes` = end - begin (begin <= end); and into out->meta (sorted by key)
 * and out->has_meta. Returns 0, or CLI_EXIT_DATA / CLI_EXIT_SOFTWARE with the message in `err`
 * ("PATH: byte N: ..."). What it filled is freed by ckpt_file_free, also after a failure.
 */
int st_json_header(const char *path, const char *text, size_t size, ckpt_file *out,
                   tool_error *err);

#endif /* CLEAVE_ST_JSON_H */
