/*
 * The globs of the checkpoint rules: '*' matches any run of characters (and captures it, for
 * names made from the match), '?' one character, everything else itself. No other character is
 * special: '[' is literal.
 */
#ifndef CLEAVE_CKPT_GLOB_H
#define CLEAVE_CKPT_GLOB_H

#include <stddef.h>

/** The most '*' a glob may hold (a glob with more matches nothing). */
#define CKPT_MAX_CAPTURES 8

/** The runs the '*'s of a glob matched, in order; they point into the matched name. */
typedef struct ckpt_match {
  int count;
  const char *start[CKPT_MAX_CAPTURES];
  size_t len[CKPT_MAX_CAPTURES];
} ckpt_match;

/** Matches `name` against `glob` (each '*' takes the shortest run that lets the rest match).
 * Returns 1 on a match (captures in `m`, which may be NULL), else 0. */
int ckpt_glob_match(const char *glob, const char *name, ckpt_match *m);

/** The number of '*' in `text`. */
int ckpt_glob_stars(const char *text);

/** Returns `pattern` with its '*'s replaced by the captures of `m`, in order, as a malloc'd
 * string (the caller frees it), or NULL when out of memory. */
char *ckpt_glob_fill(const char *pattern, const ckpt_match *m);

/** For the message of a glob that matched nothing: when `glob` holds a character that other glob
 * dialects make special ('[', ']', '{', '}', '\\'), a note (starting with "; ") saying that it is
 * an ordinary character here; otherwise "". Returns a static string. */
const char *ckpt_glob_note(const char *glob);

#endif /* CLEAVE_CKPT_GLOB_H */
