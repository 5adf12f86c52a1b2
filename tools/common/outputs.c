/* All-or-nothing output files: temporaries, signal clean-up, commit by rename. */
#include "outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "io.h"
#include "outputs_stale.h"

/* The size of the buffers paths are composed in. A prefix set's paths always fit (out_set_init
 * refuses a longer prefix); a temporary of a folder set that does not fit is longer than PATH_MAX,
 * so no system call could create it: composing it fails. */
#define PATH_BUF OUT_PATH_BUF

/* Signal-handler state. The handler may read only these: temporaries 0..g_created-1 are named
 * g_temp_head, the index in decimal, then g_temp_tail; g_made_dir (when not NULL) is the folder
 * this run created. All are set before the handlers are installed, and g_created is raised before
 * each creation, so a file can never exist without the handler knowing it. */
static const char *volatile g_temp_head;
static const char *volatile g_temp_tail;
static const char *volatile g_made_dir;
static atomic_size_t g_created;

/* SIGPIPE: the report on stdout is written before the commit, and may meet a closed pipe. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define CLEANUP_SIGNAL_COUNT (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Writes head, i in decimal and tail to buf; async-signal-safe (no stdio). Returns 0, or -1 when
 * the result was shortened to fit. */
static int compose(char *buf, size_t size, const char *head, size_t i, const char *tail) {
  char digits[24];
  size_t nd = 0;
  do {
    digits[nd++] = (char)('0' + i % 10);
    i /= 10;
  } while (i != 0);
  size_t pos = 0;
  const char *c = head;
  for (; *c != '\0' && pos + 1 < size; c++) {
    buf[pos++] = *c;
  }
  int cut = *c != '\0';
  while (nd > 0 && pos + 1 < size) {
    buf[pos++] = digits[--nd];
  }
  cut |= nd > 0;
  for (c = tail; *c != '\0' && pos + 1 < size; c++) {
    buf[pos++] = *c;
  }
  cut |= *c != '\0';
  buf[pos] = '\0';
  return cut ? -1 : 0;
}

/* The path of temporary i in buf; -1 when it does not fit (then no such file can exist). */
static int temp_path(size_t i, char *buf, size_t size) {
  return compose(buf, size, g_temp_head, i, g_temp_tail);
}

static void remove_temporaries(void) {
  char path[PATH_BUF];
  size_t n = atomic_load(&g_created);
  for (size_t i = 0; i < n; i++) {
    if (temp_path(i, path, sizeof path) == 0) {
      unlink(path);
    }
  }
  atomic_store(&g_created, 0);
  if (g_made_dir != NULL) {
    rmdir(g_made_dir);
  }
}

static void on_fatal_signal(int sig) {
  int saved = errno;
  remove_temporaries();
  errno = saved;
  /* SA_RESETHAND restored the default action; the signal is blocked until we return, then kills
   * the process with the status its sender expects. */
  raise(sig);
}

static void install_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = (int)(SA_RESETHAND | SA_RESTART);
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++) {
    sigaddset(&sa.sa_mask, cleanup_signals[i]);
  }
  for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++) {
    struct sigaction old;
    /* A signal the caller ignores (nohup, background jobs) stays ignored. */
    if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
      continue;
    }
    sigaction(cleanup_signals[i], &sa, NULL);
  }
  signal(SIGXFSZ, SIG_IGN);
}

static void block_signals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++) {
    sigaddset(&set, cleanup_signals[i]);
  }
  sigprocmask(SIG_BLOCK, &set, old);
}

static uint32_t random_tag(void) {
  uint32_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    r = (uint32_t)time(NULL) ^ (uint32_t)clock() * 2654435761u;
  }
  return r;
}

const char *out_set_final(const out_set *set, size_t i, char *buf, size_t size) {
  if (set->folder) {
    return set->finals[i];
  }
  compose(buf, size, set->final_head, i, ".npy");
  return buf;
}

int out_set_init(out_set *set, const char *prefix, size_t count, int force, int sync) {
  memset(set, 0, sizeof *set);
  set->count = count;
  set->force = force;
  set->sync = sync;
  size_t len = strlen(prefix);
  if (len + 96 > PATH_MAX) {
    return cli_error(CLI_EXIT_CANTCREAT, "the output prefix '%s' is too long", prefix);
  }
  const char *slash = strrchr(prefix, '/');
  size_t dir_len = slash != NULL ? (size_t)(slash - prefix) + 1 : 0;
  set->final_head = malloc(len + 2);
  set->dir = malloc(dir_len + 2);
  set->temp_head = malloc(len + 3);
  set->temp_tail = malloc(64);
  if (set->final_head == NULL || set->dir == NULL || set->temp_head == NULL ||
      set->temp_tail == NULL) {
    out_set_free(set);
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  snprintf(set->final_head, len + 2, "%s_", prefix);
  if (dir_len == 0) {
    strcpy(set->dir, ".");
  } else {
    memcpy(set->dir, prefix, dir_len);
    set->dir[dir_len] = '\0';
  }
  snprintf(set->temp_head, len + 3, "%.*s.%s_", (int)dir_len, prefix, prefix + dir_len);
  snprintf(set->temp_tail, 64, ".npy.cleave-tmp-%ld-%08x", (long)getpid(), (unsigned)random_tag());
  return 0;
}

static int same_file(const char *path, const struct stat *st) {
  struct stat in;
  return stat(path, &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino;
}

/* A named output of a folder or file set that exists: refused when it is a directory, and
 * without --force, naming it "one of the inputs" when it is. */
static int check_existing(const char *final, const char *const *inputs, size_t input_count,
                          int force) {
  struct stat st;
  if (lstat(final, &st) != 0) {
    return 0;
  }
  if (S_ISDIR(st.st_mode)) {
    return cli_error(CLI_EXIT_CANTCREAT, "output '%s' exists and is a directory", final);
  }
  if (!force) {
    struct stat target;
    int input = 0;
    if (stat(final, &target) == 0) {
      for (size_t k = 0; k < input_count && !input; k++) {
        input = same_file(inputs[k], &target);
      }
    }
    return cli_error(CLI_EXIT_CANTCREAT, "output '%s' %s (use -f/--force to replace it%s)", final,
                     input ? "is one of the inputs" : "exists",
                     input ? "; the input is then replaced by a new file, never written in "
                             "place"
                           : "");
  }
  return 0;
}

int out_set_init_folder(out_set *set, const char *dir, char *const *names, size_t count,
                        const char *const *inputs, size_t input_count, int force, int sync,
                        int replace_last) {
  memset(set, 0, sizeof *set);
  set->folder = 1;
  set->replace_last = replace_last;
  set->count = count;
  set->force = force;
  set->sync = sync;
  size_t n = strlen(dir);
  set->dir = malloc(n + 2);
  set->finals = calloc(count + 1, sizeof *set->finals);
  set->temp_head = malloc(n + 64);
  set->temp_tail = calloc(1, 1);
  if (set->dir == NULL || set->finals == NULL || set->temp_head == NULL || set->temp_tail == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  snprintf(set->dir, n + 2, "%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/");
  snprintf(set->temp_head, n + 64, "%s.cleave-tmp-%ld-%08x-", set->dir, (long)getpid(),
           (unsigned)random_tag());
  for (size_t i = 0; i < count; i++) {
    if (asprintf(&set->finals[i], "%s%s", set->dir, names[i]) < 0) {
      set->finals[i] = NULL;
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    /* The last output of a set that asks for it (a manifest) replaces its earlier run's. */
    int rc = check_existing(set->finals[i], inputs, input_count,
                            force || (replace_last && i + 1 == count));
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

int out_set_init_file(out_set *set, const char *path, const char *const *inputs, size_t input_count,
                      int force, int sync) {
  memset(set, 0, sizeof *set);
  set->folder = 1;
  set->file = 1;
  set->count = 1;
  set->force = force;
  set->sync = sync;
  size_t len = strlen(path);
  if (len == 0 || path[len - 1] == '/') {
    return cli_error(CLI_EXIT_CANTCREAT, "output '%s' names a directory, not a file", path);
  }
  if (len + 96 > PATH_MAX) {
    return cli_error(CLI_EXIT_CANTCREAT, "the output path '%s' is too long", path);
  }
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash != NULL ? (size_t)(slash - path) + 1 : 0;
  set->finals = calloc(2, sizeof *set->finals);
  set->dir = malloc(dir_len + 2);
  set->temp_head = malloc(len + 64);
  set->temp_tail = calloc(1, 1);
  if (set->finals == NULL || set->dir == NULL || set->temp_head == NULL || set->temp_tail == NULL ||
      (set->finals[0] = strdup(path)) == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (dir_len == 0) {
    strcpy(set->dir, ".");
  } else {
    memcpy(set->dir, path, dir_len);
    set->dir[dir_len] = '\0';
  }
  /* "DIR/.NAME.cleave-tmp-PID-RANDOM-0", beside the output as a prefix set's temporaries. */
  snprintf(set->temp_head, len + 64, "%.*s.%s.cleave-tmp-%ld-%08x-", (int)dir_len, path,
           path + dir_len, (long)getpid(), (unsigned)random_tag());
  return check_existing(path, inputs, input_count, force);
}

void out_set_limit_mode(out_set *set, unsigned widest) {
  set->limit = OUT_MODE_SET | (widest & 0066);
}

int out_set_copy_mode(out_set *set, size_t i, unsigned mode) {
  if (set->modes == NULL && (set->modes = calloc(set->count + 1, sizeof *set->modes)) == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  set->modes[i] = OUT_MODE_SET | (mode & 0777);
  return 0;
}

/* The bits output i is created with (open applies the umask). A copy of a file that denies its
 * owner reading or writing is created with them, so that the run can write it, and given its
 * own bits when closed. */
static mode_t create_mode(const out_set *set, size_t i) {
  if (set->modes != NULL && (set->modes[i] & OUT_MODE_SET) != 0) {
    return (mode_t)((set->modes[i] & 0777) | S_IRUSR | S_IWUSR);
  }
  return 0666;
}

/* After creating output i (open as fd) with create_mode: the bits its group and others may not
 * have removed (out_set_limit_mode); a copy that denies its owner reading or writing marked to
 * be given its own bits by out_set_close. Returns 0 or the errno of a failed call. */
static int settle_mode(out_set *set, size_t i, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return errno;
  }
  mode_t made = st.st_mode & 0777;
  if (set->modes != NULL && (set->modes[i] & OUT_MODE_SET) != 0) {
    mode_t want = made & (mode_t)((set->modes[i] & 0777) | ~(unsigned)(S_IRUSR | S_IWUSR));
    if (want != made) {
      set->modes[i] = OUT_MODE_SET | OUT_MODE_FIX | want;
    }
    return 0;
  }
  if (set->limit != 0 && (made & ~(mode_t)(set->limit | 0700)) != 0) {
    return fchmod(fd, made & (mode_t)(set->limit | 0700)) != 0 ? errno : 0;
  }
  return 0;
}

void out_set_watch_stale(out_set *set, const char *const *suffixes) {
  set->stale_suffixes = suffixes;
}

void out_set_final_path(const out_set *set, size_t i, char *buf, size_t size) {
  if (set->folder) {
    snprintf(buf, size, "%s", set->finals[i]);
  } else {
    compose(buf, size, set->final_head, i, ".npy");
  }
}

/* Prefix sets: refuses existing outputs. Folder sets (checked by out_set_init_folder): creates
 * the folder when missing. */
static int prepare(out_set *set) {
  if (set->file) {
    return 0; /* checked by out_set_init_file; its directory is never created */
  }
  if (set->folder) {
    struct stat st;
    if (stat(set->dir, &st) != 0) {
      if (errno != ENOENT || mkdir(set->dir, 0777) != 0) {
        return cli_error(CLI_EXIT_CANTCREAT, "cannot create the output folder '%s': %s", set->dir,
                         strerror(errno));
      }
      set->made_dir = 1;
    } else if (!S_ISDIR(st.st_mode)) {
      return cli_error(CLI_EXIT_CANTCREAT, "the output folder '%s' is not a folder", set->dir);
    }
    return 0;
  }
  char path[PATH_BUF];
  for (size_t i = 0; i < set->count; i++) {
    out_set_final_path(set, i, path, sizeof path);
    struct stat st;
    if (lstat(path, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        return cli_error(CLI_EXIT_CANTCREAT, "output '%s' exists and is a directory", path);
      }
      if (!set->force) {
        return cli_error(CLI_EXIT_CANTCREAT, "output '%s' exists (use -f/--force to overwrite it)",
                         path);
      }
    }
  }
  return 0;
}

int out_set_create(out_set *set) {
  int rc = prepare(set);
  if (rc != 0) {
    return rc;
  }
  atomic_store(&g_created, 0);
  g_temp_head = set->temp_head;
  g_temp_tail = set->temp_tail;
  g_made_dir = set->made_dir ? set->dir : NULL;
  install_handlers();
  set->active = 1;
  char path[PATH_BUF];
  for (size_t i = 0; i < set->count; i++) {
    atomic_store(&g_created, i + 1);
    int fd = -1;
    int e = ENAMETOOLONG;
    if (temp_path(i, path, sizeof path) == 0) {
      fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, create_mode(set, i));
      e = errno;
      if (fd >= 0 && (e = settle_mode(set, i, fd)) != 0) {
        close(fd);
        fd = -1;
      }
    }
    if (fd < 0) {
      char buf[PATH_BUF];
      const char *final = out_set_final(set, i, buf, sizeof buf);
      out_set_abort(set);
      char reason[256];
      return cli_error(io_resource_limit(e) ? CLI_EXIT_SOFTWARE : CLI_EXIT_CANTCREAT,
                       "cannot create output '%s' (as '%s'): %s%s", final, path,
                       io_open_reason(e, reason, sizeof reason),
                       e == ENOENT && (!set->folder || set->file)
                           ? " (the output directory is not created)"
                           : "");
    }
    close(fd);
  }
  return 0;
}

/* Opens temporary i with `flags`; `what` says what for in the message. */
static int open_temp(size_t i, int flags, const char *what, int *fd) {
  char path[PATH_BUF];
  *fd = -1;
  errno = ENAMETOOLONG;
  if (temp_path(i, path, sizeof path) == 0) {
    *fd = open(path, flags | O_CLOEXEC);
  }
  if (*fd < 0) {
    /* Too many files open at once is a resource limit (70), named with its value. */
    int e = errno;
    char reason[256];
    return cli_error(io_resource_limit(e) ? CLI_EXIT_SOFTWARE : CLI_EXIT_IOERR,
                     "cannot %s the temporary output '%s': %s", what, path,
                     io_open_reason(e, reason, sizeof reason));
  }
  return 0;
}

int out_set_open(const out_set *set, size_t i, int *fd) {
  (void)set;
  return open_temp(i, O_WRONLY, "open", fd);
}

int out_set_open_read(const out_set *set, size_t i, int *fd) {
  (void)set;
  return open_temp(i, O_RDONLY, "read back", fd);
}

int out_set_close(const out_set *set, size_t i, int fd) {
  int failed = set->modes != NULL && (set->modes[i] & OUT_MODE_FIX) != 0 &&
               fchmod(fd, (mode_t)(set->modes[i] & 0777)) != 0;
  failed = failed || (set->sync && fsync(fd) != 0);
  int e = errno;
  if (close(fd) != 0 && !failed) {
    failed = 1;
    e = errno;
  }
  if (failed) {
    char buf[PATH_BUF];
    return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s",
                     out_set_final(set, i, buf, sizeof buf), strerror(e));
  }
  return 0;
}

/* Renames without replacing an existing file. Returns 0 or -1 with errno (EEXIST when the
 * target exists). */
static int rename_noreplace(const char *from, const char *to) {
  if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) {
    return 0;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
    return -1;
  }
  /* A file system without RENAME_NOREPLACE: link() also fails on an existing target. */
  if (link(from, to) == 0) {
    unlink(from);
    return 0;
  }
  return -1;
}

int out_set_commit(out_set *set) {
  char from[PATH_BUF], buf[PATH_BUF];
  const char *to = NULL;
  sigset_t old;
  block_signals(&old);
  int status = 0;
  size_t done = 0;
  int e = 0;
  for (; done < set->count; done++) {
    /* Every temporary exists (out_set_create), so its path fits. */
    temp_path(done, from, sizeof from);
    to = out_set_final(set, done, buf, sizeof buf);
    int replace = set->force || (set->replace_last && done + 1 == set->count);
    int rc = replace ? rename(from, to) : rename_noreplace(from, to);
    if (rc != 0) {
      e = errno;
      break;
    }
  }
  if (done < set->count) {
    status = e == EEXIST ? CLI_EXIT_CANTCREAT : CLI_EXIT_IOERR;
    if (!set->force) {
      /* These outputs did not exist before (the commit refuses to replace): remove them. */
      for (size_t k = 0; k < done; k++) {
        char path[PATH_BUF];
        unlink(out_set_final(set, k, path, sizeof path));
      }
    }
    /* `from` and `to` still name the temporary that failed, for the message below. */
    for (size_t k = done; k < set->count; k++) {
      char path[PATH_BUF];
      if (temp_path(k, path, sizeof path) == 0) {
        unlink(path);
      }
    }
    if (set->made_dir) {
      rmdir(set->dir);
    }
    if (e == EEXIST) {
      cli_error(status,
                "output '%s' appeared while the outputs were written; nothing was "
                "written (use -f/--force to overwrite it)",
                to);
    } else if (set->force && done > 0) {
      cli_error(status, "cannot rename '%s' to '%s': %s; the first %zu %s already replaced", from,
                to, strerror(e), done, done == 1 ? "output was" : "outputs were");
    } else {
      cli_error(status, "cannot rename '%s' to '%s': %s", from, to, strerror(e));
    }
  }
  atomic_store(&g_created, 0);
  g_made_dir = NULL;
  set->active = 0;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (status == 0 && set->sync) {
    int dfd = open(set->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
      status =
          cli_error(CLI_EXIT_IOERR, "cannot sync the %s '%s': %s",
                    set->folder && !set->file ? "folder" : "directory", set->dir, strerror(errno));
    }
    if (dfd >= 0) {
      close(dfd);
    }
  }
  if (status == 0) {
    out_stale_warn(set);
  }
  return status;
}

void out_set_abort(out_set *set) {
  if (set->active) {
    sigset_t old;
    block_signals(&old);
    remove_temporaries();
    g_made_dir = NULL;
    set->active = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
  }
}

void out_set_free(out_set *set) {
  if (set->finals != NULL) {
    for (size_t i = 0; i < set->count; i++) {
      free(set->finals[i]);
    }
  }
  free(set->finals);
  free(set->final_head);
  free(set->temp_head);
  free(set->temp_tail);
  free(set->dir);
  free(set->modes);
  memset(set, 0, sizeof *set);
}
