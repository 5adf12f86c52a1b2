/*
 * A small, strict reader and writer for the NumPy .npy format (versions 1.0, 2.0, 3.0).
 *
 * Reading accepts what numpy.save writes for every byte-sized dtype (and equivalent spellings:
 * either quote style, any whitespace, Python 2 "L" suffixes), and rejects everything else with a
 * message: object arrays, structured dtypes, datetimes, a shape or header length that does not
 * fit the file, non-ASCII bytes in a 1.0/2.0 header, invalid UTF-8 in a 3.0 header. Nothing is
 * allocated from a length read from the file before that length is checked against the file.
 *
 * Writing produces version 1.0 (2.0 when the header does not fit in 65535 bytes), padded with
 * spaces and a final newline so that the data starts at a multiple of 64 bytes.
 */
#ifndef CLEAVE_CLI_NPY_H
#define CLEAVE_CLI_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "error.h"

/** Largest rank the reader accepts (NumPy 2's limit). */
#define NPY_MAX_RANK 64
/** Largest header the reader accepts, in bytes; NumPy never writes one this large. */
#define NPY_MAX_HEADER_BYTES (1u << 20)
/** Capacity of npy_header.descr, terminating NUL included. */
#define NPY_DESCR_SIZE 48

/** What the header of a .npy file says. */
typedef struct npy_header {
  int major;
  int minor;
  /** The dtype descr exactly as written, e.g. "<f4", ">i8", "|S5", "<U3". */
  char descr[NPY_DESCR_SIZE];
  int fortran_order;
  size_t rank;
  int64_t shape[NPY_MAX_RANK];
  /** Offset of the first data byte: preamble plus header length. */
  uint64_t data_offset;
} npy_header;

/** A descr mapped to a cleave type. */
typedef struct npy_dtype {
  cleave_type type;
  /** Bytes per element. */
  int64_t item_size;
} npy_dtype;

/**
 * Parses the bytes at the start of a .npy file: the magic string, the version and the header
 * length. `bytes` holds `size` bytes (at least 12, or the whole file when shorter). On success
 * stores the version, the header length and the preamble length (10 or 12) and returns 0. On
 * failure writes a message to `msg` and returns CLI_EXIT_DATA.
 */
int npy_parse_preamble(const unsigned char *bytes, size_t size, int *major, int *minor,
                       uint64_t *header_len, size_t *preamble_len, char *msg, size_t msg_size);

/**
 * Parses the header dictionary text[0..len) of a file of format version `major` into `h`
 * (descr, fortran_order, shape). On failure writes a message to `msg` and returns CLI_EXIT_DATA.
 */
int npy_parse_dict(const char *text, size_t len, int major, npy_header *h, char *msg,
                   size_t msg_size);

/**
 * Reads and validates the header of the open regular file `fd` of `file_size` bytes into `h`.
 * Returns 0, or fills `err` ("'<path>' is not a valid .npy file: ...") and returns CLI_EXIT_DATA
 * (CLI_EXIT_IOERR when a read fails, CLI_EXIT_SOFTWARE when out of memory).
 */
int npy_read_header(int fd, uint64_t file_size, const char *path, npy_header *h, tool_error *err);

/**
 * Computes the size of the data `h` announces for elements of `item_size` bytes into `*bytes`
 * and checks that it fits in the file. A size that overflows int64, or data shorter than that,
 * fills `err` naming `path` and returns CLI_EXIT_DATA; returns 0 on success. Trailing bytes
 * after the data are allowed (numpy.load ignores them too).
 */
int npy_check_data_size(const npy_header *h, int64_t item_size, uint64_t file_size,
                        const char *path, uint64_t *bytes, tool_error *err);

/**
 * Reads the `bytes` data bytes of the file (as npy_check_data_size measured them) into a malloc'd
 * buffer `*data` that the caller frees (a 1-byte buffer for 0). Returns 0, or fills `err` and
 * returns CLI_EXIT_IOERR (a read failed, or the file shrank) or CLI_EXIT_SOFTWARE.
 */
int npy_read_data(int fd, const char *path, const npy_header *h, uint64_t bytes, void **data,
                  tool_error *err);

/**
 * Maps a descr to a cleave type. `forced` is the --dtype given by the user, or NULL: it must be
 * the file's own type, or give the meaning of raw "V<n>" data (bf16 for V2 as saved by
 * ml_dtypes, an 8-bit float for V1, or any other fixed-size type of n bytes). Unsupported descrs
 * (objects, structured, datetimes, long double, ...) fill `err` naming `path` and the descr and
 * return CLI_EXIT_DATA; returns 0 on success.
 */
int npy_descr_to_dtype(const char *descr, const cleave_type *forced, const char *path,
                       npy_dtype *out, tool_error *err);

/**
 * Writes the little-endian descr of `type` to buf ("<f4", "|i1", "<c16"; "|V2" for bfloat16 and
 * "|V1" for the 8-bit floats, raw elements as ml_dtypes saves them). Returns 0, or -1 when .npy
 * has no element for the type (strings of cleave_string handles, packed sub-byte types).
 */
int npy_descr_for(cleave_type type, char *buf, size_t size);

/**
 * Builds a complete header (magic, version, length, dictionary, padding to 64 bytes) for an
 * array of `descr`, `fortran_order` and shape[0..rank), in a malloc'd buffer stored in `*bytes`
 * with its length in `*size`. Returns 0, or fills `err` and returns CLI_EXIT_SOFTWARE when out of
 * memory.
 */
int npy_build_header(const char *descr, int fortran_order, const int64_t *shape, size_t rank,
                     unsigned char **bytes, size_t *size, tool_error *err);

#endif /* CLEAVE_CLI_NPY_H */
