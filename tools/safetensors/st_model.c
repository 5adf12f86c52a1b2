/* Loading a model: a file, an index and its shards, or a folder. */
#include "st_model.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"

static const char index_suffix[] = ".safetensors.index.json";
static const char file_suffix[] = ".safetensors";

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

void st_model_free(st_model *m) {
  for (size_t i = 0; i < m->file_count; i++) {
    st_file_free(&m->files[i]);
    if (m->file_names != NULL) {
      free(m->file_names[i]);
    }
  }
  free(m->files);
  free(m->file_names);
  free(m->sorted);
  free(m->dir);
  free(m->index_path);
  free(m->index_name);
  json_decref((json_t *)m->index_metadata);
  memset(m, 0, sizeof *m);
}

const st_tensor *st_model_tensor(const st_model *m, st_ref r) {
  return &m->files[r.file].tensors[r.tensor];
}

unsigned long long st_model_bytes(const st_model *m) {
  unsigned long long total = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    for (size_t k = 0; k < m->files[i].count; k++) {
      total += st_tensor_bytes(&m->files[i].tensors[k]);
    }
  }
  return total;
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 1;
  char *p = malloc(n);
  if (p != NULL) {
    snprintf(p, n, "%s%s", dir, name);
  }
  return p;
}

/* Splits `path` into a folder (with its trailing '/') and a file name. */
static int split_path(const char *path, char **dir, char **name) {
  const char *slash = strrchr(path, '/');
  size_t d = slash != NULL ? (size_t)(slash - path) + 1 : 0;
  *dir = strndup(path, d);
  *name = strdup(path + d);
  return *dir != NULL && *name != NULL ? 0 : -1;
}

static const st_model *g_sort_model;

static int by_name(const void *a, const void *b) {
  const st_ref *x = a, *y = b;
  return strcmp(st_model_tensor(g_sort_model, *x)->name, st_model_tensor(g_sort_model, *y)->name);
}

static int sort_tensors(st_model *m, st_error *err) {
  size_t n = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    n += m->files[i].count;
  }
  m->sorted = calloc(n + 1, sizeof *m->sorted);
  if (m->sorted == NULL) {
    return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  for (size_t i = 0; i < m->file_count; i++) {
    for (size_t k = 0; k < m->files[i].count; k++) {
      m->sorted[m->tensor_count++] = (st_ref){i, k};
    }
  }
  g_sort_model = m;
  qsort(m->sorted, m->tensor_count, sizeof *m->sorted, by_name);
  return 0;
}

/* Finds a tensor by name in the sorted list; returns its position or -1. */
static long find_tensor(const st_model *m, const char *name) {
  size_t lo = 0, hi = m->tensor_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(st_model_tensor(m, m->sorted[mid])->name, name);
    if (c == 0) {
      return (long)mid;
    }
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return -1;
}

static int load_single(st_model *m, const char *path, st_error *err) {
  m->files = calloc(1, sizeof *m->files);
  m->file_names = calloc(1, sizeof *m->file_names);
  char *name = NULL;
  if (m->files == NULL || m->file_names == NULL || split_path(path, &m->dir, &name) != 0) {
    free(name);
    return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  m->file_names[0] = name;
  m->file_count = 1;
  int rc = st_file_read(path, &m->files[0], err);
  return rc != 0 ? rc : sort_tensors(m, err);
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A weight_map file name must name a file in the index's folder. */
static int safe_shard_name(const char *name) {
  return name[0] != '\0' && strchr(name, '/') == NULL && strcmp(name, ".") != 0 &&
         strcmp(name, "..") != 0;
}

static int load_index(st_model *m, const char *path, st_error *err) {
  char *name = NULL;
  if (split_path(path, &m->dir, &name) != 0 || (m->index_path = strdup(path)) == NULL) {
    free(name);
    return st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  m->index_name = name;
  struct stat st;
  if (stat(path, &st) != 0) {
    return st_fail(err, CLI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
  }
  if (st.st_size > (off_t)ST_MAX_HEADER) {
    return st_fail(err, CLI_EXIT_DATA, "%s: the index holds %lld bytes (at most %u)", path,
                   (long long)st.st_size, ST_MAX_HEADER);
  }
  json_error_t jerr;
  json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL) {
    FILE *probe = fopen(path, "rb");
    if (probe == NULL) {
      return st_fail(err, CLI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
    }
    fclose(probe);
    return st_fail(err, CLI_EXIT_DATA, "%s: byte %d: invalid index JSON: %s", path, jerr.position,
                   jerr.text);
  }
  int rc = 0;
  json_t *map = json_is_object(root) ? json_object_get(root, "weight_map") : NULL;
  json_t *meta = json_is_object(root) ? json_object_get(root, "metadata") : NULL;
  int64_t total = -1;
  if (!json_is_object(map)) {
    rc = st_fail(err, CLI_EXIT_DATA, "%s: the index has no \"weight_map\" object", path);
  } else if (meta != NULL && !json_is_object(meta)) {
    rc = st_fail(err, CLI_EXIT_DATA, "%s: the index's \"metadata\" is not an object", path);
  } else if (meta != NULL && json_object_get(meta, "total_size") != NULL) {
    json_t *ts = json_object_get(meta, "total_size");
    if (!json_is_integer(ts) || json_integer_value(ts) < 0) {
      rc = st_fail(err, CLI_EXIT_DATA, "%s: metadata.total_size is not an integer from 0 to 2^63-1",
                   path);
    } else {
      total = (int64_t)json_integer_value(ts);
    }
  }
  /* The distinct shard names, sorted. */
  size_t entries = rc == 0 ? json_object_size(map) : 0;
  char **names = calloc(entries + 1, sizeof *names);
  size_t n = 0;
  if (rc == 0 && names == NULL) {
    rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  }
  const char *key;
  json_t *value;
  if (rc == 0) {
    json_object_foreach(map, key, value) {
      if (!json_is_string(value)) {
        rc = st_fail(err, CLI_EXIT_DATA, "%s: weight_map['%.200s'] is not a string", path, key);
        break;
      }
      if (!safe_shard_name(json_string_value(value))) {
        rc = st_fail(err, CLI_EXIT_DATA,
                     "%s: weight_map['%.200s'] is '%.200s': a shard must be a file in the "
                     "index's folder (no '/', '.' or '..')",
                     path, key, json_string_value(value));
        break;
      }
      names[n++] = (char *)json_string_value(value);
    }
  }
  if (names != NULL && n > 1) {
    qsort(names, n, sizeof *names, name_cmp);
  }
  size_t distinct = 0;
  for (size_t i = 0; i < n; i++) {
    if (distinct == 0 || strcmp(names[distinct - 1], names[i]) != 0) {
      names[distinct++] = names[i];
    }
  }
  if (rc == 0) {
    m->files = calloc(distinct + 1, sizeof *m->files);
    m->file_names = calloc(distinct + 1, sizeof *m->file_names);
    if (m->files == NULL || m->file_names == NULL) {
      rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  for (size_t i = 0; i < distinct && rc == 0; i++) {
    m->file_names[i] = strdup(names[i]);
    char *shard = join(m->dir, names[i]);
    m->file_count = i + 1;
    if (m->file_names[i] == NULL || shard == NULL) {
      free(shard);
      rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
      break;
    }
    rc = st_file_read(shard, &m->files[i], err);
    if (rc == CLI_EXIT_NOINPUT) {
      /* A shard the index lists but the folder lacks makes the model invalid. */
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", err->message);
      rc = st_fail(err, CLI_EXIT_DATA, "%s: a shard the index lists is missing: %s", path, why);
    }
    free(shard);
  }
  free(names);
  if (rc == 0) {
    rc = sort_tensors(m, err);
  }
  /* Each tensor of a shard is listed, and listed in that shard; each listed tensor exists. */
  for (size_t i = 0; i < m->tensor_count && rc == 0; i++) {
    const st_ref r = m->sorted[i];
    const st_tensor *t = st_model_tensor(m, r);
    if (i > 0 && strcmp(st_model_tensor(m, m->sorted[i - 1])->name, t->name) == 0) {
      rc = st_fail(err, CLI_EXIT_DATA, "%s: tensor '%.200s' is in two shards: '%s' and '%s'", path,
                   t->name, m->file_names[m->sorted[i - 1].file], m->file_names[r.file]);
      break;
    }
    json_t *listed = json_object_get(map, t->name);
    if (listed == NULL) {
      rc = st_fail(err, CLI_EXIT_DATA,
                   "%s: byte %llu: tensor '%.200s' is not listed in the index '%s'",
                   m->files[r.file].path, (unsigned long long)t->key_pos, t->name, path);
    } else if (strcmp(json_string_value(listed), m->file_names[r.file]) != 0) {
      rc = st_fail(err, CLI_EXIT_DATA,
                   "%s: byte %llu: tensor '%.200s' is in this shard, but the index '%s' lists "
                   "it in '%s'",
                   m->files[r.file].path, (unsigned long long)t->key_pos, t->name, path,
                   json_string_value(listed));
    }
  }
  if (rc == 0) {
    json_object_foreach(map, key, value) {
      if (find_tensor(m, key) < 0) {
        rc = st_fail(err, CLI_EXIT_DATA,
                     "%s: the index lists tensor '%.200s' in '%s', which does not hold it", path,
                     key, json_string_value(value));
        break;
      }
    }
  }
  if (rc == 0 && total >= 0 && (unsigned long long)total != st_model_bytes(m)) {
    rc = st_fail(err, CLI_EXIT_DATA,
                 "%s: metadata.total_size is %lld but the shards' tensors hold %llu bytes", path,
                 (long long)total, st_model_bytes(m));
  }
  if (rc == 0 && meta != NULL) {
    json_t *copy = json_deep_copy(meta);
    if (copy == NULL) {
      rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
    } else {
      json_object_del(copy, "total_size");
      m->index_metadata = copy;
    }
  }
  json_decref(root);
  return rc;
}

/* A folder: its one index, or else its one .safetensors file. */
static int load_folder(st_model *m, const char *path, st_error *err) {
  DIR *d = opendir(path);
  if (d == NULL) {
    return st_fail(err, CLI_EXIT_NOINPUT, "cannot open the folder '%s': %s", path, strerror(errno));
  }
  char *index = NULL, *file = NULL;
  int indexes = 0, files = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') {
      continue;
    }
    if (ends_with(e->d_name, index_suffix)) {
      indexes++;
      free(index);
      index = strdup(e->d_name);
    } else if (ends_with(e->d_name, file_suffix)) {
      files++;
      free(file);
      file = strdup(e->d_name);
    }
  }
  closedir(d);
  int rc = 0;
  size_t n = strlen(path);
  char *dir = malloc(n + 2);
  if (dir != NULL) {
    snprintf(dir, n + 2, "%s%s", path, n > 0 && path[n - 1] == '/' ? "" : "/");
  }
  if (dir == NULL || (indexes > 0 && index == NULL) || (files > 0 && file == NULL)) {
    rc = st_fail(err, CLI_EXIT_SOFTWARE, "out of memory");
  } else if (indexes > 1) {
    rc = st_fail(err, CLI_EXIT_DATA, "the folder '%s' holds %d *%s files: name one", path, indexes,
                 index_suffix);
  } else if (indexes == 1) {
    char *p = join(dir, index);
    rc = p == NULL ? st_fail(err, CLI_EXIT_SOFTWARE, "out of memory") : load_index(m, p, err);
    free(p);
  } else if (files == 1) {
    char *p = join(dir, file);
    rc = p == NULL ? st_fail(err, CLI_EXIT_SOFTWARE, "out of memory") : load_single(m, p, err);
    free(p);
  } else if (files == 0) {
    rc = st_fail(err, CLI_EXIT_NOINPUT, "the folder '%s' holds no *%s file", path, file_suffix);
  } else {
    rc = st_fail(err, CLI_EXIT_DATA,
                 "the folder '%s' holds %d *%s files and no *%s: name one of them", path, files,
                 file_suffix, index_suffix);
  }
  free(dir);
  free(index);
  free(file);
  return rc;
}

int st_model_load(const char *path, st_model *m, st_error *err) {
  memset(m, 0, sizeof *m);
  struct stat st;
  if (stat(path, &st) != 0) {
    return st_fail(err, CLI_EXIT_NOINPUT, "cannot open '%s': %s", path, strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return load_folder(m, path, err);
  }
  if (ends_with(path, ".json")) {
    return load_index(m, path, err);
  }
  return load_single(m, path, err);
}
