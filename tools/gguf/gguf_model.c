/* Loading a GGUF model: one file, or the files of a split set checked against each other. */
#include "gguf_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gguf_value.h"

void gguf_model_free(gguf_model *m) {
  for (size_t i = 0; m->info != NULL && i < m->ckpt.file_count; i++) {
    gguf_info_free(&m->info[i]);
  }
  free(m->info);
  free(m->base);
  ckpt_model_free(&m->ckpt);
  memset(m, 0, sizeof *m);
}

const ckpt_meta *gguf_meta_lookup(const ckpt_meta *meta, size_t count, const char *key) {
  for (size_t i = 0; i < count; i++) {
    if (strcmp(meta[i].key, key) == 0) {
      return &meta[i];
    }
  }
  return NULL;
}

void gguf_split_name(const char *base, size_t no, size_t count, char *buf, size_t size) {
  snprintf(buf, size, "%s-%05zu-of-%05zu.gguf", base, no + 1, count);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The split keys of file `f`: all three with their types (u16, u16, i32), or none. `*count` 0:
 * not part of a set. */
static int split_keys(const ckpt_file *f, const gguf_info *info, uint64_t *no, uint64_t *count,
                      uint64_t *tensors, tool_error *err) {
  static const struct {
    const char *key;
    int type;
  } keys[] = {
      {GGUF_SPLIT_NO, GGUF_U16}, {GGUF_SPLIT_COUNT, GGUF_U16}, {GGUF_SPLIT_TENSORS, GGUF_I32}};
  uint64_t *out[] = {no, count, tensors};
  int found = 0;
  for (int k = 0; k < 3; k++) {
    const ckpt_meta *e = gguf_meta_lookup(f->meta, f->meta_count, keys[k].key);
    *out[k] = 0;
    if (e == NULL) {
      continue;
    }
    found++;
    uint64_t at = info->key_at[e - f->meta];
    if (gguf_meta_type(e) != keys[k].type) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: byte %llu: %s is of type %s, not %s", f->path,
                       (unsigned long long)at, keys[k].key, gguf_value_type_name(gguf_meta_type(e)),
                       gguf_value_type_name(keys[k].type));
    }
    uint64_t v = gguf_le((const unsigned char *)e->value, gguf_value_size(keys[k].type));
    if (keys[k].type == GGUF_I32 && v > INT32_MAX) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: byte %llu: %s is %d, negative", f->path,
                       (unsigned long long)at, keys[k].key, (int)(int32_t)(uint32_t)v);
    }
    *out[k] = v;
  }
  if (found != 0 && found != 3) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: a split set's file has all of %s, %s and %s, not %d of them", f->path,
                     GGUF_SPLIT_NO, GGUF_SPLIT_COUNT, GGUF_SPLIT_TENSORS, found);
  }
  if (found == 3 && (*count == 0 || *no >= *count)) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s is %llu and %s %llu: not a part of the set",
                     f->path, GGUF_SPLIT_NO, (unsigned long long)*no, GGUF_SPLIT_COUNT,
                     (unsigned long long)*count);
  }
  return 0;
}

/* Removes the split keys from file i's metadata (the writer adds them back to a set's files). */
static void strip_split_keys(ckpt_file *f, gguf_info *info) {
  size_t n = f->meta_count;
  for (size_t i = n; i-- > 0;) {
    const char *key = f->meta[i].key;
    if (strcmp(key, GGUF_SPLIT_NO) != 0 && strcmp(key, GGUF_SPLIT_COUNT) != 0 &&
        strcmp(key, GGUF_SPLIT_TENSORS) != 0) {
      continue;
    }
    free(f->meta[i].key);
    free(f->meta[i].value);
    memmove(&f->meta[i], &f->meta[i + 1], (n - i - 1) * sizeof *f->meta);
    memmove(&info->key_at[i], &info->key_at[i + 1], (n - i - 1) * sizeof *info->key_at);
    size_t removed_pos = info->pos[i];
    memmove(&info->pos[i], &info->pos[i + 1], (n - i - 1) * sizeof *info->pos);
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
      if (info->order[j] != i) {
        info->order[k++] = info->order[j] > i ? info->order[j] - 1 : info->order[j];
      }
    }
    n--;
    for (size_t j = 0; j < n; j++) {
      info->pos[j] -= info->pos[j] > removed_pos;
    }
  }
  f->meta_count = n;
}

static int grow_files(gguf_model *m, size_t count, tool_error *err) {
  m->ckpt.files = calloc(count + 1, sizeof *m->ckpt.files);
  m->info = calloc(count + 1, sizeof *m->info);
  return m->ckpt.files == NULL || m->info == NULL ? tool_oom(err, "loading the model") : 0;
}

/* The folder of `path` (with its '/') and the base name of its file without `suffix`. */
static int set_names(gguf_model *m, const char *path, size_t suffix, tool_error *err) {
  const char *slash = strrchr(path, '/');
  const char *name = slash != NULL ? slash + 1 : path;
  m->ckpt.dir = strndup(path, (size_t)(name - path));
  size_t n = strlen(name);
  m->base = strndup(name, n > suffix ? n - suffix : n);
  return m->ckpt.dir == NULL || m->base == NULL ? tool_oom(err, "loading the model") : 0;
}

/* Checks the set's files (in the order of their split.no) against each other, strips their split
 * keys, numbers their tensors and sorts them by name; no name twice in the set. */
static int finish_set(gguf_model *m, tool_error *err) {
  ckpt_model *c = &m->ckpt;
  uint64_t total = 0;
  for (size_t i = 0; i < c->file_count; i++) {
    total += c->files[i].tensor_count;
  }
  for (size_t i = 0; i < c->file_count && m->is_set; i++) {
    uint64_t no, count, tensors;
    int rc = split_keys(&c->files[i], &m->info[i], &no, &count, &tensors, err);
    if (rc != 0) {
      return rc;
    }
    if (count == 0) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: not part of a split set (no %s)", c->files[i].path,
                       GGUF_SPLIT_COUNT);
    }
    if (no != i || count != c->file_count) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: %s %llu of %s %llu, but it is file %zu of a set of %zu",
                       c->files[i].path, GGUF_SPLIT_NO, (unsigned long long)no, GGUF_SPLIT_COUNT,
                       (unsigned long long)count, i, c->file_count);
    }
    if (tensors != total) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: %s is %llu but the set's files hold %llu %s",
                       c->files[i].path, GGUF_SPLIT_TENSORS, (unsigned long long)tensors,
                       (unsigned long long)total, tool_plural(total, "tensor", "tensors"));
    }
  }
  for (size_t i = 0; i < c->file_count; i++) {
    if (m->is_set) {
      strip_split_keys(&c->files[i], &m->info[i]);
    }
    for (size_t k = 0; k < c->files[i].tensor_count; k++) {
      c->files[i].tensors[k].file = i;
    }
  }
  int rc = ckpt_model_sort(c, err);
  for (size_t i = 1; i < c->tensor_count && rc == 0; i++) {
    const ckpt_tensor *a = c->by_name[i - 1], *b = c->by_name[i];
    if (strcmp(a->name, b->name) == 0) {
      rc = tool_fail(err, CLI_EXIT_DATA, "tensor '%s' is in both %s and %s", a->name,
                     c->files[a->file].path, c->files[b->file].path);
    }
  }
  return rc;
}

int gguf_model_load(const char *path, gguf_model *m, tool_error *err) {
  memset(m, 0, sizeof *m);
  ckpt_file first;
  gguf_info info;
  int rc = gguf_read_file(path, &first, &info, err);
  uint64_t no = 0, count = 0, tensors = 0;
  if (rc == 0) {
    rc = split_keys(&first, &info, &no, &count, &tensors, err);
  }
  if (rc == 0 && no != 0) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s is file %llu of a split set of %llu: give the first file of the set", path,
                   (unsigned long long)no + 1, (unsigned long long)count);
  }
  char suffix[64];
  snprintf(suffix, sizeof suffix, "-00001-of-%05llu.gguf", (unsigned long long)count);
  if (rc == 0 && count > 1 && !ends_with(path, suffix)) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s is the first of a split set of %llu files but its name does not end with "
                   "'%s', so the others cannot be found: name them all (gguf merge PART...)",
                   path, (unsigned long long)count, suffix);
  }
  size_t files = count > 1 ? (size_t)count : 1;
  if (rc == 0) {
    rc = grow_files(m, files, err);
  }
  if (rc != 0) {
    ckpt_file_free(&first);
    gguf_info_free(&info);
    return rc;
  }
  m->is_set = count > 0;
  m->ckpt.files[0] = first;
  m->info[0] = info;
  m->ckpt.file_count = 1;
  rc = set_names(m, path, count > 1 ? strlen(suffix) : ends_with(path, ".gguf") ? 5 : 0, err);
  size_t prefix_len = strlen(path) - (count > 1 ? strlen(suffix) : 0);
  for (size_t i = 1; i < files && rc == 0; i++) {
    char name[4096];
    int n = snprintf(name, sizeof name, "%.*s-%05zu-of-%05zu.gguf", (int)prefix_len, path, i + 1,
                     files);
    m->ckpt.file_count = i + 1;
    rc = n < 0 || (size_t)n >= sizeof name
             ? tool_fail(err, CLI_EXIT_NOINPUT, "path too long")
             : gguf_read_file(name, &m->ckpt.files[i], &m->info[i], err);
    struct stat st;
    if (rc == CLI_EXIT_NOINPUT) {
      /* Missing or unreadable, a part that cannot be opened is 66, as any file. */
      tool_prefix(err, "%s: file %zu of its split set of %zu%s", path, i + 1, files,
                  stat(name, &st) != 0 && errno == ENOENT ? " is missing" : "");
    }
  }
  return rc == 0 ? finish_set(m, err) : rc;
}

static int by_split_no(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int gguf_model_load_parts(char *const *paths, size_t count, gguf_model *m, tool_error *err) {
  if (count == 1) {
    int rc = gguf_model_load(paths[0], m, err);
    if (rc == 0 && !m->is_set) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s is not part of a split set (it has no %s)", paths[0],
                     GGUF_SPLIT_COUNT);
    }
    return rc;
  }
  memset(m, 0, sizeof *m);
  int rc = grow_files(m, count, err);
  /* Read in the given order, then put in the order of split.no. */
  uint64_t(*keyed)[2] = rc == 0 ? calloc(count + 1, sizeof *keyed) : NULL;
  if (rc == 0 && keyed == NULL) {
    rc = tool_oom(err, "loading the model");
  }
  for (size_t i = 0; i < count && rc == 0; i++) {
    m->ckpt.file_count = i + 1;
    rc = gguf_read_file(paths[i], &m->ckpt.files[i], &m->info[i], err);
    uint64_t no = 0, n = 0, tensors = 0;
    if (rc == 0) {
      rc = split_keys(&m->ckpt.files[i], &m->info[i], &no, &n, &tensors, err);
    }
    if (rc == 0 && n == 0) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s is not part of a split set (it has no %s)", paths[i],
                     GGUF_SPLIT_COUNT);
    }
    for (size_t k = 0; k < i && rc == 0; k++) {
      if (keyed[k][0] == no) {
        rc = tool_fail(err, CLI_EXIT_DATA, "%s and %s are both file %llu of the set", paths[k],
                       paths[i], (unsigned long long)no + 1);
      }
    }
    keyed[i][0] = no;
    keyed[i][1] = i;
  }
  if (rc == 0) {
    qsort(keyed, count, sizeof *keyed, by_split_no);
    ckpt_file *files = calloc(count + 1, sizeof *files);
    gguf_info *infos = calloc(count + 1, sizeof *infos);
    if (files == NULL || infos == NULL) {
      free(files);
      free(infos);
      rc = tool_oom(err, "loading the model");
    } else {
      for (size_t i = 0; i < count; i++) {
        files[i] = m->ckpt.files[keyed[i][1]];
        infos[i] = m->info[keyed[i][1]];
      }
      free(m->ckpt.files);
      free(m->info);
      m->ckpt.files = files;
      m->info = infos;
    }
  }
  free(keyed);
  m->is_set = 1;
  if (rc == 0) {
    const char *first = m->ckpt.files[0].path;
    char suffix[64];
    snprintf(suffix, sizeof suffix, "-00001-of-%05zu.gguf", count);
    rc = set_names(m, first,
                   ends_with(first, suffix)    ? strlen(suffix)
                   : ends_with(first, ".gguf") ? 5
                                               : 0,
                   err);
  }
  return rc == 0 ? finish_set(m, err) : rc;
}
