/* Loading a GGUF model: one file, or the files of a split set checked against each other. */
#include "gguf_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "gguf_value.h"
#include "http.h"

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

int gguf_split_keys(const ckpt_file *f, const gguf_info *info, gguf_split *out, tool_error *err) {
  static const struct {
    const char *key;
    int type;
  } keys[] = {
      {GGUF_SPLIT_NO, GGUF_U16}, {GGUF_SPLIT_COUNT, GGUF_U16}, {GGUF_SPLIT_TENSORS, GGUF_I32}};
  uint64_t *values[] = {&out->no, &out->count, &out->tensors};
  memset(out, 0, sizeof *out);
  int found = 0;
  for (int k = 0; k < 3; k++) {
    const ckpt_meta *e = gguf_meta_lookup(f->meta, f->meta_count, keys[k].key);
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
    *values[k] = v;
  }
  if (found != 0 && found != 3) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: a split set's file has all of %s, %s and %s, not %d of them", f->path,
                     GGUF_SPLIT_NO, GGUF_SPLIT_COUNT, GGUF_SPLIT_TENSORS, found);
  }
  out->keyed = found == 3;
  /* split.count 0 is llama.cpp's "not a set" (gguf-split --merge writes it, keeping the first
   * part's split.no and split.tensors.count, which the loader then never reads). */
  if (out->count != 0 && out->no >= out->count) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: %s is %llu and %s %llu: not a part of the set",
                     f->path, GGUF_SPLIT_NO, (unsigned long long)out->no, GGUF_SPLIT_COUNT,
                     (unsigned long long)out->count);
  }
  return 0;
}

/* Removes entry i of file `f`'s metadata (freeing it), the place of every other entry in the
 * header kept. */
static void forget_entry(ckpt_file *f, gguf_info *info, size_t i) {
  size_t n = f->meta_count;
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
  f->meta_count = n;
}

void gguf_forget_meta(gguf_model *m, size_t file, size_t i) {
  forget_entry(&m->ckpt.files[file], &m->info[file], i);
}

void gguf_strip_split_keys(ckpt_file *f, gguf_info *info) {
  for (size_t i = f->meta_count; i-- > 0;) {
    const char *key = f->meta[i].key;
    if (strcmp(key, GGUF_SPLIT_NO) == 0 || strcmp(key, GGUF_SPLIT_COUNT) == 0 ||
        strcmp(key, GGUF_SPLIT_TENSORS) == 0) {
      forget_entry(f, info, i);
    }
  }
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

/* The message of a file that is not a part of a set, by what its split keys say. */
static const char *not_a_part(const gguf_split *s) {
  return s->keyed ? "its " GGUF_SPLIT_COUNT " is 0: a whole model" : "it has no " GGUF_SPLIT_COUNT;
}

/* Checks the set's files (in the order of their split.no) against each other, strips their split
 * keys, numbers their tensors and sorts them by name; no name twice in the set. A part read
 * alone is checked against its own keys only. A whole model's split keys (split.count 0) are
 * stripped too. */
static int finish_set(gguf_model *m, tool_error *err) {
  ckpt_model *c = &m->ckpt;
  uint64_t total = 0;
  for (size_t i = 0; i < c->file_count; i++) {
    total += c->files[i].tensor_count;
  }
  for (size_t i = 0; i < c->file_count && m->is_set; i++) {
    gguf_split s;
    int rc = gguf_split_keys(&c->files[i], &m->info[i], &s, err);
    if (rc != 0) {
      return rc;
    }
    if (s.count == 0) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: not part of a split set (%s)", c->files[i].path,
                       not_a_part(&s));
    }
    if (m->alone) {
      if (total > s.tensors) {
        return tool_fail(err, CLI_EXIT_DATA, "%s: %s is %llu but this part alone holds %llu %s",
                         c->files[i].path, GGUF_SPLIT_TENSORS, (unsigned long long)s.tensors,
                         (unsigned long long)total, tool_plural(total, "tensor", "tensors"));
      }
      continue;
    }
    if (s.no != i || s.count != c->file_count) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: %s %llu of %s %llu, but it is file %zu of a set of %zu",
                       c->files[i].path, GGUF_SPLIT_NO, (unsigned long long)s.no, GGUF_SPLIT_COUNT,
                       (unsigned long long)s.count, i, c->file_count);
    }
    if (s.tensors != total) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: %s is %llu but the set's files hold %llu %s",
                       c->files[i].path, GGUF_SPLIT_TENSORS, (unsigned long long)s.tensors,
                       (unsigned long long)total, tool_plural(total, "tensor", "tensors"));
    }
  }
  for (size_t i = 0; i < c->file_count; i++) {
    if (m->is_set || m->merged) {
      gguf_strip_split_keys(&c->files[i], &m->info[i]);
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

/* gguf-split's name of part `no` (from 0) of a set of `count` files: "-00002-of-00003.gguf". */
static void part_suffix(uint64_t no, uint64_t count, char *buf, size_t size) {
  snprintf(buf, size, "-%05llu-of-%05llu.gguf", (unsigned long long)no + 1,
           (unsigned long long)count);
}

/* `path`, file `s->no` of its set, given where any part may be (ls, check): the whole set from
 * its first file when that file opens (0, or the set's error), else 1 after a warning that
 * `path` is read alone. */
static int load_from_first(const char *path, const gguf_split *s, gguf_model *m, tool_error *err) {
  char own[64], first[4096];
  part_suffix(s->no, s->count, own, sizeof own);
  if (!ends_with(path, own)) {
    cli_warning("%s is file %llu of a split set of %llu, but its name does not end with '%s' "
                "(gguf-split's name of that part), so the other files cannot be found: reading "
                "it alone",
                path, (unsigned long long)s->no + 1, (unsigned long long)s->count, own);
    return 1;
  }
  size_t prefix = strlen(path) - strlen(own);
  int n = snprintf(first, sizeof first, "%.*s-00001-of-%05llu.gguf", (int)prefix, path,
                   (unsigned long long)s->count);
  if (n < 0 || (size_t)n >= sizeof first) {
    return tool_fail(err, CLI_EXIT_NOINPUT, "%s: path too long", path);
  }
  int rc = gguf_model_load(first, 0, m, err);
  if (rc == 0 && (!m->is_set || m->ckpt.file_count != s->count)) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s is file %llu of a split set of %llu, but %s, the first file by its name, "
                     "is %s",
                     path, (unsigned long long)s->no + 1, (unsigned long long)s->count, first,
                     m->is_set ? "the first of another set" : "a whole model");
  }
  if (rc != CLI_EXIT_NOINPUT) {
    return rc;
  }
  /* Only the first file's failure to open is NOINPUT: a missing later part is DATA. */
  gguf_model_free(m);
  cli_warning("%s is file %llu of a split set of %llu, whose first file cannot be opened (%s): "
              "reading it alone",
              path, (unsigned long long)s->no + 1, (unsigned long long)s->count, err->message);
  return 1;
}

int gguf_model_load(const char *path, int any_part, gguf_model *m, tool_error *err) {
  memset(m, 0, sizeof *m);
  ckpt_file first;
  gguf_info info;
  int rc = gguf_read_file(path, &first, &info, err);
  gguf_split s = {0, 0, 0, 0};
  if (rc == 0) {
    rc = gguf_split_keys(&first, &info, &s, err);
  }
  char suffix[64];
  part_suffix(0, s.count, suffix, sizeof suffix);
  int alone = 0;
  if (rc == 0 && any_part && s.count > 1 && (s.no != 0 || !ends_with(path, suffix))) {
    alone = load_from_first(path, &s, m, err);
    if (alone != 1) {
      ckpt_file_free(&first);
      gguf_info_free(&info);
      return alone;
    }
  }
  if (rc == 0 && s.count > 0 && s.no != 0 && !alone) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s is file %llu of a split set of %llu: give the first file of the set", path,
                   (unsigned long long)s.no + 1, (unsigned long long)s.count);
  }
  if (rc == 0 && s.count > 1 && !alone && !ends_with(path, suffix)) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "%s is the first of a split set of %llu files but its name does not end with "
                   "'%s', so the others cannot be found: name them all (gguf merge PART...)",
                   path, (unsigned long long)s.count, suffix);
  }
  size_t files = s.count > 1 && !alone ? (size_t)s.count : 1;
  if (rc == 0) {
    rc = grow_files(m, files, err);
  }
  if (rc != 0) {
    ckpt_file_free(&first);
    gguf_info_free(&info);
    return rc;
  }
  m->is_set = s.count > 0;
  m->merged = s.keyed && s.count == 0;
  m->alone = alone;
  m->part = s;
  m->ckpt.files[0] = first;
  m->info[0] = info;
  m->ckpt.file_count = 1;
  int named = files > 1;
  rc = set_names(m, path, named ? strlen(suffix) : ends_with(path, ".gguf") ? 5 : 0, err);
  size_t prefix_len = strlen(path) - (named ? strlen(suffix) : 0);
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
                  !http_is_url(name) && stat(name, &st) != 0 && errno == ENOENT ? " is missing"
                                                                                : "");
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
    int rc = gguf_model_load(paths[0], 0, m, err);
    if (rc == 0 && !m->is_set) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s is not part of a split set (%s)", paths[0],
                     not_a_part(&m->part));
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
    gguf_split s = {0, 0, 0, 0};
    if (rc == 0) {
      rc = gguf_split_keys(&m->ckpt.files[i], &m->info[i], &s, err);
    }
    uint64_t no = s.no;
    if (rc == 0 && s.count == 0) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s is not part of a split set (%s)", paths[i],
                     not_a_part(&s));
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
