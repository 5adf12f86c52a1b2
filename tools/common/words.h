/*
 * A line of text split into words the way a POSIX shell splits a simple command, without any
 * expansion, for files of command-line options (`cleave st split --rules FILE`): what works on
 * the command line works there when copied as written.
 */
#ifndef CLEAVE_TOOL_WORDS_H
#define CLEAVE_TOOL_WORDS_H

#include <stddef.h>

#include "error.h"

/** The words of one line. `argv` holds `count` words and a final NULL; the words point into
 * `text`. Both are malloc'd and owned by the struct (release with words_free). */
typedef struct words {
  char **argv;
  size_t count;
  char *text;
} words;

/**
 * Splits `line` (`length` bytes, no NUL inside) into words. Blanks (space, tab, carriage return,
 * newline) separate words. Inside '...' every character is kept as it is; inside "..." too, except
 * that a backslash before ", \, $, ` or a newline keeps only that character; outside quotes a
 * backslash keeps the next character whatever it is. Quoted and unquoted pieces next to each other
 * make one word, and "" or '' is an empty word. A '#' that begins a word begins a comment to the
 * end of the line. Nothing is expanded: '*', '?', '[', '$', '~' stay as written.
 *
 * Returns 0 and fills `out`; or CLI_EXIT_USAGE with `err` naming the column (1-based) of a quote
 * that is never closed or of a backslash that ends the line; or CLI_EXIT_SOFTWARE when memory
 * runs out. On failure `out` holds nothing to free.
 */
int words_split(const char *line, size_t length, words *out, tool_error *err);

/** Releases what words_split stored (safe on a zeroed struct). */
void words_free(words *w);

#endif /* CLEAVE_TOOL_WORDS_H */
