/* The staging folders of the runs: made and locked, found once their run is dead, removed. */
#include "outputs_staging.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How deep a tree the removal descends: a staging folder is flat, but the old folder an exchange
 * set aside may hold a user's folders. */
#define MAX_DEPTH 128

/* The longest NAME kept in a temporary's name: with the mark, a PID, a tag and the journal's
 * suffix the whole stays a valid file name. */
#define NAME_KEPT (NAME_MAX - 48)

static unsigned random_tag(void) {
  unsigned r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    r = (unsigned)time(NULL) ^ (unsigned)clock() * 2654435761u ^ (unsigned)getpid();
  }
  return r;
}

char *out_stage_prefix(const char *name, char *buf, size_t size) {
  size_t n = strlen(name);
  snprintf(buf, size, ".%.*s%s", (int)(n > NAME_KEPT ? NAME_KEPT : n), name, OUT_TEMP_MARK);
  return buf;
}

int out_temp_name(const char *entry) {
  return entry[0] == '.' && strstr(entry, OUT_TEMP_MARK) != NULL;
}

/* Whether `name` in `dir_fd` is the file open as `fd` (nobody replaced it meanwhile). */
static int same_entry(int dir_fd, const char *name, int fd) {
  struct stat a, b;
  return fstatat(dir_fd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 && fstat(fd, &b) == 0 &&
         a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int out_stage_make(int dir_fd, const char *name, char **stage_name, int *stage_fd) {
  char prefix[NAME_MAX + 1];
  out_stage_prefix(name, prefix, sizeof prefix);
  for (int attempt = 0; attempt < 32; attempt++) {
    char *s = NULL;
    if (asprintf(&s, "%s%ld-%08x", prefix, (long)getpid(), random_tag()) < 0) {
      errno = ENOMEM;
      return -1;
    }
    if (mkdirat(dir_fd, s, 0777) != 0) {
      int e = errno;
      free(s);
      if (e == EEXIST) {
        continue;
      }
      errno = e;
      return -1;
    }
    int fd = openat(dir_fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      /* A file system without locks leaves the folder unlocked: the others cannot lock it
       * either, so they take it for a live run's. */
      int locked = flock(fd, LOCK_EX) == 0 || (errno != EINTR && errno != EWOULDBLOCK);
      /* A run clearing dead temporaries may have taken the folder between its creation and the
       * lock, and removed it: then it is made again. */
      if (locked && same_entry(dir_fd, s, fd)) {
        *stage_name = s;
        *stage_fd = fd;
        return 0;
      }
      close(fd);
    } else if (errno != ENOENT) {
      int e = errno;
      unlinkat(dir_fd, s, AT_REMOVEDIR);
      free(s);
      errno = e;
      return -1;
    }
    free(s);
  }
  errno = EEXIST;
  return -1;
}

static int open_dir_at(int dir_fd, const char *name) {
  return openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

DIR *out_dir_entries(int fd) {
  int dup_fd = dup(fd);
  DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
  if (dir == NULL) {
    int e = errno;
    if (dup_fd >= 0) {
      close(dup_fd);
    }
    errno = e;
    return NULL;
  }
  /* A duplicate shares its offset with `fd`: an earlier listing may have moved it. */
  rewinddir(dir);
  return dir;
}

/* Counts the bytes and files under the folder `fd`. */
static void tree_size(int fd, uint64_t *bytes, size_t *files, int depth) {
  DIR *dir = out_dir_entries(fd);
  if (dir == NULL) {
    return;
  }
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
      continue;
    }
    struct stat st;
    if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      int sub = depth < MAX_DEPTH ? open_dir_at(fd, e->d_name) : -1;
      if (sub >= 0) {
        tree_size(sub, bytes, files, depth + 1);
        close(sub);
      }
    } else {
      *bytes += (uint64_t)st.st_size;
      *files += 1;
    }
  }
  closedir(dir);
}

static int remove_tree_at(int dir_fd, const char *name, uint64_t *bytes, size_t *files, int depth);

/* Removes everything in the folder `fd`. Returns 0 or -1 with errno of the first failure. */
static int remove_in(int fd, uint64_t *bytes, size_t *files, int depth) {
  DIR *dir = out_dir_entries(fd);
  if (dir == NULL) {
    return -1;
  }
  int rc = 0, first = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
      continue;
    }
    if (depth >= MAX_DEPTH) {
      rc = -1;
      first = first != 0 ? first : ELOOP;
      continue;
    }
    uint64_t b = 0;
    size_t f = 0;
    if (remove_tree_at(fd, e->d_name, &b, &f, depth + 1) != 0 && rc == 0) {
      rc = -1;
      first = errno;
    }
    *bytes += b;
    *files += f;
  }
  closedir(dir);
  errno = first;
  return rc;
}

static int remove_tree_at(int dir_fd, const char *name, uint64_t *bytes, size_t *files, int depth) {
  uint64_t b = 0;
  size_t f = 0;
  struct stat st;
  int rc = fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW);
  if (rc == 0 && !S_ISDIR(st.st_mode)) {
    rc = unlinkat(dir_fd, name, 0);
    if (rc == 0) {
      b = (uint64_t)st.st_size;
      f = 1;
    }
  } else if (rc == 0) {
    int fd = open_dir_at(dir_fd, name);
    rc = fd < 0 ? -1 : 0;
    if (fd >= 0) {
      rc = remove_in(fd, &b, &f, depth);
      int e = errno;
      close(fd);
      errno = e;
    }
    if (rc == 0) {
      rc = unlinkat(dir_fd, name, AT_REMOVEDIR);
    } else {
      int e = errno;
      unlinkat(dir_fd, name, AT_REMOVEDIR);
      errno = e;
    }
  }
  if (bytes != NULL) {
    *bytes += b;
  }
  if (files != NULL) {
    *files += f;
  }
  return rc;
}

int out_remove_tree(int dir_fd, const char *name, uint64_t *bytes, size_t *files) {
  return remove_tree_at(dir_fd, name, bytes, files, 0);
}

/* Whether `name` is a journal whose staging folder is in `dir_fd`. */
static int journal_of_present(int dir_fd, const char *name) {
  size_t n = strlen(name), k = strlen(OUT_JOURNAL_SUFFIX);
  if (n <= k || strcmp(name + n - k, OUT_JOURNAL_SUFFIX) != 0) {
    return 0;
  }
  char stem[NAME_MAX + 1];
  if (n - k >= sizeof stem) {
    return 0;
  }
  memcpy(stem, name, n - k);
  stem[n - k] = '\0';
  struct stat st;
  return fstatat(dir_fd, stem, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* Opens and tries the lock of a temporary: 1 dead (locked now, or probed), 0 alive or unknown. */
static int try_dead(int dir_fd, const char *name, int is_dir, int lock, int *fd) {
  *fd = is_dir ? open_dir_at(dir_fd, name)
               : openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0) {
    return 0;
  }
  if (flock(*fd, (lock ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
    close(*fd);
    *fd = -1;
    return 0; /* held by a live run, or no locks here: left alone */
  }
  if (!lock || !is_dir) {
    close(*fd); /* a file's lock is released with it; a probe's at once */
    *fd = -1;
  }
  return 1;
}

int out_temps_dead(int dir_fd, const char *prefix, int lock, out_temp **found, size_t *count) {
  *found = NULL;
  *count = 0;
  DIR *dir = out_dir_entries(dir_fd);
  if (dir == NULL) {
    return -1;
  }
  size_t cap = 0;
  size_t prefix_len = prefix != NULL ? strlen(prefix) : 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    const char *name = e->d_name;
    if (prefix != NULL ? strncmp(name, prefix, prefix_len) != 0 : !out_temp_name(name)) {
      continue;
    }
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) || journal_of_present(dir_fd, name)) {
      continue; /* not a temporary of ours, or a journal taken with its folder */
    }
    int fd;
    if (!try_dead(dir_fd, name, S_ISDIR(st.st_mode), lock, &fd)) {
      continue;
    }
    if (*count == cap) {
      size_t grown = cap == 0 ? 8 : 2 * cap;
      out_temp *more = realloc(*found, grown * sizeof *more);
      if (more == NULL) {
        if (fd >= 0) {
          close(fd);
        }
        break;
      }
      *found = more;
      cap = grown;
    }
    out_temp *t = &(*found)[*count];
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    t->fd = fd;
    t->is_dir = S_ISDIR(st.st_mode);
    if (t->name == NULL) {
      if (fd >= 0) {
        close(fd);
      }
      break;
    }
    if (t->is_dir) {
      int sub = fd >= 0 ? fd : open_dir_at(dir_fd, name);
      if (sub >= 0) {
        tree_size(sub, &t->bytes, &t->files, 0);
        if (sub != fd) {
          close(sub);
        }
      }
    } else {
      t->bytes = (uint64_t)st.st_size;
      t->files = 1;
    }
    (*count)++;
  }
  closedir(dir);
  return 0;
}

void out_temps_free(out_temp *found, size_t count) {
  for (size_t i = 0; i < count; i++) {
    if (found[i].fd >= 0) {
      close(found[i].fd);
    }
    free(found[i].name);
  }
  free(found);
}
