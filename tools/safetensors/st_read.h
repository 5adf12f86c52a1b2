/*
 * Reading one safetensors file (the rules in tools/safetensors/README.md) into the checkpoint
 * layer's ckpt_file: strictly, except for the departures of st_lenient.h.
 *
 * A file is an 8-byte little-endian header size N, N bytes of JSON (UTF-8), then the data
 * section, which the tensors' data_offsets tile exactly. The JSON is parsed by st_json.c (a
 * strict parser of the header's schema); every error names the file, the byte offset in the file
 * and, when there is one, the tensor.
 */
#ifndef CLEAVE_ST_READ_H
#define CLEAVE_ST_READ_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"
#include "error.h"
#include "st_lenient.h"

/** The largest header the reader accepts (the reference's limit), and the largest index file. */
#define ST_MAX_HEADER 100000000u

/**
 * Parses the `size` header bytes `text` of a file named `path` whose data section holds
 * `data_size` bytes: the JSON, each tensor's size (shape x bits / 8, whole bytes, no overflow)
 * against its data_offsets, and their exact tiling of the data section. Fills `out` (its path,
 * name and size are left to the caller); tensors end in data order, their `offset` relative to
 * the data section. Departures from the canonical form are reported through st_depart with
 * `lenient` (NULL: warn) once the file is otherwise valid. Free `out` with ckpt_file_free, also
 * after a failure. Returns 0, or CLI_EXIT_DATA / CLI_EXIT_SOFTWARE with the message in `err`.
 */
int st_parse_header(const char *path, const char *text, size_t size, uint64_t data_size,
                    st_leniency *lenient, ckpt_file *out, tool_error *err);

/**
 * Opens `path`, reads and parses its header (never its data) into `out`: path set, name = the
 * part after the last '/', tensors with file offsets (their `file` is 0). Returns 0,
 * CLI_EXIT_NOINPUT (the file cannot be opened or is not a regular file), CLI_EXIT_DATA (not a
 * valid safetensors file), CLI_EXIT_IOERR or CLI_EXIT_SOFTWARE, with the message in `err`. Free
 * `out` with ckpt_file_free in either case.
 */
int st_read_file(const char *path, ckpt_file *out, tool_error *err);

/** st_read_file with the departures from the canonical form treated as `lenient` says (NULL:
 * warn; st_read_file warns). */
int st_read_file_with(const char *path, st_leniency *lenient, ckpt_file *out, tool_error *err);

#endif /* CLEAVE_ST_READ_H */
