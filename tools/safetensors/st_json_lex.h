/*
 * The lexical layer of the safetensors header parser (st_json.c holds the schema): a cursor over
 * the header text, and the tokens of JSON read from it, each failure recorded in the parser's
 * tool_error as "PATH: byte N: [tensor 'NAME': ]WHAT" with N the offset in the file. Internal to
 * tools/safetensors.
 */
#ifndef CLEAVE_ST_JSON_LEX_H
#define CLEAVE_ST_JSON_LEX_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "st_json.h"

/** The cursor: the header text s[0..n), the position i, and where failures and notes go. */
typedef struct stj_parser {
  const unsigned char *s;
  size_t n, i;
  const char *path;
  tool_error *err;
  const char *tensor;     /* the entry being read, for messages, or NULL */
  st_header_notes *notes; /* the departures accepted */
} stj_parser;

/** Values nested deeper than this in an unknown field are refused (the parser recurses). */
#define SKIP_MAX_DEPTH 64

/** Records "PATH: byte (8 + at): [tensor 'T': ]MESSAGE" with CLI_EXIT_DATA; returns it. */
int stj_fail_at(stj_parser *p, size_t at, const char *format, ...) TOOL_PRINTF(3, 4);

/** Records running out of memory (CLI_EXIT_SOFTWARE); returns it. */
int stj_oom(stj_parser *p);

/** Skips JSON whitespace (space, tab, newline, carriage return). */
void stj_ws(stj_parser *p);

/** The byte at the cursor, or -1 at the end. */
int stj_peek(stj_parser *p);

/** Skips whitespace, then requires the byte `c` (`what` names it in the message). Returns 0 or
 * the failure's status. */
int stj_expect(stj_parser *p, char c, const char *what);

/** What a value starting with byte `c` is, for messages ("a string", "a number", ...). */
const char *stj_kind_of(int c);

/** Reads a string (valid UTF-8, no NUL, no raw control character, escaped surrogates paired)
 * into a malloc'd, NUL-terminated `*out` (the caller frees it). `what` names it in messages.
 * Returns 0 or the failure's status. */
int stj_string(stj_parser *p, char **out, const char *what);

/** Reads a number that must be a plain integer from 0 to 2^63-1. */
int stj_uint(stj_parser *p, int64_t *out, const char *what);

/** Reads ',' (returns 1: more items) or `close` (returns 0), or fails (returns a status > 1). */
int stj_next_item(stj_parser *p, char close, const char *in);

/** Reads an array of at most `max` plain integers into `values`, their number into `*count`. */
int stj_int_array(stj_parser *p, int64_t *values, int max, int *count, const char *what);

/** Skips one JSON value of any kind, checked as a JSON parser checks it (strings as
 * stj_string; numbers by RFC 8259's grammar; nesting at most SKIP_MAX_DEPTH). */
int stj_skip_value(stj_parser *p, int depth);

#endif /* CLEAVE_ST_JSON_LEX_H */
