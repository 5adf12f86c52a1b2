/*
 * The --json reports of every command family (docs/cli.md, "--json"): one writer of JSON on a
 * stream, on one line with ", " and ": " between members (the contract's examples), so that every
 * command escapes strings, writes numbers and shapes, and separates members the same way. Values
 * are written as they come (nothing is held in memory), which suits reports of 200,000 tensors.
 *
 * Inside an object every value takes a key; inside an array (and at the top) the key is NULL.
 * Nesting deeper than JSON_OUT_MAX_DEPTH is a programming error (the writer stops nesting).
 */
#ifndef CLEAVE_TOOL_JSON_OUT_H
#define CLEAVE_TOOL_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_OUT_MAX_DEPTH 16

typedef struct json_out {
  FILE *out;
  int depth;
  /* Per level: a member was written (the next one needs a comma). */
  unsigned char has_member[JSON_OUT_MAX_DEPTH + 1];
} json_out;

/** Starts writing one JSON value (usually an object) to `out`. */
void json_out_begin(json_out *j, FILE *out);

/** Opens an object / an array (as member `key` of the enclosing object, or NULL). */
void json_out_object(json_out *j, const char *key);
void json_out_array(json_out *j, const char *key);
/** Closes the innermost object or array. */
void json_out_close(json_out *j, char bracket);
#define json_out_end_object(j) json_out_close((j), '}')
#define json_out_end_array(j) json_out_close((j), ']')

/** A string (escaped: '"' and '\' with a backslash, control characters and DEL as \u00XX, UTF-8
 * as is), or null when `value` is NULL. */
void json_out_string(json_out *j, const char *key, const char *value);
/** Numbers. */
void json_out_int(json_out *j, const char *key, int64_t value);
void json_out_uint(json_out *j, const char *key, uint64_t value);
/** A floating-point number with `digits` significant digits (9 round-trips a float, 17 a
 * double); NaN and the infinities, which JSON cannot hold as numbers, as the strings "nan", "inf"
 * and "-inf". */
void json_out_double(json_out *j, const char *key, double value, int digits);
/** true or false. */
void json_out_bool(json_out *j, const char *key, int value);
/** A static shape as an array of integers: [6, 4, 10, 24]. */
void json_out_dims(json_out *j, const char *key, const int64_t *dims, size_t rank);

/**
 * A value known as text, as JSON of its kind: an integer in canonical decimal ("3", "-1") as a
 * number, a list of them (a static shape "[6,4]", "[]", lengths "[-1,2]") as an array of
 * integers, anything else (a partial shape "[?,4]", an interval "2..3", "?") as a string, NULL
 * as null. Lists longer than 64 stay strings.
 */
void json_out_static_or_text(json_out *j, const char *key, const char *text);

/** Ends the value with a newline and flushes. Returns 0, or CLI_EXIT_IOERR when the stream
 * failed (reported on stderr: "writing the report to stdout failed: ..."). */
int json_out_finish(json_out *j);

/** Writes `s` as a JSON string, quotes included (the escaping of json_out_string). */
void json_out_escaped(FILE *out, const char *s);

#endif /* CLEAVE_TOOL_JSON_OUT_H */
