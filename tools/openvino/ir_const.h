/*
 * Const layers of an IR model: their `element_type`, `shape`, `offset` and `size` attributes, and
 * their data in the .bin file (little-endian, any offset, offsets may be shared between Consts).
 * Every Const's byte range is checked against the .bin's size with overflow-checked arithmetic.
 */
#ifndef CLEAVE_IR_CONST_H
#define CLEAVE_IR_CONST_H

#include <stddef.h>
#include <stdint.h>

#include "cleave.h"
#include "ir_model.h"

/** An open .bin file. */
typedef struct ir_bin {
  int fd;
  uint64_t size;
  char *path;
} ir_bin;

/** A Const's attributes, validated. */
typedef struct ir_const {
  cleave_type type;
  int64_t bits; /* bits per element; 0 for strings */
  size_t rank;  /* never CLEAVE_RANK_DYNAMIC: a Const's shape is static */
  int64_t shape[IR_MAX_RANK];
  int64_t elements;
  uint64_t offset;
  uint64_t size; /* bytes in the .bin */
} ir_const;

/**
 * Opens the .bin: `bin_path`, or when NULL the .xml path with its ".xml" suffix replaced by
 * ".bin" (appended when there is none). Returns 0, or fills `err` and returns CLI_EXIT_NOINPUT.
 */
int ir_bin_open(const char *xml_path, const char *bin_path, ir_bin *bin, tool_error *err);

/** Closes the .bin. Safe on a zeroed one. */
void ir_bin_close(ir_bin *bin);

/**
 * Reads the attributes of Const `layer` and checks them: a known, concrete element_type (either
 * spelling), a static shape, `size` equal to the bytes the shape and type take (strings: at least
 * the 4-byte count), and, when `bin` is not NULL, offset + size within the .bin. The output port,
 * when it has dims, must declare the same shape. Returns 0 or CLI_EXIT_DATA with a message naming
 * the file, line and layer.
 */
int ir_const_info(const ir_model *model, const ir_layer *layer, const ir_bin *bin, ir_const *c,
                  tool_error *err);

/** Checks every Const layer of the model (ir_const_info on each). */
int ir_const_check_all(const ir_model *model, const ir_bin *bin, tool_error *err);

/**
 * Reads the Const's bytes into a malloc'd buffer `*data` (c->size bytes; a 1-byte buffer for
 * 0). Returns 0, or CLI_EXIT_IOERR / CLI_EXIT_SOFTWARE with `err` filled.
 */
int ir_const_read(const ir_bin *bin, const ir_const *c, void **data, tool_error *err);

#endif /* CLEAVE_IR_CONST_H */
