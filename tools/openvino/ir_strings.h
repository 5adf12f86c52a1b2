/*
 * OpenVINO's packed string layout, as string Consts hold it in the .bin and as ir-run reads and
 * writes string tensors: an int32 count N, then (when N > 0) N + 1 int32 offsets, then the bytes;
 * string i is bytes [offsets[i], offsets[i+1]) of the region after the offsets. Little-endian.
 */
#ifndef CLEAVE_IR_STRINGS_H
#define CLEAVE_IR_STRINGS_H

#include <stdint.h>

#include "cleave.h"
#include "error.h"

/**
 * Unpacks the `size` bytes at `data` into `expected` cleave_string handles `out`, which point
 * into `data` (it must outlive them). Returns 0, or CLI_EXIT_DATA with the reason: a count other
 * than `expected`, offsets that do not fit or lie outside the bytes (`label` names the layer,
 * `path` the file).
 */
int ir_strings_unpack(const unsigned char *data, uint64_t size, int64_t expected,
                      cleave_string *out, const char *label, const char *path, tool_error *err);

/**
 * Packs `count` strings into a malloc'd buffer `*bytes` of `*size` bytes (the caller frees it).
 * Returns 0; CLI_EXIT_DATA when they do not fit the layout's int32 offsets; CLI_EXIT_SOFTWARE
 * when out of memory.
 */
int ir_strings_pack(const cleave_string *strings, uint64_t count, unsigned char **bytes,
                    uint64_t *size, tool_error *err);

#endif /* CLEAVE_IR_STRINGS_H */
