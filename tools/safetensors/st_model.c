/* Loading a safetensors model: a file, an index and its shards, or a folder. */
#include "st_model.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "http.h"
#include "io.h"
#include "st_index.h"
#include "st_read.h"

static const char index_suffix[] = ".safetensors.index.json";
static const char file_suffix[] = ".safetensors";

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

void st_model_free(st_model *m) {
  ckpt_model_free(&m->ckpt);
  json_decref(m->index_metadata);
  memset(m, 0, sizeof *m);
}

static char *join(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 1;
  char *p = malloc(n);
  if (p != NULL) {
    snprintf(p, n, "%s%s", dir, name);
  }
  return p;
}

/* The folder of `path`, with its trailing '/' ("" for none). */
static int set_dir(ckpt_model *m, const char *path, tool_error *err) {
  const char *slash = strrchr(path, '/');
  m->dir = strndup(path, slash != NULL ? (size_t)(slash - path) + 1 : 0);
  return m->dir == NULL ? tool_oom(err, "loading the model") : 0;
}

/* The files of `m`, read from m->dir: each tensor learns its file's index. */
static int read_files(ckpt_model *m, const char *const *names, size_t count, const char *index,
                      st_leniency *lenient, tool_error *err) {
  m->files = calloc(count + 1, sizeof *m->files);
  if (m->files == NULL) {
    return tool_oom(err, "loading the model");
  }
  for (size_t i = 0; i < count; i++) {
    char *path = join(m->dir, names[i]);
    m->file_count = i + 1;
    if (path == NULL) {
      return tool_oom(err, "loading the model");
    }
    int rc = st_read_file_with(path, lenient, &m->files[i], err);
    struct stat st;
    int missing =
        rc == CLI_EXIT_NOINPUT && !http_is_url(path) && stat(path, &st) != 0 && errno == ENOENT;
    free(path);
    if (rc == CLI_EXIT_NOINPUT && index != NULL) {
      /* A shard the index lists that cannot be opened (missing, or unreadable): 66, as any
       * file that cannot be, with its role. */
      return tool_prefix(err, "%s: a shard the index lists%s", index, missing ? " is missing" : "");
    }
    if (rc != 0) {
      return rc;
    }
    for (size_t k = 0; k < m->files[i].tensor_count; k++) {
      m->files[i].tensors[k].file = i;
    }
  }
  return ckpt_model_sort(m, err);
}

/* The sidecars of a model folder. A folder that cannot be listed (its files can be read by name)
 * is remembered (sidecar_errno): a command that copies the sidecars then refuses. */
static int list_sidecars(ckpt_model *m, tool_error *err) {
  static const char *const skip[] = {file_suffix, index_suffix};
  int rc = ckpt_model_list_sidecars(m, skip, 2, err);
  return rc == CLI_EXIT_NOINPUT ? 0 : rc;
}

static int load_single(st_model *m, const char *path, st_leniency *lenient, tool_error *err) {
  const char *slash = strrchr(path, '/');
  const char *name = slash != NULL ? slash + 1 : path;
  int rc = set_dir(&m->ckpt, path, err);
  return rc != 0 ? rc : read_files(&m->ckpt, &name, 1, NULL, lenient, err);
}

/* Every tensor of a shard is listed, and listed in that shard; no tensor is in two shards. */
static int check_listed(const ckpt_model *m, const st_index *ix, const char *path,
                        tool_error *err) {
  for (size_t i = 0; i < m->tensor_count; i++) {
    const ckpt_tensor *t = m->by_name[i];
    const ckpt_file *f = &m->files[t->file];
    if (i > 0 && strcmp(m->by_name[i - 1]->name, t->name) == 0) {
      return tool_fail(err, CLI_EXIT_DATA, "%s: tensor '%.200s' is in two shards: '%s' and '%s'",
                       path, t->name, m->files[m->by_name[i - 1]->file].name, f->name);
    }
    const char *listed = st_index_shard_of(ix, t->name);
    if (listed == NULL) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: byte %llu: tensor '%.200s' is not listed in the index '%s'", f->path,
                       (unsigned long long)t->entry_pos, t->name, path);
    }
    if (strcmp(listed, f->name) != 0) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: byte %llu: tensor '%.200s' is in this shard, but the index '%s' lists "
                       "it in '%s'",
                       f->path, (unsigned long long)t->entry_pos, t->name, path, listed);
    }
  }
  return 0;
}

/* Each tensor the index lists exists; total_size, when given, is right (a wrong one misleads no
 * reader of the data: a departure; outputs get the right one). */
static int check_index(const ckpt_model *m, const st_index *ix, const char *path,
                       st_leniency *lenient, tool_error *err) {
  const char *key;
  json_t *value;
  json_object_foreach(ix->weight_map, key, value) {
    if (ckpt_model_find(m, key) == NULL) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "%s: the index lists tensor '%.200s' in '%s', which does not hold it", path,
                       key, json_string_value(value));
    }
  }
  uint64_t bytes = ckpt_model_bytes(m);
  if (ix->total_size >= 0 && (uint64_t)ix->total_size != bytes) {
    return st_depart(lenient, err,
                     "%s: byte %llu: metadata.total_size is %lld but the shards' tensors hold %llu "
                     "%s (an output index gets the right total)",
                     path, (unsigned long long)ix->total_size_at, (long long)ix->total_size,
                     (unsigned long long)bytes, tool_plural(bytes, "byte", "bytes"));
  }
  return 0;
}

static int load_index(st_model *m, const char *path, st_leniency *lenient, tool_error *err) {
  ckpt_model *c = &m->ckpt;
  const char *slash = strrchr(path, '/');
  int rc = set_dir(c, path, err);
  if (rc == 0) {
    c->index_path = strdup(path);
    c->index_name = strdup(slash != NULL ? slash + 1 : path);
    if (c->index_path == NULL || c->index_name == NULL) {
      rc = tool_oom(err, "loading the model");
    }
  }
  st_index ix;
  memset(&ix, 0, sizeof ix);
  if (rc == 0) {
    rc = st_index_read(path, &ix, err);
  }
  if (rc == 0) {
    rc = read_files(c, ix.shards, ix.shard_count, path, lenient, err);
  }
  if (rc == 0) {
    rc = check_listed(c, &ix, path, err);
  }
  if (rc == 0) {
    rc = check_index(c, &ix, path, lenient, err);
  }
  if (rc == 0 && ix.metadata != NULL) {
    m->index_metadata = json_deep_copy(ix.metadata);
    if (m->index_metadata == NULL) {
      rc = tool_oom(err, "loading the index");
    } else {
      json_object_del(m->index_metadata, "total_size");
    }
  }
  st_index_free(&ix);
  return rc == 0 ? list_sidecars(c, err) : rc;
}

/* The folder's one index, or else its one .safetensors file (names without the folder). */
static int scan_folder(const char *path, char **index, char **file, int *indexes, int *files,
                       tool_error *err) {
  DIR *d = opendir(path);
  if (d == NULL) {
    return io_open_fail(err, errno, "the folder", path);
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') {
      continue;
    }
    char **slot = ends_with(e->d_name, index_suffix)  ? index
                  : ends_with(e->d_name, file_suffix) ? file
                                                      : NULL;
    if (slot != NULL) {
      (slot == index ? (*indexes)++ : (*files)++);
      free(*slot);
      *slot = strdup(e->d_name);
    }
  }
  closedir(d);
  return (*indexes > 0 && *index == NULL) || (*files > 0 && *file == NULL)
             ? tool_oom(err, "listing the folder")
             : 0;
}

static int load_folder(st_model *m, const char *path, st_leniency *lenient, tool_error *err) {
  char *index = NULL, *file = NULL;
  int indexes = 0, files = 0;
  int rc = scan_folder(path, &index, &file, &indexes, &files, err);
  size_t n = strlen(path);
  char *dir = rc == 0 ? malloc(n + 2) : NULL;
  if (rc == 0 && dir == NULL) {
    rc = tool_oom(err, "loading the model");
  } else if (rc == 0) {
    snprintf(dir, n + 2, "%s%s", path, n > 0 && path[n - 1] == '/' ? "" : "/");
  }
  char *target = NULL;
  if (rc != 0) {
    /* reported above */
  } else if (indexes > 1) {
    rc = tool_fail(err, CLI_EXIT_DATA, "the folder '%s' holds %d *%s files: name one", path,
                   indexes, index_suffix);
  } else if (indexes == 1 || files == 1) {
    target = join(dir, indexes == 1 ? index : file);
    if (target == NULL) {
      rc = tool_oom(err, "loading the model");
    } else if (indexes == 1) {
      rc = load_index(m, target, lenient, err);
    } else {
      rc = load_single(m, target, lenient, err);
      rc = rc != 0 ? rc : list_sidecars(&m->ckpt, err);
    }
  } else if (files == 0) {
    rc = tool_fail(err, CLI_EXIT_NOINPUT, "the folder '%s' holds no *%s file", path, file_suffix);
  } else {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "the folder '%s' holds %d *%s files and no *%s: name one of them", path, files,
                   file_suffix, index_suffix);
  }
  free(target);
  free(dir);
  free(index);
  free(file);
  return rc;
}

/* A folder URL, as the Hugging Face Hub lays a model out: its index, or else its one
 * model.safetensors (a URL cannot be listed). */
static int load_url_folder(st_model *m, const char *path, st_leniency *lenient, tool_error *err) {
  char *index = join(path, "model.safetensors.index.json");
  char *file = join(path, "model.safetensors");
  int found = 0;
  int rc = index == NULL || file == NULL ? tool_oom(err, "loading the model")
                                         : http_probe(index, "the index", &found, err);
  if (rc == 0 && found) {
    rc = load_index(m, index, lenient, err);
  } else if (rc == 0) {
    rc = http_probe(file, NULL, &found, err);
    if (rc == 0 && !found) {
      rc = tool_fail(err, CLI_EXIT_NOINPUT,
                     "cannot open '%s': it holds neither model.safetensors.index.json nor "
                     "model.safetensors (the server answers 404 for both)",
                     path);
    } else if (rc == 0) {
      rc = load_single(m, file, lenient, err);
      rc = rc != 0 ? rc : list_sidecars(&m->ckpt, err);
    }
  }
  free(index);
  free(file);
  return rc;
}

int st_model_load(const char *path, st_model *m, tool_error *err) {
  return st_model_load_with(path, NULL, m, err);
}

int st_model_load_with(const char *path, st_leniency *lenient, st_model *m, tool_error *err) {
  memset(m, 0, sizeof *m);
  if (http_is_url(path)) {
    size_t n = strlen(path);
    return n > 0 && path[n - 1] == '/' ? load_url_folder(m, path, lenient, err)
           : ends_with(path, ".json")  ? load_index(m, path, lenient, err)
                                       : load_single(m, path, lenient, err);
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    return io_open_fail(err, errno, NULL, path);
  }
  if (S_ISDIR(st.st_mode)) {
    return load_folder(m, path, lenient, err);
  }
  if (ends_with(path, ".json")) {
    return load_index(m, path, lenient, err);
  }
  return load_single(m, path, lenient, err);
}
