/* The commit of an output set: in one step, taken back on failure, finished or undone after the
 * death of its run (outputs_commit.h). */
#include "outputs_commit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "io.h"

/* A journal larger than this is not one of ours. */
#define JOURNAL_MAX ((size_t)1 << 30)
#define JOURNAL_MAGIC "cleave-commit 1"

/* ---- the test hook ----------------------------------------------------------------------- */

static long fault_at = -2; /* -2: CLEAVE_TEST_FAULT not read yet; -1: none */
static char fault_kind; /* 'r': the rename fails; 'k': SIGKILL before it; 't': SIGTERM before it */
static int fault_no_wait;     /* "nowait": a commit lock held by another run is not waited for */
static int fault_no_exchange; /* "noexchange": RENAME_EXCHANGE refused (EINVAL), as by some file
                                 systems */
static long steps_made;

/* One word of CLEAVE_TEST_FAULT (`len` bytes at `w`). Returns 0, or -1 when it is none. */
static int read_fault_word(const char *w, size_t len) {
  if (len == 6 && strncmp(w, "nowait", 6) == 0) {
    fault_no_wait = 1;
    return 0;
  }
  if (len == 10 && strncmp(w, "noexchange", 10) == 0) {
    fault_no_exchange = 1;
    return 0;
  }
  size_t skip = len > 7 && strncmp(w, "rename:", 7) == 0 ? 7
                : len > 5 && strncmp(w, "kill:", 5) == 0 ? 5
                : len > 5 && strncmp(w, "term:", 5) == 0 ? 5
                                                         : 0;
  long at = 0;
  for (size_t i = skip; skip > 0 && i < len && at < 1000000000L; i++) {
    if (w[i] < '0' || w[i] > '9') {
      return -1;
    }
    at = at * 10 + (w[i] - '0');
  }
  if (skip == 0 || at < 1) {
    return -1;
  }
  fault_at = at;
  fault_kind = w[0];
  return 0;
}

static void read_fault(void) {
  fault_at = -1;
  const char *v = getenv("CLEAVE_TEST_FAULT");
  for (const char *w = v; w != NULL && *w != '\0';) {
    size_t len = strcspn(w, ",");
    if (read_fault_word(w, len) != 0) {
      cli_warning(
          "CLEAVE_TEST_FAULT='%s': '%.*s' is none of rename:N, kill:N, term:N (N from 1), nowait, "
          "noexchange: ignored",
          v, (int)len, w);
    }
    w += len + (w[len] == ',');
  }
}

/* Every rename of a commit comes here first: the test hook makes the chosen one fail, kills the
 * process before it, or sends it a SIGTERM (blocked during the commit: it is then pending) and
 * lets the rename go on. */
static int step_fault(void) {
  if (fault_at == -2) {
    read_fault();
  }
  if (++steps_made != fault_at) {
    return 0;
  }
  if (fault_kind == 'k') {
    kill(getpid(), SIGKILL);
  }
  if (fault_kind == 't') {
    kill(getpid(), SIGTERM);
    return 0;
  }
  errno = EIO;
  return -1;
}

static int step_rename(int from_fd, const char *from, int to_fd, const char *to, unsigned flags) {
  if (fault_at == -2) {
    read_fault();
  }
  if (fault_no_exchange && (flags & RENAME_EXCHANGE) != 0) {
    errno = EINVAL; /* refused as by the file system: not a step */
    return -1;
  }
  if (step_fault() != 0) {
    return -1;
  }
  return flags != 0 ? renameat2(from_fd, from, to_fd, to, flags)
                    : renameat(from_fd, from, to_fd, to);
}

/* RENAME_EXCHANGE or RENAME_NOREPLACE refused because the file system lacks it. */
static int unsupported(int e) {
  return e == EINVAL || e == ENOSYS || e == EOPNOTSUPP;
}

/* ---- the lock ------------------------------------------------------------------------------ */

int out_commit_lock(int fd) {
  if (fault_at == -2) {
    read_fault();
  }
  for (int waited = 0; waited < (fault_no_wait ? 1 : 6000); waited++) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
      return 0;
    }
    if (errno != EWOULDBLOCK && errno != EINTR) {
      return 0; /* no locks on this file system: nothing to wait for */
    }
    struct timespec ten_ms = {0, 10 * 1000 * 1000};
    nanosleep(&ten_ms, NULL);
  }
  return -1;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static int lstat_at(int dir_fd, const char *name, struct stat *st) {
  return fstatat(dir_fd, name, st, AT_SYMLINK_NOFOLLOW);
}

static int open_dir_at(int dir_fd, const char *name) {
  return openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names sorted, to look entries up among them. */
typedef struct name_index {
  char **sorted;
  size_t count;
} name_index;

static int index_make(name_index *x, char *const *names, size_t count) {
  x->count = count;
  x->sorted = malloc((count + 1) * sizeof *x->sorted);
  if (x->sorted == NULL) {
    return -1;
  }
  memcpy(x->sorted, names, count * sizeof *names);
  qsort(x->sorted, count, sizeof *x->sorted, compare_names);
  return 0;
}

static int index_has(const name_index *x, const char *name) {
  return bsearch(&name, x->sorted, x->count, sizeof *x->sorted, compare_names) != NULL;
}

/* The staging folder's path, or an entry of it, for messages. */
static const char *staged(const out_commit *c, const char *name, char *buf, size_t size) {
  snprintf(buf, size, "%s%s%s%s", c->dir_path, c->stage_name, name != NULL ? "/" : "",
           name != NULL ? name : "");
  return buf;
}

static int sync_fd(int fd) {
  return fsync(fd) == 0 || errno == EINVAL ? 0 : -1;
}

/* Reads the folder `fd`'s entries (not . and ..) into a malloc'd NULL-terminated array of
 * malloc'd names. Returns NULL with errno set on failure. */
static char **list_entries(int fd, size_t *count) {
  DIR *dir = out_dir_entries(fd);
  if (dir == NULL) {
    return NULL;
  }
  size_t n = 0, cap = 16;
  char **names = malloc(cap * sizeof *names);
  struct dirent *e;
  while (names != NULL && (e = readdir(dir)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
      continue;
    }
    if (n + 1 == cap) {
      char **more = realloc(names, 2 * cap * sizeof *names);
      if (more == NULL) {
        break;
      }
      names = more;
      cap *= 2;
    }
    if ((names[n] = strdup(e->d_name)) == NULL) {
      break;
    }
    n++;
  }
  int failed = names == NULL || e != NULL;
  closedir(dir);
  if (failed) {
    for (size_t i = 0; names != NULL && i < n; i++) {
      free(names[i]);
    }
    free(names);
    errno = ENOMEM;
    return NULL;
  }
  names[n] = NULL;
  *count = n;
  return names;
}

static void free_entries(char **names) {
  for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
    free(names[i]);
  }
  free(names);
}

/* ---- the journal -------------------------------------------------------------------------- */

/* Its fields, each ending in '\0': the magic, the kind ("exchange" or "place"), the target (the
 * folder exchanged, or the folder the files go into: "." for the journal's own), the inode of the
 * staging folder, then for each output the inode of its staged file and its name. */
typedef struct journal {
  char *text;
  const char *kind, *target;
  unsigned long long stage_ino;
  size_t count;
  unsigned long long *inos;
  const char **names;
} journal;

static char *journal_name(const char *stage_name) {
  char *name = NULL;
  return asprintf(&name, "%s%s", stage_name, OUT_JOURNAL_SUFFIX) < 0 ? NULL : name;
}

static int append(char **buf, size_t *len, size_t *cap, const char *text) {
  size_t n = strlen(text) + 1;
  if (*len + n > *cap) {
    size_t grown = *cap == 0 ? 4096 : *cap;
    while (*len + n > grown) {
      grown *= 2;
    }
    char *more = realloc(*buf, grown);
    if (more == NULL) {
      return -1;
    }
    *buf = more;
    *cap = grown;
  }
  memcpy(*buf + *len, text, n);
  *len += n;
  return 0;
}

static int journal_write(const out_commit *c, const char *kind, const char *target,
                         tool_error *err) {
  char *buf = NULL, number[32];
  size_t len = 0, cap = 0;
  struct stat st;
  fstat(c->stage_fd, &st);
  snprintf(number, sizeof number, "%llu", (unsigned long long)st.st_ino);
  int rc = append(&buf, &len, &cap, JOURNAL_MAGIC) | append(&buf, &len, &cap, kind) |
           append(&buf, &len, &cap, target) | append(&buf, &len, &cap, number);
  for (size_t i = 0; rc == 0 && i < c->count; i++) {
    unsigned long long ino = lstat_at(c->stage_fd, c->names[i], &st) == 0 ? st.st_ino : 0;
    snprintf(number, sizeof number, "%llu", ino);
    rc = append(&buf, &len, &cap, number) | append(&buf, &len, &cap, c->names[i]);
  }
  char *name = journal_name(c->stage_name);
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s%s", c->dir_path, name != NULL ? name : "");
  if (rc != 0 || name == NULL) {
    free(buf);
    free(name);
    return tool_oom(err, "writing the commit's journal");
  }
  int fd = openat(c->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  tool_error io;
  if (fd < 0) {
    rc = tool_fail(err, CLI_EXIT_IOERR,
                   "cannot create the commit's journal '%s': %s (no output was put in place)", path,
                   strerror(errno));
  } else if (io_write_full(fd, path, buf, len, 0, &io) != 0) {
    *err = io;
    rc = err->status;
  } else if (c->sync && sync_fd(fd) != 0) {
    rc = tool_fail(err, CLI_EXIT_IOERR, "cannot sync the commit's journal '%s': %s", path,
                   strerror(errno));
  }
  if (fd >= 0) {
    close(fd);
  }
  if (rc != 0) {
    unlinkat(c->dir_fd, name, 0);
  }
  free(buf);
  free(name);
  return rc;
}

static void journal_remove(int dir_fd, const char *stage_name) {
  char *name = journal_name(stage_name);
  if (name != NULL) {
    unlinkat(dir_fd, name, 0);
    free(name);
  }
}

static void journal_free(journal *j) {
  free(j->text);
  free(j->inos);
  free(j->names);
  memset(j, 0, sizeof *j);
}

/* Reads the journal of `stage_name` in `dir_fd`. Returns 1 (read), 0 (none, or not ours), -1
 * (out of memory). A journal cut short by the death of its run keeps its whole entries. */
static int journal_read(int dir_fd, const char *stage_name, journal *j, uint64_t *bytes) {
  memset(j, 0, sizeof *j);
  char *name = journal_name(stage_name);
  int fd = name != NULL ? openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
  free(name);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > JOURNAL_MAX) {
    if (fd >= 0) {
      close(fd);
    }
    return name == NULL ? -1 : 0;
  }
  size_t size = (size_t)st.st_size;
  *bytes += size;
  j->text = malloc(size + 1);
  tool_error err;
  if (j->text == NULL || io_read_full(fd, "journal", j->text, size, 0, CLI_EXIT_IOERR, &err) != 0) {
    close(fd);
    int oom = j->text == NULL;
    journal_free(j);
    return oom ? -1 : 0;
  }
  close(fd);
  j->text[size] = '\0';
  const char *fields[4];
  size_t at = 0, f = 0;
  for (; f < 4 && at < size; f++) {
    fields[f] = j->text + at;
    at += strlen(j->text + at) + 1;
  }
  if (f < 4 || strcmp(fields[0], JOURNAL_MAGIC) != 0) {
    journal_free(j);
    return 0;
  }
  j->kind = fields[1];
  j->target = fields[2];
  j->stage_ino = strtoull(fields[3], NULL, 10);
  size_t cap = size / 4 + 1;
  j->inos = malloc(cap * sizeof *j->inos);
  j->names = malloc(cap * sizeof *j->names);
  if (j->inos == NULL || j->names == NULL) {
    journal_free(j);
    return -1;
  }
  while (at < size) {
    const char *ino = j->text + at;
    size_t n = strlen(ino);
    if (at + n + 1 >= size) {
      break; /* an entry cut short */
    }
    const char *entry = ino + n + 1;
    size_t k = strlen(entry);
    if (at + n + 1 + k >= size || k == 0) {
      break;
    }
    j->inos[j->count] = strtoull(ino, NULL, 10);
    j->names[j->count] = entry;
    j->count++;
    at += n + 1 + k + 1;
  }
  return 1;
}

/* ---- files put in place one by one --------------------------------------------------------- */

enum { NOT_YET, PLACED, EXCHANGED, REPLACED };

/* Where a file replaced without an exchange is kept, in the staging folder, to be put back. */
#define REPLACED_DIR ".cleave-replaced"

/* Keeps the file `name` of `tfd` in the staging folder's REPLACED_DIR before it is renamed over:
 * a hard link, or (a file that cannot be linked) the file itself moved there, `*moved` set. */
static int keep_replaced(const out_commit *c, int tfd, const char *name, int *moved) {
  *moved = 0;
  if (mkdirat(c->stage_fd, REPLACED_DIR, 0700) != 0 && errno != EEXIST) {
    return -1;
  }
  int rfd = open_dir_at(c->stage_fd, REPLACED_DIR);
  if (rfd < 0) {
    return -1;
  }
  int rc = linkat(tfd, name, rfd, name, 0);
  if (rc != 0 && errno != ENOENT) {
    rc = renameat(tfd, name, rfd, name);
    *moved = rc == 0;
  }
  int e = errno;
  close(rfd);
  errno = e;
  return rc;
}

/* Puts back the file keep_replaced kept. */
static int put_back_replaced(const out_commit *c, int tfd, const char *name) {
  int rfd = open_dir_at(c->stage_fd, REPLACED_DIR);
  int rc = rfd >= 0 ? renameat(rfd, name, tfd, name) : -1;
  int e = errno;
  if (rfd >= 0) {
    close(rfd);
  }
  errno = e;
  return rc;
}

static int may_replace(const out_commit *c, size_t i) {
  return c->force || (c->replace_last && i + 1 == c->count);
}

/* Outputs that appeared in the target since the run began, without force, and outputs that are
 * folders: 73. */
static int check_targets(const out_commit *c, int tfd, tool_error *err) {
  char buf[PATH_MAX + 96];
  for (size_t i = 0; i < c->count; i++) {
    struct stat st;
    if (lstat_at(tfd, c->names[i], &st) != 0) {
      continue;
    }
    const char *final = c->final(c->final_ctx, i, buf, sizeof buf);
    if (S_ISDIR(st.st_mode)) {
      return tool_fail(err, CLI_EXIT_CANTCREAT, "output '%s' exists and is a directory", final);
    }
    if (!may_replace(c, i)) {
      return tool_fail(err, CLI_EXIT_CANTCREAT,
                       "output '%s' appeared while the outputs were written; nothing was written "
                       "(use -f/--force to overwrite it)",
                       final);
    }
  }
  return 0;
}

/* Takes back the first `done` outputs put in place: the files they replaced back, the others
 * removed. Counts those that could not be taken back, with the errno of the first. */
static void take_back(const out_commit *c, int tfd, const unsigned char *state, size_t done,
                      size_t *stuck, int *stuck_errno) {
  for (size_t k = done; k-- > 0;) {
    const char *name = c->names[k];
    int rc = 0;
    if (state[k] == EXCHANGED) {
      rc = renameat(c->stage_fd, name, tfd, name);
    } else if (state[k] == PLACED) {
      rc = unlinkat(tfd, name, 0);
    } else if (state[k] == REPLACED) {
      rc = put_back_replaced(c, tfd, name);
    }
    if (rc != 0 && (*stuck)++ == 0) {
      *stuck_errno = errno;
    }
  }
}

/* Moves staged output i into the folder `tfd`, exchanged with a file it replaces. */
static int place_one(const out_commit *c, int tfd, size_t i, unsigned char *state) {
  const char *name = c->names[i];
  struct stat st;
  for (int tries = 0; tries < 4; tries++) {
    if (lstat_at(tfd, name, &st) == 0) {
      if (step_rename(c->stage_fd, name, tfd, name, RENAME_EXCHANGE) == 0) {
        *state = EXCHANGED;
        return 0;
      }
      if (unsupported(errno)) {
        /* No exchange here: the file is kept aside first, to be put back on failure. */
        int moved = 0;
        if (keep_replaced(c, tfd, name, &moved) != 0) {
          return -1;
        }
        if (step_rename(c->stage_fd, name, tfd, name, 0) != 0) {
          int e = errno;
          if (moved) {
            put_back_replaced(c, tfd, name);
          }
          errno = e;
          return -1;
        }
        *state = REPLACED;
        return 0;
      }
      if (errno != ENOENT) {
        return -1;
      }
      continue; /* it vanished meanwhile */
    }
    if (step_rename(c->stage_fd, name, tfd, name, RENAME_NOREPLACE) == 0) {
      *state = PLACED;
      return 0;
    }
    if (unsupported(errno)) {
      /* No RENAME_NOREPLACE here: link() also fails on an existing name. */
      if (linkat(c->stage_fd, name, tfd, name, 0) != 0) {
        return -1;
      }
      unlinkat(c->stage_fd, name, 0);
      *state = PLACED;
      return 0;
    }
    if (errno != EEXIST || !may_replace(c, i)) {
      return -1;
    }
    /* It appeared meanwhile and may be replaced: exchange it. */
  }
  errno = EAGAIN;
  return -1;
}

/* The outputs moved into the folder `tfd` one by one (target: its name in c->dir_fd for the
 * journal, "." when it is c->dir_fd). */
static int place_files(const out_commit *c, int tfd, const char *target, tool_error *err) {
  int rc = check_targets(c, tfd, err);
  if (rc != 0) {
    return rc;
  }
  unsigned char *state = calloc(c->count + 1, 1);
  if (state == NULL) {
    return tool_oom(err, "committing the outputs");
  }
  rc = journal_write(c, "place", target, err);
  if (rc != 0) {
    free(state);
    return rc;
  }
  size_t done = 0;
  int interrupted = 0;
  while (done < c->count) {
    /* A signal that arrives between two renames ends the run with nothing changed: the renames
     * made are taken back, so that a run stopped while it commits never dies with a mix. */
    if (done > 0 && c->interrupted != NULL && c->interrupted()) {
      interrupted = 1;
      break;
    }
    if (place_one(c, tfd, done, &state[done]) != 0) {
      break;
    }
    done++;
  }
  if (done < c->count) {
    int e = errno;
    char from[PATH_MAX + 96], to_buf[PATH_MAX + 96];
    staged(c, c->names[done], from, sizeof from);
    const char *to = c->final(c->final_ctx, done, to_buf, sizeof to_buf);
    size_t stuck = 0;
    int stuck_errno = 0;
    take_back(c, tfd, state, done, &stuck, &stuck_errno);
    if (interrupted) {
      rc = tool_fail(err, CLI_EXIT_SOFTWARE,
                     "interrupted by a signal while the outputs were "
                     "put in place; nothing was written");
    } else if (e == EEXIST) {
      rc = tool_fail(err, CLI_EXIT_CANTCREAT,
                     "output '%s' appeared while the outputs were written; nothing was written "
                     "(use -f/--force to overwrite it)",
                     to);
    } else {
      rc = tool_fail(err, CLI_EXIT_IOERR, "cannot rename '%s' to '%s': %s", from, to, strerror(e));
    }
    size_t n = strlen(err->message);
    if (done > 0) {
      snprintf(err->message + n, sizeof err->message - n,
               "; the %zu %s already in place %s taken back%s", done,
               tool_plural(done, "output", "outputs"), tool_plural(done, "was", "were"),
               stuck == 0 ? " and the files they replaced restored" : "");
      n = strlen(err->message);
    }
    if (stuck > 0) {
      snprintf(err->message + n, sizeof err->message - n, ", but %zu could not be: %s", stuck,
               strerror(stuck_errno));
    }
  }
  if (rc == 0 && c->sync && sync_fd(tfd) != 0) {
    rc = tool_fail(err, CLI_EXIT_IOERR, "cannot sync the folder of the outputs: %s",
                   strerror(errno));
  }
  journal_remove(c->dir_fd, c->stage_name);
  if (rc == 0) {
    /* What is left in the staging folder: the files the outputs replaced. */
    out_remove_tree(c->dir_fd, c->stage_name, NULL, NULL);
  }
  free(state);
  return rc;
}

/* ---- a folder of the run's own ------------------------------------------------------------ */

/* Whether the current folder is the folder `fd` or lies in it (then the run would leave its own
 * current folder, and its parent's shell, in the old folder). */
static int cwd_inside(int fd) {
  struct stat target, here;
  if (fstat(fd, &target) != 0) {
    return 1;
  }
  int cur = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (int depth = 0; cur >= 0 && depth < 4096; depth++) {
    if (fstat(cur, &here) != 0) {
      break;
    }
    if (here.st_dev == target.st_dev && here.st_ino == target.st_ino) {
      close(cur);
      return 1;
    }
    int up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat above;
    if (up < 0 || fstat(up, &above) != 0 ||
        (above.st_dev == here.st_dev && above.st_ino == here.st_ino)) {
      if (up >= 0) {
        close(up);
      }
      break; /* the root */
    }
    close(cur);
    cur = up;
  }
  if (cur >= 0) {
    close(cur);
  }
  return 0;
}

/* Whether the entry `name` of `dir_fd` (of device `dev`) is a mount point. */
static int mount_point(int dir_fd, const char *name, dev_t dev) {
#ifdef STATX_ATTR_MOUNT_ROOT
  struct statx sx;
  if (statx(dir_fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) == 0 &&
      (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) != 0) {
    return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
  }
#endif
  struct stat st;
  return lstat_at(dir_fd, name, &st) != 0 || st.st_dev != dev;
}

/* Gives the folder `to` the extended attributes of `from` (ACLs among them), and only those. */
static int copy_xattrs(int from, int to) {
  ssize_t n = flistxattr(from, NULL, 0);
  if (n < 0) {
    return errno == ENOTSUP ? 0 : -1;
  }
  ssize_t m = flistxattr(to, NULL, 0);
  char *names = malloc((size_t)n + 1), *mine = malloc(m > 0 ? (size_t)m + 1 : 1), *value = NULL;
  int rc = names == NULL || mine == NULL ? -1 : 0;
  if (rc == 0) {
    n = flistxattr(from, names, (size_t)n);
    m = m > 0 ? flistxattr(to, mine, (size_t)m) : 0;
    rc = n < 0 || m < 0 ? -1 : 0;
  }
  for (ssize_t at = 0; rc == 0 && at < m; at += (ssize_t)strlen(mine + at) + 1) {
    int kept = 0;
    for (ssize_t k = 0; k < n && !kept; k += (ssize_t)strlen(names + k) + 1) {
      kept = strcmp(names + k, mine + at) == 0;
    }
    if (!kept && fremovexattr(to, mine + at) != 0) {
      rc = -1;
    }
  }
  for (ssize_t at = 0; rc == 0 && at < n; at += (ssize_t)strlen(names + at) + 1) {
    ssize_t size = fgetxattr(from, names + at, NULL, 0);
    char *grown = size >= 0 ? realloc(value, (size_t)size + 1) : NULL;
    if (grown == NULL) {
      rc = -1;
      break;
    }
    value = grown;
    size = fgetxattr(from, names + at, value, (size_t)size);
    if (size < 0 || fsetxattr(to, names + at, value, (size_t)size, 0) != 0) {
      rc = -1;
    }
  }
  free(names);
  free(mine);
  free(value);
  return rc;
}

/* Gives the staging folder OUTDIR's owner, group, mode and extended attributes. Returns 0, or -1
 * when this process cannot (the folder is then not exchanged). */
static int copy_attributes(int from, int to) {
  struct stat a, b;
  if (fstat(from, &a) != 0 || fstat(to, &b) != 0) {
    return -1;
  }
  if ((a.st_uid != b.st_uid || a.st_gid != b.st_gid) &&
      fchown(to, a.st_uid != b.st_uid ? a.st_uid : (uid_t)-1,
             a.st_gid != b.st_gid ? a.st_gid : (gid_t)-1) != 0) {
    return -1;
  }
  if (copy_xattrs(from, to) != 0 || fchmod(to, a.st_mode & 07777) != 0 || fstat(to, &b) != 0) {
    return -1;
  }
  return (a.st_mode & 07777) == (b.st_mode & 07777) ? 0 : -1;
}

/* Links each of OUTDIR's entries that is not an output into the staging folder. Returns 0, or 1
 * when OUTDIR holds a mount point (it cannot be exchanged), or -1 (errno set). */
static int carry_over(const out_commit *c, int ofd, const name_index *outputs) {
  struct stat st;
  if (fstat(ofd, &st) != 0) {
    return -1;
  }
  size_t n = 0;
  char **entries = list_entries(ofd, &n);
  if (entries == NULL) {
    return -1;
  }
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    const char *e = entries[i];
    struct stat es;
    if (index_has(outputs, e) || lstat_at(ofd, e, &es) != 0) {
      continue;
    }
    if (S_ISDIR(es.st_mode)) {
      rc = mount_point(ofd, e, st.st_dev) ? 1 : 0; /* a folder is moved after the exchange */
    } else {
      /* A file that cannot be linked (another user's, under protected_hardlinks) is moved after
       * the exchange too. */
      linkat(ofd, e, c->stage_fd, e, 0);
    }
  }
  free_entries(entries);
  return rc;
}

/* After the exchange: every entry of the old folder `old_fd` that is not an output moves into
 * the new one. Returns the number that could not (the first one's name and errno stored). */
static size_t give_back(int old_fd, int new_fd, const name_index *outputs, char *first, size_t size,
                        int *first_errno, size_t *moved) {
  size_t n = 0, failed = 0;
  char **entries = list_entries(old_fd, &n);
  if (entries == NULL) {
    *first_errno = errno;
    snprintf(first, size, ".");
    return 1;
  }
  for (size_t i = 0; i < n; i++) {
    struct stat was, is;
    /* An output the run replaced stays, and so does a file whose link was carried over: both go
     * with the old folder. */
    if (index_has(outputs, entries[i]) ||
        (lstat_at(old_fd, entries[i], &was) == 0 && lstat_at(new_fd, entries[i], &is) == 0 &&
         was.st_ino == is.st_ino && was.st_dev == is.st_dev)) {
      continue;
    }
    if (step_rename(old_fd, entries[i], new_fd, entries[i], 0) != 0) {
      if (failed++ == 0) {
        *first_errno = errno;
        snprintf(first, size, "%s", entries[i]);
      }
    } else {
      (*moved)++;
    }
  }
  free_entries(entries);
  return failed;
}

enum { EXCHANGED_OK = 0, NOT_EXCHANGED = -2 };

/* OUTDIR (open as `ofd`) exchanged with the staging folder. Returns 0, NOT_EXCHANGED (place the
 * files instead), or an exit status with `err` filled. */
static int exchange(const out_commit *c, int ofd, const name_index *outputs, tool_error *err) {
  if (cwd_inside(ofd) || copy_attributes(ofd, c->stage_fd) != 0) {
    return NOT_EXCHANGED;
  }
  int rc = carry_over(c, ofd, outputs);
  if (rc != 0) {
    return rc > 0 ? NOT_EXCHANGED
                  : tool_fail(err, CLI_EXIT_IOERR, "cannot read the folder '%s': %s",
                              c->folder_path, strerror(errno));
  }
  char path[PATH_MAX + 96];
  if (c->sync && sync_fd(c->stage_fd) != 0) {
    return tool_fail(err, CLI_EXIT_IOERR, "cannot sync the staging folder '%s': %s",
                     staged(c, NULL, path, sizeof path), strerror(errno));
  }
  rc = journal_write(c, "exchange", c->folder, err);
  if (rc != 0) {
    return rc;
  }
  if (step_rename(c->dir_fd, c->stage_name, c->dir_fd, c->folder, RENAME_EXCHANGE) != 0) {
    int e = errno;
    journal_remove(c->dir_fd, c->stage_name);
    if (unsupported(e) || e == EXDEV || e == EBUSY) {
      return NOT_EXCHANGED;
    }
    return tool_fail(err, CLI_EXIT_IOERR,
                     "cannot exchange the staging folder '%s' with '%s': %s; nothing was changed",
                     staged(c, NULL, path, sizeof path), c->folder_path, strerror(e));
  }
  /* The new folder is in place: what follows cannot fail the run, only leave work to the next. */
  if (c->sync && sync_fd(c->dir_fd) != 0) {
    cli_warning("cannot sync the folder of '%s': %s", c->folder_path, strerror(errno));
  }
  char first[NAME_MAX + 1] = "";
  int first_errno = 0;
  size_t moved = 0;
  size_t failed = give_back(ofd, c->stage_fd, outputs, first, sizeof first, &first_errno, &moved);
  if (failed > 0) {
    tool_error w;
    tool_fail(&w, 0,
              "'%s' was replaced, but %zu %s of the folder it replaced could not be put back into "
              "it (the first, '%s': %s); %s in '%s', and the next run into '%s' tries again",
              c->folder_path, failed, tool_plural(failed, "entry", "entries"), first,
              strerror(first_errno), tool_plural(failed, "it is", "they are"),
              staged(c, NULL, path, sizeof path), c->folder_path);
    tool_scrub(&w);
    cli_warning("%s", w.message);
    return 0;
  }
  journal_remove(c->dir_fd, c->stage_name);
  if (c->sync && sync_fd(c->stage_fd) != 0) {
    cli_warning("cannot sync the folder '%s': %s", c->folder_path, strerror(errno));
  }
  /* What is left of the old folder: the outputs it had, and links of what moved. */
  if (out_remove_tree(c->dir_fd, c->stage_name, NULL, NULL) != 0) {
    cli_warning("cannot remove '%s', the folder '%s' was before this run: %s (the next run into "
                "'%s' removes it)",
                staged(c, NULL, path, sizeof path), c->folder_path, strerror(errno),
                c->folder_path);
  }
  return 0;
}

/* A folder of the run's own: renamed into place, or exchanged with the existing one, or (when it
 * cannot be exchanged) its files placed one by one. */
static int commit_folder(const out_commit *c, tool_error *err) {
  char path[PATH_MAX + 96];
  struct stat st;
  if (lstat_at(c->dir_fd, c->folder, &st) != 0) {
    if (errno != ENOENT) {
      return tool_fail(err, CLI_EXIT_IOERR, "cannot read the output folder '%s': %s",
                       c->folder_path, strerror(errno));
    }
    if (c->sync && sync_fd(c->stage_fd) != 0) {
      return tool_fail(err, CLI_EXIT_IOERR, "cannot sync the staging folder '%s': %s",
                       staged(c, NULL, path, sizeof path), strerror(errno));
    }
    int rc = step_rename(c->dir_fd, c->stage_name, c->dir_fd, c->folder, RENAME_NOREPLACE);
    if (rc != 0 && unsupported(errno)) {
      /* No RENAME_NOREPLACE here: a plain rename, which fails on a folder that is not empty. */
      rc = lstat_at(c->dir_fd, c->folder, &st) == 0
               ? (errno = EEXIST, -1)
               : renameat(c->dir_fd, c->stage_name, c->dir_fd, c->folder);
    }
    if (rc == 0) {
      if (c->sync && sync_fd(c->dir_fd) != 0) {
        return tool_fail(err, CLI_EXIT_IOERR, "cannot sync the folder of '%s': %s", c->folder_path,
                         strerror(errno));
      }
      return 0;
    }
    if (errno != EEXIST) {
      return tool_fail(err, CLI_EXIT_IOERR, "cannot rename the staging folder '%s' to '%s': %s",
                       staged(c, NULL, path, sizeof path), c->folder_path, strerror(errno));
    }
    /* The folder appeared meanwhile: it is an existing one now. */
  }
  int ofd = open_dir_at(c->dir_fd, c->folder);
  if (ofd < 0) {
    return tool_fail(err, errno == ENOTDIR || errno == ELOOP ? CLI_EXIT_CANTCREAT : CLI_EXIT_IOERR,
                     "cannot create the output folder '%s': %s", c->folder_path,
                     strerror(errno == ELOOP ? ENOTDIR : errno));
  }
  /* The runs that write files into OUTDIR itself commit under its lock. */
  if (out_commit_lock(ofd) != 0) {
    long pid = out_commit_holder(ofd);
    close(ofd);
    char who[64] = "";
    if (pid > 0) {
      snprintf(who, sizeof who, " (pid %ld)", pid);
    }
    return tool_fail(err, CLI_EXIT_CANTCREAT,
                     "another cleave run%s has been committing into '%s' for a minute; nothing "
                     "was written",
                     who, c->folder_path);
  }
  int rc = check_targets(c, ofd, err);
  name_index outputs = {NULL, 0};
  if (rc == 0 && index_make(&outputs, c->names, c->count) != 0) {
    rc = tool_oom(err, "committing the outputs");
  }
  if (rc == 0) {
    rc = exchange(c, ofd, &outputs, err);
  }
  if (rc == NOT_EXCHANGED) {
    rc = place_files(c, ofd, c->folder, err);
  }
  free(outputs.sorted);
  close(ofd);
  return rc;
}

long out_commit_holder(int dir_fd) {
  DIR *dir = out_dir_entries(dir_fd);
  if (dir == NULL) {
    return 0;
  }
  long pid = 0;
  size_t k = strlen(OUT_JOURNAL_SUFFIX);
  struct dirent *e;
  while (pid == 0 && (e = readdir(dir)) != NULL) {
    const char *mark = strstr(e->d_name, OUT_TEMP_MARK);
    size_t n = strlen(e->d_name);
    if (out_temp_name(e->d_name) && n > k && strcmp(e->d_name + n - k, OUT_JOURNAL_SUFFIX) == 0) {
      char *end = NULL;
      long v = strtol(mark + strlen(OUT_TEMP_MARK), &end, 10);
      pid = end != NULL && *end == '-' && v > 0 ? v : 0;
    }
  }
  closedir(dir);
  return pid;
}

int out_commit_run(const out_commit *c, tool_error *err) {
  memset(err, 0, sizeof *err);
  if (c->folder != NULL) {
    return commit_folder(c, err);
  }
  return place_files(c, c->target_fd, ".", err);
}

/* ---- a dead run's commit ------------------------------------------------------------------- */

int out_commit_recover(int dir_fd, out_temp *t, char *note, size_t size) {
  note[0] = '\0';
  t->bytes = 0;
  t->files = 0;
  if (!t->is_dir) {
    return out_remove_tree(dir_fd, t->name, &t->bytes, &t->files);
  }
  journal j;
  uint64_t journal_bytes = 0;
  int have = journal_read(dir_fd, t->name, &j, &journal_bytes);
  if (have < 0) {
    snprintf(note, size, "out of memory reading its journal");
    return -1;
  }
  size_t undone = 0, restored = 0, failed = 0;
  int first_errno = 0;
  if (have && strcmp(j.kind, "exchange") == 0) {
    struct stat st;
    if (lstat_at(dir_fd, j.target, &st) == 0 && st.st_ino == j.stage_ino) {
      /* The exchange was made: this is the old folder, whose other entries go back. */
      int tfd = open_dir_at(dir_fd, j.target);
      name_index outputs = {NULL, 0};
      char first[NAME_MAX + 1];
      if (tfd < 0 || index_make(&outputs, (char *const *)j.names, j.count) != 0) {
        failed = 1;
        first_errno = tfd < 0 ? errno : ENOMEM;
      } else {
        failed = give_back(t->fd, tfd, &outputs, first, sizeof first, &first_errno, &restored);
      }
      free(outputs.sorted);
      if (tfd >= 0) {
        close(tfd);
      }
      if (failed == 0) {
        snprintf(note, size,
                 "; it had replaced '%s' already, and %zu %s of the folder it replaced %s put "
                 "back into it",
                 j.target, restored, tool_plural(restored, "entry", "entries"),
                 tool_plural(restored, "was", "were"));
      }
    }
  } else if (have && strcmp(j.kind, "place") == 0) {
    int tfd = strcmp(j.target, ".") == 0 ? dir_fd : open_dir_at(dir_fd, j.target);
    /* Files replaced where no exchange could be made are kept there (keep_replaced). */
    int rfd = open_dir_at(t->fd, REPLACED_DIR);
    for (size_t i = 0; tfd >= 0 && i < j.count; i++) {
      struct stat st, old;
      int placed = lstat_at(tfd, j.names[i], &st) == 0;
      if (!placed && errno == ENOENT && rfd >= 0 && lstat_at(rfd, j.names[i], &old) == 0) {
        /* Moved aside, and the run died before the output took its place. */
        if (renameat(rfd, j.names[i], tfd, j.names[i]) != 0) {
          first_errno = failed++ == 0 ? errno : first_errno;
        }
        continue;
      }
      if (!placed || st.st_ino != j.inos[i]) {
        continue; /* not put in place */
      }
      /* The file it replaced is in the staging folder, under its name (exchanged) or in
       * REPLACED_DIR, when there was one. */
      int from = lstat_at(t->fd, j.names[i], &old) == 0             ? t->fd
                 : rfd >= 0 && lstat_at(rfd, j.names[i], &old) == 0 ? rfd
                                                                    : -1;
      int had_old = from >= 0;
      int rc = had_old ? renameat(from, j.names[i], tfd, j.names[i]) : unlinkat(tfd, j.names[i], 0);
      if (rc != 0) {
        first_errno = failed++ == 0 ? errno : first_errno;
      } else {
        undone++;
        restored += (size_t)had_old;
      }
    }
    if (rfd >= 0) {
      close(rfd);
    }
    if (tfd < 0) {
      failed = 1;
      first_errno = errno;
    } else if (tfd != dir_fd) {
      close(tfd);
    }
    if (failed == 0 && undone > 0) {
      snprintf(note, size,
               "; its commit had begun: the %zu %s it had put in place %s taken back (%zu old "
               "%s restored)",
               undone, tool_plural(undone, "output", "outputs"), tool_plural(undone, "was", "were"),
               restored, tool_plural(restored, "file", "files"));
    }
  }
  if (failed > 0) {
    snprintf(note, size,
             "; but its commit could not be finished or undone (%zu %s: %s), and it is left for "
             "the next run",
             failed, tool_plural(failed, "entry", "entries"), strerror(first_errno));
    if (have) {
      journal_free(&j);
    }
    return -1;
  }
  if (have) {
    journal_free(&j);
  }
  journal_remove(dir_fd, t->name);
  t->bytes += journal_bytes;
  t->files += journal_bytes > 0;
  return out_remove_tree(dir_fd, t->name, &t->bytes, &t->files);
}
