/*
 * The rules of `cleave st split` and `cleave st shard`: globs with captures, and how one tensor
 * is cut into parts (an optional view, an axis, equal parts or lengths).
 */
#ifndef CLEAVE_ST_RULES_H
#define CLEAVE_ST_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "st_header.h"

#define ST_MAX_CAPTURES 8

/** A glob match: '*' matches any run of characters (captured), '?' one character. */
typedef struct st_match {
  int count;
  const char *start[ST_MAX_CAPTURES];
  size_t len[ST_MAX_CAPTURES];
} st_match;

/** Matches `name` against `glob` (each '*' takes the shortest run that lets the rest match).
 * Returns 1 on a match (captures in `m`, which may be NULL). */
int st_glob_match(const char *glob, const char *name, st_match *m);

/** The number of '*' in `text`. */
int st_glob_stars(const char *text);

/** Writes `pattern` with its '*'s replaced by the captures of `m` to a malloc'd string. */
char *st_glob_fill(const char *pattern, const st_match *m);

/** One cut of a tensor. */
typedef struct st_cut {
  int has_view;
  int view_ndim;
  int64_t view[ST_MAX_RANK]; /* may hold one -1 */
  int64_t axis;
  int has_parts; /* -n given: Split-1 into `parts` (which the library checks) */
  int64_t parts;
  int64_t *lengths; /* -l: VariadicSplit-1's split_lengths (one may be -1), or NULL */
  int64_t length_count;
} st_cut;

/** One part of a cut tensor, in bytes of its rows. */
typedef struct st_part {
  int ndim;
  int64_t shape[ST_MAX_RANK];
  uint64_t rows, row_bytes, col, take;
} st_part;

/**
 * Cuts tensor `t` of file `file`: `*count` parts (malloc'd in `*parts`). The view is a reshape
 * (checked here); the split rule is the library's (cleave_infer of OpenVINO Split-1 for -n,
 * VariadicSplit-1 for -l, which resolves a -1 length), with its message; the byte boundaries of
 * sub-byte parts are checked here. Errors are prefixed with the file, the tensor, its dtype and
 * shape (and the view), and return the library's exit status (CLI_EXIT_DATA for a rule) with the
 * message in `err`.
 */
int st_cut_tensor(const st_cut *cut, const st_tensor *t, const char *file, st_part **parts,
                  size_t *count, st_error *err);

/** Parses "D0,D1,..." (one entry may be -1) into `cut`'s view. Returns 0 or -1. */
int st_parse_view(const char *text, st_cut *cut);

#endif /* CLEAVE_ST_RULES_H */
