/*
 * Showing GGUF metadata values (gguf ls --metadata): as one line of text, or as a JSON value.
 */
#ifndef CLEAVE_GGUF_PRINT_H
#define CLEAVE_GGUF_PRINT_H

#include <stdio.h>

#include "ckpt_model.h"
#include "json_out.h"

/** The entry's type as listed: "u32", "str", "arr[f32,3]". Writes into buf and returns it. */
const char *gguf_print_type(const ckpt_meta *m, char *buf, size_t size);

/** Prints the entry's value on stdout as text: integers in decimal, floats with the digits that
 * read back to the same value (%.9g, %.17g), bools as true/false, strings with control characters
 * as \xNN and backslashes doubled, arrays as [a, b, ...] (the first 8 elements, then "... (N)"). */
void gguf_print_value(const ckpt_meta *m);

/** Writes the entry's value as member `key` of JSON: integers and bools as JSON's, strings as
 * strings, floats as strings (JSON has no NaN), arrays as arrays of all their elements. */
void gguf_json_value(json_out *j, const char *key, const ckpt_meta *m);

#endif /* CLEAVE_GGUF_PRINT_H */
