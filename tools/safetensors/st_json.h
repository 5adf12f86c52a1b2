/*
 * The JSON parser of safetensors headers: a strict parser of the header's one schema (an object
 * of tensor entries and an optional __metadata__ object of strings), written for the format
 * because a general tree costs too much on large headers. Measured with jansson 2.14 on an
 * 84 MB header of 1.2 million tensors: 1.4 GB peak memory and 11.7 s; this parser stores only
 * the tensors (about 100 bytes each beside the header text) and reports the exact byte of every
 * error. It is fuzzed by fuzz/fuzz_safetensors.c.
 *
 * Accepted JSON: RFC 8259 with these restrictions: no duplicate keys (in the header, its
 * __metadata__ and the known fields of a tensor entry), no \u0000 and no raw control characters in
 * strings, valid UTF-8 only (no overlong forms, surrogates or code points above U+10FFFF, escaped
 * surrogates only in pairs), numbers that are plain integers from 0 to 2^63-1 (in the known
 * fields), and nothing after the closing '}' but padding. Departures the reference reader accepts
 * (st_lenient.h) go through st_depart: whitespace before the '{', padding of NUL bytes or other
 * JSON whitespace, and unknown fields in a tensor entry, whose values must still be valid JSON
 * (they are skipped, nested at most 64 deep).
 */
#ifndef CLEAVE_ST_JSON_H
#define CLEAVE_ST_JSON_H

#include <stddef.h>

#include "ckpt_model.h"
#include "error.h"
#include "st_lenient.h"

/** The departures of one header that the parser accepted (offsets in the header text). */
typedef struct st_header_notes {
  size_t leading;    /* whitespace bytes before the '{' */
  int padding_nul;   /* the padding after the '}' holds NUL bytes */
  int padding_ws;    /* ... or tabs, carriage returns or newlines */
  size_t padding_at; /* where the padding starts */
  size_t unknown;    /* unknown fields in tensor entries */
  size_t unknown_at; /* the first one's key */
  char unknown_field[64];
  char unknown_tensor[160];
} st_header_notes;

/**
 * Parses the `size` header bytes `text` of file `path` into out->tensors, in header order, each
 * with its name, dtype, shape (at most CKPT_MAX_RANK dimensions), entry_pos (the file offset of
 * its key) and, as they are in the header, its data offsets relative to the data section:
 * `offset` = begin and `bytes` = end - begin (begin <= end); and into out->meta (sorted by key)
 * and out->has_meta; the departures it accepted into `notes`. Returns 0, or CLI_EXIT_DATA /
 * CLI_EXIT_SOFTWARE with the message in `err` ("PATH: byte N: ..."). What it filled is freed by
 * ckpt_file_free, also after a failure.
 */
int st_json_header(const char *path, const char *text, size_t size, ckpt_file *out,
                   st_header_notes *notes, tool_error *err);

/**
 * Reports the departures in `notes` of the header of file `path` through st_depart (one report
 * for the leading whitespace, one for the padding, one for every unknown field of the header,
 * naming the first): call it once the file is known to be valid otherwise. Returns 0, or
 * CLI_EXIT_DATA when `lenient` is strict.
 */
int st_json_report_notes(const char *path, const st_header_notes *notes, st_leniency *lenient,
                         tool_error *err);

#endif /* CLEAVE_ST_JSON_H */
