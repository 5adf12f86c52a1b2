/*
 * The strict safetensors header reader (rules in tools/safetensors/README.md).
 *
 * A file is an 8-byte little-endian header size N, N bytes of JSON (UTF-8), then the data
 * section, which the tensors' data_offsets tile exactly. The JSON is parsed by st_json.c (a
 * strict parser of the header's schema); every error names the file, the byte offset in the file
 * and, when there is one, the tensor.
 */
#ifndef CLEAVE_ST_HEADER_H
#define CLEAVE_ST_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "st_dtype.h"

/** The largest header the reader accepts (the reference's limit). */
#define ST_MAX_HEADER 100000000u
/** The largest rank the reader accepts (stricter than the reference, which has none). */
#define ST_MAX_RANK 64

/** An error: an exit status (CLI_EXIT_*) and its message (without "cleave: error: "). */
typedef struct st_error {
  int status;
  char message[1024];
} st_error;

/** Formats `err` and returns `status`. */
int st_fail(st_error *err, int status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/** One tensor of a file. */
typedef struct st_tensor {
  char *name;
  const st_dtype *dtype;
  int ndim;
  int64_t *shape; /* ndim entries (malloc'd; NULL when ndim is 0) */
  /** Offsets relative to the data section, begin <= end. */
  uint64_t begin, end;
  /** The file offset of the tensor's key in the header, for messages. */
  uint64_t key_pos;
} st_tensor;

/** One entry of __metadata__. */
typedef struct st_meta {
  char *key;
  char *value;
} st_meta;

/** A parsed file: its tensors in data order and its metadata sorted by key. */
typedef struct st_file {
  char *path;
  uint64_t header_size; /* N: the data section starts at 8 + N */
  uint64_t file_size;
  size_t count;
  st_tensor *tensors;
  int has_meta;
  size_t meta_count;
  st_meta *meta;
} st_file;

/**
 * Parses the `size` header bytes `text` of a file named `path` whose data section holds
 * `data_size` bytes. Fills `out` (free it with st_file_free, also after a failure). Returns 0,
 * or CLI_EXIT_DATA / CLI_EXIT_SOFTWARE with the message in `err`.
 */
int st_header_parse(const char *path, const char *text, size_t size, uint64_t data_size,
                    st_file *out, st_error *err);

/**
 * Opens `path`, reads and parses its header (never its data). Returns 0, CLI_EXIT_NOINPUT (the
 * file cannot be opened), CLI_EXIT_DATA (not a valid safetensors file), CLI_EXIT_IOERR or
 * CLI_EXIT_SOFTWARE, with the message in `err`.
 */
int st_file_read(const char *path, st_file *out, st_error *err);

/** Releases what `f` holds (safe on a zeroed or partly filled st_file). */
void st_file_free(st_file *f);

/** Bytes of a tensor: elements x bits / 8 (the reader checked it is exact and fits). */
uint64_t st_tensor_bytes(const st_tensor *t);

/** Writes "[d0,d1,...]" to buf. */
void st_shape_text(const int64_t *shape, int ndim, char *buf, size_t size);

#endif /* CLEAVE_ST_HEADER_H */
