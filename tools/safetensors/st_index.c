/* Reading a sharded model's index file. */
#include "st_index.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_source.h"
#include "st_read.h"

void st_index_free(st_index *ix) {
  json_decref(ix->root);
  free(ix->shards);
  memset(ix, 0, sizeof *ix);
}

const char *st_index_shard_of(const st_index *ix, const char *name) {
  return json_string_value(json_object_get(ix->weight_map, name));
}

/* A weight_map file name must name a file in the index's folder. */
static int safe_shard_name(const char *name) {
  return name[0] != '\0' && strchr(name, '/') == NULL && strcmp(name, ".") != 0 &&
         strcmp(name, "..") != 0;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The document itself: its size, then JSON without duplicate keys. The text is kept in `*text`
 * (malloc'd) to find where values are, which jansson does not say. */
static int load_json(const char *path, st_index *ix, char **text, size_t *size, tool_error *err) {
  *text = NULL;
  io_source in;
  int rc = io_source_open(&in, path, NULL, err);
  if (rc != 0) {
    return rc == CLI_EXIT_NOINPUT && strstr(err->message, "': it is ") != NULL
               ? tool_fail(err, CLI_EXIT_NOINPUT, "'%s' is not a regular file", path)
               : rc;
  }
  if (in.size > (uint64_t)ST_MAX_HEADER) {
    io_source_close(&in);
    return tool_fail(err, CLI_EXIT_DATA, "%s: the index holds %llu bytes (at most %u)", path,
                     (unsigned long long)in.size, ST_MAX_HEADER);
  }
  *size = (size_t)in.size;
  *text = malloc(*size + 1);
  rc = *text == NULL ? tool_oom(err, "reading the index") : 0;
  if (rc == 0) {
    rc = io_source_read(&in, *text, *size, 0, CLI_EXIT_IOERR, err);
  }
  io_source_close(&in);
  if (rc != 0) {
    return rc;
  }
  json_error_t jerr;
  ix->root = json_loadb(*text, *size, JSON_REJECT_DUPLICATES, &jerr);
  if (ix->root == NULL) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: byte %d: invalid index JSON: %s", path, jerr.position,
                     jerr.text);
  }
  return 0;
}

/* The byte offset of the key "total_size" whose value is `value` (0 when not found). */
static uint64_t find_total_size(const char *text, size_t size, int64_t value) {
  static const char key[] = "\"total_size\"";
  for (const char *at = text; (at = memmem(at, size - (size_t)(at - text), key, sizeof key - 1));
       at++) {
    const char *c = at + sizeof key - 1, *end = text + size;
    while (c < end && (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')) {
      c++;
    }
    if (c < end && *c == ':') {
      c++;
      while (c < end && (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')) {
        c++;
      }
      char *stop = NULL;
      char number[24];
      size_t n = (size_t)(end - c) < sizeof number - 1 ? (size_t)(end - c) : sizeof number - 1;
      memcpy(number, c, n);
      number[n] = '\0';
      if (strtoll(number, &stop, 10) == value && stop != number) {
        return (uint64_t)(at - text);
      }
    }
  }
  return 0;
}

/* The weight_map and metadata objects, and total_size. */
static int read_schema(const char *path, st_index *ix, tool_error *err) {
  json_t *root = ix->root;
  ix->weight_map = json_is_object(root) ? json_object_get(root, "weight_map") : NULL;
  ix->metadata = json_is_object(root) ? json_object_get(root, "metadata") : NULL;
  ix->total_size = -1;
  if (!json_is_object(ix->weight_map)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: the index has no \"weight_map\" object", path);
  }
  if (ix->metadata != NULL && !json_is_object(ix->metadata)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: the index's \"metadata\" is not an object", path);
  }
  json_t *ts = ix->metadata != NULL ? json_object_get(ix->metadata, "total_size") : NULL;
  if (ts != NULL) {
    if (!json_is_integer(ts) || json_integer_value(ts) < 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: metadata.total_size is not an integer from 0 to 2^63-1", path);
    }
    ix->total_size = (int64_t)json_integer_value(ts);
  }
  return 0;
}

/* The distinct shard names, sorted; every entry a string naming a file of the folder. */
static int read_shards(const char *path, st_index *ix, tool_error *err) {
  size_t entries = json_object_size(ix->weight_map);
  ix->shards = calloc(entries + 1, sizeof *ix->shards);
  if (ix->shards == NULL) {
    return tool_oom(err, "reading the index");
  }
  size_t n = 0;
  const char *key;
  json_t *value;
  json_object_foreach(ix->weight_map, key, value) {
    if (!json_is_string(value)) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: weight_map['%.200s'] is not a string", path, key);
    }
    if (!safe_shard_name(json_string_value(value))) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: weight_map['%.200s'] is '%.200s': a shard must be a file in the "
                       "index's folder (no '/', '.' or '..')",
                       path, key, json_string_value(value));
    }
    ix->shards[n++] = json_string_value(value);
  }
  if (n > 1) {
    qsort(ix->shards, n, sizeof *ix->shards, name_cmp);
  }
  for (size_t i = 0; i < n; i++) {
    if (ix->shard_count == 0 || strcmp(ix->shards[ix->shard_count - 1], ix->shards[i]) != 0) {
      ix->shards[ix->shard_count++] = ix->shards[i];
    }
  }
  return 0;
}

int st_index_read(const char *path, st_index *ix, tool_error *err) {
  memset(ix, 0, sizeof *ix);
  char *text = NULL;
  size_t size = 0;
  int rc = load_json(path, ix, &text, &size, err);
  if (rc == 0) {
    rc = read_schema(path, ix, err);
  }
  if (rc == 0 && ix->total_size >= 0) {
    ix->total_size_at = find_total_size(text, size, ix->total_size);
  }
  free(text);
  if (rc == 0) {
    rc = read_shards(path, ix, err);
  }
  return rc;
}
