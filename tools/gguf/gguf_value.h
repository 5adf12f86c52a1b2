/*
 * The metadata values of GGUF files (gguf_type): their numbers, names and sizes, and how the
 * checkpoint layer holds them. A value is kept in a ckpt_meta whose `kind` is
 * GGUF_META_KIND(type) and whose `value` holds the value's bytes as the file stores them after
 * its type: a fixed-size scalar's little-endian bytes; a string's bytes (without its length);
 * an array's element type (4 bytes), count (8 bytes) and elements (strings each with their
 * 8-byte length). The writer puts them back as they are, so values round-trip bit for bit.
 */
#ifndef CLEAVE_GGUF_VALUE_H
#define CLEAVE_GGUF_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_model.h"

/** The value types of GGUF metadata (the numbers are the format's). */
enum {
  GGUF_U8 = 0,
  GGUF_I8 = 1,
  GGUF_U16 = 2,
  GGUF_I16 = 3,
  GGUF_U32 = 4,
  GGUF_I32 = 5,
  GGUF_F32 = 6,
  GGUF_BOOL = 7,
  GGUF_STRING = 8,
  GGUF_ARRAY = 9,
  GGUF_U64 = 10,
  GGUF_I64 = 11,
  GGUF_F64 = 12,
  GGUF_TYPE_COUNT = 13
};

/** The ckpt_meta kind of a GGUF value of type `t` (formats number their kinds from 16). */
#define GGUF_META_KIND(t) (16u + (unsigned)(t))

/** The name llama.cpp gives type `t` ("u8", "str", "arr", ...), or "?" for another number. */
const char *gguf_value_type_name(int64_t t);

/** The bytes of one element of type `t`: 1 to 8 for the fixed-size types, 0 for strings and
 * arrays and for numbers that are not a type. */
unsigned gguf_value_size(int64_t t);

/** The GGUF type of metadata entry `m` (read by tools/gguf), or -1 when it is not one. */
int gguf_meta_type(const ckpt_meta *m);

/** For an array entry: its element type and count. Returns 0, or -1 when `m` is not an array. */
int gguf_meta_array(const ckpt_meta *m, int *elem_type, uint64_t *count);

/** The value of an integer scalar entry (u8 to i64; bool not included) as a signed 128-bit-safe
 * pair: `*neg` set when it is below 0, `*mag` its magnitude. Returns 0, or -1 for another type. */
int gguf_meta_integer(const ckpt_meta *m, int *neg, uint64_t *mag);

/** Reads a little-endian unsigned integer of `n` (1 to 8) bytes at `p`. */
uint64_t gguf_le(const unsigned char *p, unsigned n);

/** Writes `v` as `n` (1 to 8) little-endian bytes at `p`. */
void gguf_put_le(unsigned char *p, uint64_t v, unsigned n);

#endif /* CLEAVE_GGUF_VALUE_H */
