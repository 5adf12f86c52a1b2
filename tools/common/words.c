/* Shell-like word splitting without expansions. */
#include "words.h"

#include <stdlib.h>
#include <string.h>

static int blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int words_split(const char *line, size_t length, words *out, tool_error *err) {
  memset(out, 0, sizeof *out);
  /* Every word is at most its source bytes plus a NUL, and there are at most length/2 + 1. */
  char *text = malloc(length + length / 2 + 2);
  char **argv = malloc((length / 2 + 2) * sizeof *argv);
  if (text == NULL || argv == NULL) {
    free(text);
    free(argv);
    return tool_oom(err, "splitting a line into words");
  }
  size_t count = 0, pos = 0, i = 0;
  while (i < length) {
    if (blank(line[i])) {
      i++;
      continue;
    }
    if (line[i] == '#') {
      break;
    }
    argv[count++] = text + pos;
    /* One word: up to an unquoted blank. */
    while (i < length && !blank(line[i])) {
      char c = line[i];
      size_t open = i;
      if (c == '\'') {
        for (i++; i < length && line[i] != '\''; i++) {
          text[pos++] = line[i];
        }
      } else if (c == '"') {
        for (i++; i < length && line[i] != '"'; i++) {
          if (line[i] == '\\' && i + 1 < length && strchr("\"\\$`\n", line[i + 1]) != NULL) {
            i++;
          }
          text[pos++] = line[i];
        }
      } else if (c == '\\') {
        if (i + 1 == length || (line[i + 1] == '\n' && i + 2 == length)) {
          free(text);
          free(argv);
          return tool_fail(err, CLI_EXIT_USAGE,
                           "column %zu: a backslash ends the line (a line continuation is not "
                           "supported: write the whole rule on one line)",
                           i + 1);
        }
        text[pos++] = line[i + 1];
        i += 2;
        continue;
      } else {
        text[pos++] = c;
        i++;
        continue;
      }
      if (i == length) {
        free(text);
        free(argv);
        return tool_fail(err, CLI_EXIT_USAGE, "column %zu: the %s quote opened here is not closed",
                         open + 1, c == '\'' ? "single" : "double");
      }
      i++; /* the closing quote */
    }
    text[pos++] = '\0';
  }
  argv[count] = NULL;
  out->argv = argv;
  out->count = count;
  out->text = text;
  return 0;
}

void words_free(words *w) {
  free(w->argv);
  free(w->text);
  memset(w, 0, sizeof *w);
}
