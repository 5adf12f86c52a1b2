/* The ranks of a tensor-parallel checkpoint loaded as one model (see ckpt_ranks.h). */
#include "ckpt_ranks.h"
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char rank_prefix[] = "rank";

/* R when `name` is rank<R>SUFFIX (R in decimal, no leading zero, at most 6 digits so that it
 * cannot overflow), else -1. */
static long rank_of(const char *name, const char *suffix) {
  size_t p = sizeof rank_prefix - 1, s = strlen(suffix), n = strlen(name);
  if (n <= p + s || strncmp(name, rank_prefix, p) != 0 || strcmp(name + n - s, suffix) != 0) {
    return -1;
  }
  const char *digits = name + p;
  size_t count = n - p - s;
  if (count > 6 || (count > 1 && digits[0] == '0')) {
    return -1;
  }
  long r = 0;
  for (size_t i = 0; i < count; i++) {
    if (digits[i] < '0' || digits[i] > '9') {
      return -1;
    }
    r = r * 10 + (digits[i] - '0');
  }
  return r;
}

/* The rank files of folder `dir`: *count is 1 + the highest rank found (0: none); `found[R]` says
 * which were found (CKPT_MAX_RANKS entries; higher ranks are counted in *beyond). */
static int scan(const char *dir, const char *suffix, unsigned char *found, size_t *count,
                size_t *beyond, tool_error *err) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    return io_open_fail(err, errno, "the folder", dir);
  }
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    long r = rank_of(e->d_name, suffix);
    if (r < 0) {
      continue;
    }
    if (r >= CKPT_MAX_RANKS) {
      (*beyond)++;
      continue;
    }
    found[r] = 1;
    *count = (size_t)r + 1 > *count ? (size_t)r + 1 : *count;
  }
  closedir(d);
  return 0;
}

/* The paths of the folder's ranks, rank0 to rank<N-1>. */
static int folder_ranks(const char *dir, const ckpt_rank_source *s, char ***paths, size_t *count,
                        tool_error *err) {
  unsigned char *found = calloc(CKPT_MAX_RANKS, 1);
  if (found == NULL) {
    return tool_oom(err, "listing the ranks");
  }
  size_t beyond = 0;
  *count = 0;
  int rc = scan(dir, s->suffix, found, count, &beyond, err);
  if (rc == 0 && beyond > 0) {
    rc = tool_fail(err, CLI_EXIT_DATA, "the folder '%s' holds ranks beyond rank%d: at most %d", dir,
                   CKPT_MAX_RANKS - 1, CKPT_MAX_RANKS);
  } else if (rc == 0 && *count == 0) {
    rc =
        tool_fail(err, CLI_EXIT_NOINPUT, "the folder '%s' holds no rank<R>%s (the files %s writes)",
                  dir, s->suffix, s->writer);
  }
  for (size_t r = 0; rc == 0 && r < *count; r++) {
    if (!found[r]) {
      rc = tool_fail(err, CLI_EXIT_DATA,
                     "the folder '%s' holds ranks up to rank%zu%s but not rank%zu%s", dir,
                     *count - 1, s->suffix, r, s->suffix);
    }
  }
  free(found);
  *paths = rc == 0 ? calloc(*count + 1, sizeof **paths) : NULL;
  if (rc == 0 && *paths == NULL) {
    rc = tool_oom(err, "listing the ranks");
  }
  size_t n = strlen(dir);
  const char *sep = n > 0 && dir[n - 1] == '/' ? "" : "/";
  for (size_t r = 0; rc == 0 && r < *count; r++) {
    if (asprintf(&(*paths)[r], "%s%s%s%zu%s", dir, sep, rank_prefix, r, s->suffix) < 0) {
      (*paths)[r] = NULL;
      rc = tool_oom(err, "listing the ranks");
    }
  }
  return rc;
}

int ckpt_ranks_load(char *const *paths, size_t count, const ckpt_rank_source *source, ckpt_model *m,
                    tool_error *err) {
  memset(m, 0, sizeof *m);
  char **listed = NULL;
  struct stat st;
  int rc = 0;
  const char *folder = count > 0 ? paths[0] : "";
  if (count == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode)) {
    rc = folder_ranks(paths[0], source, &listed, &count, err);
    paths = listed;
  } else if (count > CKPT_MAX_RANKS) {
    rc = tool_fail(err, CLI_EXIT_DATA, "%zu ranks: at most %d", count, CKPT_MAX_RANKS);
  }
  if (rc == 0) {
    size_t n = listed != NULL ? strlen(folder) : 0;
    m->dir = listed != NULL ? malloc(n + 2) : strdup("");
    if (m->dir != NULL && listed != NULL) {
      snprintf(m->dir, n + 2, "%s%s", folder, n > 0 && folder[n - 1] == '/' ? "" : "/");
      m->owns_dir = 1;
      m->ranks_dir = 1;
    }
    m->files = calloc(count + 1, sizeof *m->files);
    if (m->dir == NULL || m->files == NULL) {
      rc = tool_oom(err, "loading the ranks");
    }
  }
  for (size_t r = 0; r < count && rc == 0; r++) {
    m->file_count = r + 1;
    rc = source->read(source->ctx, r, paths[r], &m->files[r], err);
    for (size_t k = 0; rc == 0 && k < m->files[r].tensor_count; k++) {
      m->files[r].tensors[k].file = r;
    }
  }
  if (rc == 0) {
    rc = ckpt_model_sort(m, err);
  }
  for (size_t r = 0; listed != NULL && r < count; r++) {
    free(listed[r]);
  }
  free(listed);
  return rc;
}
