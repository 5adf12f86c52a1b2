/* The model's memory, its tensors by name, and the sidecar files of its folder. */
#include "ckpt_model.h"
#include "http.h"
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ckpt_file_free(ckpt_file *f) {
  for (size_t i = 0; i < f->tensor_count; i++) {
    free(f->tensors[i].name);
    free(f->tensors[i].shape);
  }
  for (size_t i = 0; i < f->meta_count; i++) {
    free(f->meta[i].key);
    free(f->meta[i].value);
  }
  free(f->tensors);
  free(f->meta);
  free(f->path);
  free(f->name);
  memset(f, 0, sizeof *f);
}

void ckpt_meta_remove(ckpt_model *m, size_t file, size_t index) {
  ckpt_file *f = &m->files[file];
  free(f->meta[index].key);
  free(f->meta[index].value);
  memmove(&f->meta[index], &f->meta[index + 1], (f->meta_count - index - 1) * sizeof *f->meta);
  f->meta_count--;
}

void ckpt_model_free(ckpt_model *m) {
  for (size_t i = 0; i < m->file_count; i++) {
    ckpt_file_free(&m->files[i]);
  }
  for (size_t i = 0; i < m->sidecar_count; i++) {
    free(m->sidecars[i]);
  }
  free(m->files);
  free(m->by_name);
  free(m->sidecars);
  free(m->dir);
  free(m->index_path);
  free(m->index_name);
  memset(m, 0, sizeof *m);
}

/* By name, and tensors of one name by file (the ranks of a model of ranks in rank order). */
static int by_name(const void *a, const void *b) {
  const ckpt_tensor *const *x = a, *const *y = b;
  int c = strcmp((*x)->name, (*y)->name);
  return c != 0 ? c : (*x)->file < (*y)->file ? -1 : (*x)->file > (*y)->file;
}

int ckpt_model_sort(ckpt_model *m, tool_error *err) {
  size_t n = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    n += m->files[i].tensor_count;
  }
  free(m->by_name);
  m->tensor_count = 0;
  m->by_name = calloc(n + 1, sizeof *m->by_name);
  if (m->by_name == NULL) {
    return tool_oom(err, "sorting the tensors");
  }
  for (size_t i = 0; i < m->file_count; i++) {
    for (size_t k = 0; k < m->files[i].tensor_count; k++) {
      m->by_name[m->tensor_count++] = &m->files[i].tensors[k];
    }
  }
  qsort(m->by_name, m->tensor_count, sizeof *m->by_name, by_name);
  return 0;
}

const ckpt_tensor *ckpt_model_find(const ckpt_model *m, const char *name) {
  size_t lo = 0, hi = m->tensor_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(m->by_name[mid]->name, name) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < m->tensor_count && strcmp(m->by_name[lo]->name, name) == 0 ? m->by_name[lo] : NULL;
}

uint64_t ckpt_model_bytes(const ckpt_model *m) {
  uint64_t total = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    for (size_t k = 0; k < m->files[i].tensor_count; k++) {
      total += m->files[i].tensors[k].bytes;
    }
  }
  return total;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether the folder's entry `name` is a sidecar of the model. */
static int is_sidecar(const ckpt_model *m, const char *name, const char *const *skip,
                      size_t count) {
  if (name[0] == '.' || (m->index_name != NULL && strcmp(name, m->index_name) == 0)) {
    return 0;
  }
  for (size_t i = 0; i < count; i++) {
    if (ends_with(name, skip[i])) {
      return 0;
    }
  }
  for (size_t i = 0; i < m->file_count; i++) {
    if (strcmp(name, m->files[i].name) == 0) {
      return 0;
    }
  }
  if (http_is_url(m->dir)) {
    return 1; /* asked for when copied */
  }
  char path[4096];
  struct stat st;
  int n = snprintf(path, sizeof path, "%s%s", m->dir, name);
  return n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int text_order(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sidecars a model folder on the Hugging Face Hub may hold: a URL cannot be listed, so
 * these names are asked for when a command copies the sidecars (ckpt_write.c). */
static const char *const url_sidecars[] = {"config.json",
                                           "generation_config.json",
                                           "tokenizer.json",
                                           "tokenizer_config.json",
                                           "tokenizer.model",
                                           "special_tokens_map.json",
                                           "vocab.json",
                                           "merges.txt",
                                           "added_tokens.json",
                                           "chat_template.jinja",
                                           NULL};

int ckpt_model_list_sidecars(ckpt_model *m, const char *const *skip, size_t count,
                             tool_error *err) {
  m->owns_dir = 1;
  if (http_is_url(m->dir)) {
    m->sidecars_remote = 1;
    for (size_t i = 0; url_sidecars[i] != NULL; i++) {
      if (!is_sidecar(m, url_sidecars[i], skip, count)) {
        continue;
      }
      char **grown = realloc(m->sidecars, (m->sidecar_count + 1) * sizeof *grown);
      if (grown == NULL || (grown[m->sidecar_count] = strdup(url_sidecars[i])) == NULL) {
        m->sidecars = grown != NULL ? grown : m->sidecars;
        return tool_oom(err, "listing the model's folder");
      }
      m->sidecars = grown;
      m->sidecar_count++;
    }
    return 0;
  }
  DIR *d = opendir(m->dir[0] != '\0' ? m->dir : ".");
  if (d == NULL) {
    m->sidecar_errno = errno;
    return io_open_fail(err, errno, "the folder", m->dir[0] != '\0' ? m->dir : ".");
  }
  size_t cap = 0;
  int rc = 0;
  struct dirent *e;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (!is_sidecar(m, e->d_name, skip, count)) {
      continue;
    }
    if (m->sidecar_count == cap) {
      cap = cap ? cap * 2 : 8;
      char **grown = realloc(m->sidecars, cap * sizeof *grown);
      if (grown == NULL) {
        rc = tool_oom(err, "listing the model's folder");
        break;
      }
      m->sidecars = grown;
    }
    m->sidecars[m->sidecar_count] = strdup(e->d_name);
    if (m->sidecars[m->sidecar_count] == NULL) {
      rc = tool_oom(err, "listing the model's folder");
      break;
    }
    m->sidecar_count++;
  }
  closedir(d);
  if (rc == 0 && m->sidecar_count > 1) {
    qsort(m->sidecars, m->sidecar_count, sizeof *m->sidecars, text_order);
  }
  return rc;
}

int ckpt_folder_holds(const char *path, const char *const *suffixes) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
    return -1;
  }
  DIR *d = opendir(path);
  if (d == NULL) {
    return -1;
  }
  int found = 0;
  struct dirent *e;
  while (!found && (e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    for (size_t i = 0; e->d_name[0] != '.' && suffixes[i] != NULL && !found; i++) {
      size_t k = strlen(suffixes[i]);
      found = n >= k && strcmp(e->d_name + n - k, suffixes[i]) == 0;
    }
  }
  closedir(d);
  return found;
}

size_t ckpt_file_head(const char *path, unsigned char *buf, size_t size) {
  if (http_is_url(path)) {
    return 0; /* a URL's format is found by its name (ckpt_command_find_format) */
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return 0;
  }
  ssize_t n = read(fd, buf, size);
  close(fd);
  return n > 0 ? (size_t)n : 0;
}
