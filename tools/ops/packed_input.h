/*
 * Packed sub-byte inputs of the operator commands (`--dtype u4 --shape [..]`): a .npy file holds
 * a 1-D uint8 array of the packed bytes (docs/operators.md section 7: elements from bit 0, the
 * unused bits of the last byte ignored), and --shape gives the logical shape the operator sees.
 * Outputs are written the same way: 1-D uint8 arrays of ceil(elements * bits / 8) bytes.
 */
#ifndef CLEAVE_CLI_PACKED_INPUT_H
#define CLEAVE_CLI_PACKED_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "npy.h"

/** A packed input: its type, its logical shape, and its data's byte count. */
typedef struct packed_input {
  cleave_type type;
  const char *type_name;  /* --dtype as written, for messages */
  const char *shape_text; /* --shape as written, for messages */
  int64_t bits;           /* per element, once packed_check_input succeeded */
  size_t rank;
  int64_t shape[NPY_MAX_RANK];
  uint64_t data_bytes; /* ceil(elements * bits / 8), once packed_check_input succeeded */
} packed_input;

/** Returns 1 when `dtype` names a packed sub-byte type (u3 and u6 included). */
int packed_dtype(cleave_dtype dtype);

/**
 * Parses `shape_text` (--shape) for a packed input of `type` (--dtype `type_name`) into `*p`.
 * The shape must be static, of rank at most NPY_MAX_RANK. Returns 0, or prints a usage error and
 * returns CLI_EXIT_USAGE.
 */
int packed_parse_shape(const char *shape_text, cleave_type type, const char *type_name,
                       packed_input *p);

/**
 * Checks, in this order, that the type is supported (u3 and u6 are not: the library's message),
 * that the file `path` of `file_size` bytes with header `h` holds a 1-D uint8 array, and that its
 * byte count is ceil(elements * bits / 8) for the logical shape (which must not overflow int64
 * in bits). Sets p->bits and p->data_bytes. Returns 0, or fills `err` naming the offending values
 * and returns CLI_EXIT_DATA.
 */
int packed_check_input(packed_input *p, const npy_header *h, uint64_t file_size, const char *path,
                       tool_error *err);

#endif /* CLEAVE_CLI_PACKED_INPUT_H */
