/* Globs with captures. */
#include "ckpt_glob.h"

#include <stdlib.h>
#include <string.h>

static int match_from(const char *g, const char *s, ckpt_match *m, int depth) {
  while (*g != '\0') {
    if (*g == '*') {
      if (depth >= CKPT_MAX_CAPTURES) {
        return 0;
      }
      for (size_t take = 0;; take++) {
        if (m != NULL) {
          m->start[depth] = s;
          m->len[depth] = take;
        }
        if (match_from(g + 1, s + take, m, depth + 1)) {
          return 1;
        }
        if (s[take] == '\0') {
          return 0;
        }
      }
    }
    if (*s == '\0' || (*g != '?' && *g != *s)) {
      return 0;
    }
    g++;
    s++;
  }
  if (*s != '\0') {
    return 0;
  }
  if (m != NULL) {
    m->count = depth;
  }
  return 1;
}

int ckpt_glob_match(const char *glob, const char *name, ckpt_match *m) {
  if (ckpt_glob_stars(glob) > CKPT_MAX_CAPTURES) {
    return 0;
  }
  return match_from(glob, name, m, 0);
}

int ckpt_glob_stars(const char *text) {
  int n = 0;
  for (; *text != '\0'; text++) {
    n += *text == '*';
  }
  return n;
}

char *ckpt_glob_fill(const char *pattern, const ckpt_match *m) {
  size_t n = strlen(pattern) + 1;
  for (int i = 0; i < m->count; i++) {
    n += m->len[i];
  }
  char *out = malloc(n);
  if (out == NULL) {
    return NULL;
  }
  size_t pos = 0;
  int k = 0;
  for (const char *p = pattern; *p != '\0'; p++) {
    if (*p == '*' && k < m->count) {
      memcpy(out + pos, m->start[k], m->len[k]);
      pos += m->len[k];
      k++;
    } else {
      out[pos++] = *p;
    }
  }
  out[pos] = '\0';
  return out;
}

const char *ckpt_glob_note(const char *glob) {
  /* A user of fnmatch or of the shell expects these to mean a set, a choice or an escape. */
  if (strpbrk(glob, "[]") != NULL) {
    return "; '[' and ']' are ordinary characters in cleave's globs (only '*', any run of "
           "characters, and '?', one character, are special), so '[...]' matches those "
           "characters themselves, not a set";
  }
  if (strpbrk(glob, "{}") != NULL) {
    return "; '{' and '}' are ordinary characters in cleave's globs (only '*', any run of "
           "characters, and '?', one character, are special): write one rule per alternative";
  }
  if (strchr(glob, '\\') != NULL) {
    return "; '\\' is an ordinary character in cleave's globs (only '*', any run of characters, "
           "and '?', one character, are special)";
  }
  return "";
}
