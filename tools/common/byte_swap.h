/*
 * Byte order: swapping the bytes of each unit of a buffer, for data read in one byte order and
 * written in the other (a join of .npy files that differ in byte order only).
 */
#ifndef CLEAVE_CLI_BYTE_SWAP_H
#define CLEAVE_CLI_BYTE_SWAP_H

#include <stddef.h>

/** Reverses the bytes of each `unit`-byte unit of buf[0..size) (a trailing part shorter than a
 * unit is left as it is; units of 0 or 1 byte leave the buffer unchanged). */
void byte_swap_units(unsigned char *buf, size_t size, size_t unit);

#endif /* CLEAVE_CLI_BYTE_SWAP_H */
