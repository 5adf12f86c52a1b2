/* The token table, and the tokenizer's files read as hostile input (sizes bounded, errors naming
 * the file). */
#include "vocab_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

int vocab_table_init(vocab_table *t, size_t count, int with_scores, float pad_score,
                     tool_error *err) {
  memset(t, 0, sizeof *t);
  if (count > VOCAB_MAX_TOKENS) {
    return tool_fail(err, CLI_EXIT_DATA, "a vocabulary of %zu tokens (at most %u)", count,
                     VOCAB_MAX_TOKENS);
  }
  size_t n = count > 0 ? count : 1;
  t->text = calloc(n, sizeof *t->text);
  t->types = calloc(n, sizeof *t->types);
  t->scores = with_scores ? calloc(n, sizeof *t->scores) : NULL;
  if (t->text == NULL || t->types == NULL || (with_scores && t->scores == NULL)) {
    vocab_table_free(t);
    return tool_oom(err, "allocating the vocabulary");
  }
  t->count = count;
  for (size_t i = 0; i < count; i++) {
    char pad[32];
    int len = snprintf(pad, sizeof pad, "[PAD%zu]", i);
    if (vocab_table_set(t, i, pad, (size_t)len, err) != 0) {
      vocab_table_free(t);
      return err->status;
    }
    t->types[i] = VOCAB_UNUSED;
    if (with_scores) {
      t->scores[i] = pad_score;
    }
  }
  return 0;
}

int vocab_table_set(vocab_table *t, size_t id, const char *s, size_t n, tool_error *err) {
  char *copy = malloc(n + 1);
  if (copy == NULL) {
    return tool_oom(err, "allocating a token");
  }
  memcpy(copy, s, n);
  copy[n] = '\0';
  free(t->text[id]);
  t->text[id] = copy;
  return 0;
}

void vocab_table_free(vocab_table *t) {
  if (t->text != NULL) {
    for (size_t i = 0; i < t->count; i++) {
      free(t->text[i]);
    }
  }
  free(t->text);
  free(t->scores);
  free(t->types);
  memset(t, 0, sizeof *t);
}

char *vocab_path(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *p = malloc(a + b + 2);
  if (p != NULL) {
    memcpy(p, dir, a);
    size_t at = a;
    if (a > 0 && dir[a - 1] != '/') {
      p[at++] = '/';
    }
    memcpy(p + at, name, b + 1);
  }
  return p;
}

int vocab_is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int vocab_read_file(const char *path, size_t limit, char **data, size_t *size, tool_error *err) {
  int fd;
  uint64_t bytes;
  *data = NULL;
  *size = 0;
  int rc = io_open_regular(path, NULL, &fd, &bytes, err);
  if (rc != 0) {
    return rc;
  }
  if (bytes > limit) {
    close(fd);
    return tool_fail(err, CLI_EXIT_DATA, "%s: %llu bytes, more than the %zu bytes read of it", path,
                     (unsigned long long)bytes, limit);
  }
  char *buf = malloc((size_t)bytes + 1);
  if (buf == NULL) {
    close(fd);
    return tool_oom(err, path);
  }
  rc = io_read_full(fd, path, buf, (size_t)bytes, 0, CLI_EXIT_IOERR, err);
  close(fd);
  if (rc != 0) {
    free(buf);
    return rc;
  }
  buf[bytes] = '\0';
  *data = buf;
  *size = (size_t)bytes;
  return 0;
}

int vocab_read_json(const char *path, int optional, json_t **root, tool_error *err) {
  *root = NULL;
  if (optional) {
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) {
      return 0;
    }
  }
  char *text;
  size_t size;
  int rc = vocab_read_file(path, VOCAB_MAX_JSON_BYTES, &text, &size, err);
  if (rc != 0) {
    return rc;
  }
  json_error_t jerr;
  /* Python's json.load keeps the last of duplicate keys, as jansson does without
   * JSON_REJECT_DUPLICATES. */
  *root = json_loadb(text, size, 0, &jerr);
  free(text);
  if (*root == NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: not valid JSON at line %d, column %d: %s", path,
                     jerr.line, jerr.column, jerr.text);
  }
  return 0;
}

int vocab_truthy(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_TRUE:
    return 1;
  case JSON_FALSE:
  case JSON_NULL:
    return 0;
  case JSON_INTEGER:
    return json_integer_value(v) != 0;
  case JSON_REAL:
    return json_real_value(v) != 0.0;
  case JSON_STRING:
    return json_string_length(v) != 0;
  case JSON_ARRAY:
    return json_array_size(v) != 0;
  case JSON_OBJECT:
    return json_object_size(v) != 0;
  }
  return 0;
}

int vocab_utf8_ok(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    unsigned c = p[i];
    size_t len;
    uint32_t cp;
    if (c == 0) {
      return 0;
    } else if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return 0;
    }
    if (n - i < len) {
      return 0;
    }
    for (size_t k = 1; k < len; k++) {
      if ((p[i + k] & 0xc0) != 0x80) {
        return 0;
      }
      cp = cp << 6 | (p[i + k] & 0x3f);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return 0;
    }
    i += len;
  }
  return 1;
}

static int starts_ends(const char *s, const char *head, const char *tail) {
  size_t n = strlen(s), h = strlen(head), t = strlen(tail);
  /* Python's startswith and endswith may overlap: "<|>" starts with "<|" and ends with "|>". */
  return n >= h && n >= t && memcmp(s, head, h) == 0 && memcmp(s + n - t, tail, t) == 0;
}

int vocab_looks_special(const char *s) {
  static const char *const exact[] = {"<pad>", "<mask>", "<2mass>", "[@BOS@]"};
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
    if (strcmp(s, exact[i]) == 0) {
      return 1;
    }
  }
  /* "<｜" and "｜>": U+FF5C FULLWIDTH VERTICAL LINE (deepseek-coder's). */
  return starts_ends(s, "<|", "|>") || starts_ends(s, "<\xef\xbd\x9c", "\xef\xbd\x9c>") ||
         starts_ends(s, "<unused", ">");
}

int vocab_unescape_spaces(const char *s, char **out, size_t *n, tool_error *err) {
  size_t len = strlen(s);
  char *r = malloc(len + 1);
  if (r == NULL) {
    return tool_oom(err, "allocating a token");
  }
  size_t o = 0;
  for (size_t i = 0; i < len;) {
    if (len - i >= 3 && memcmp(s + i, "\xe2\x96\x81", 3) == 0) {
      r[o++] = ' ';
      i += 3;
    } else {
      r[o++] = s[i++];
    }
  }
  r[o] = '\0';
  *out = r;
  *n = o;
  return 0;
}
