/* The PREFIX of a run's outputs (outputs.h): the default one, and -o resolved against a
 * directory. Plain string work beside the output set itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "outputs.h"

char *out_default_prefix(const char *input, const char *suffix) {
  size_t len = strlen(input);
  size_t cut = strlen(suffix);
  if (len > cut && strcmp(input + len - cut, suffix) == 0) {
    len -= cut;
  }
  char *prefix = malloc(len + 1);
  if (prefix != NULL) {
    memcpy(prefix, input, len);
    prefix[len] = '\0';
  }
  return prefix;
}

char *out_resolve_prefix(const char *output, const char *input, const char *suffix) {
  if (output == NULL) {
    return out_default_prefix(input, suffix);
  }
  size_t len = strlen(output);
  int slash = len > 0 && output[len - 1] == '/';
  struct stat st;
  if (!slash && (stat(output, &st) != 0 || !S_ISDIR(st.st_mode))) {
    return strdup(output);
  }
  const char *base = strrchr(input, '/');
  char *stem = out_default_prefix(base != NULL ? base + 1 : input, suffix);
  char *prefix = NULL;
  if (stem != NULL && asprintf(&prefix, "%s%s%s", output, slash ? "" : "/", stem) < 0) {
    prefix = NULL;
  }
  free(stem);
  return prefix;
}
