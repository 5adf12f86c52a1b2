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

/* Signal-handler state. The handler may read only these: temporaries 0..g_created-1 are named
 * g_temp_head, the index in decimal, then g_temp_tail. g_created is raised before each creation,
 * so a file can never exist without the handler knowing it. */
static char g_temp_head[PATH_MAX];
static char g_temp_tail[64];
static atomic_size_t g_created;

/* SIGPIPE: the report on stdout is written before the commit, and may meet a closed pipe. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define CLEANUP_SIGNAL_COUNT (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Writes head, i in decimal and tail to buf; async-signal-safe (no stdio). */
static void compose(char *buf, size_t size, const char *head, size_t i, const char *tail) {
  char digits[24];
  size_t nd = 0;
  do {
    digits[nd++] = (char)('0' + i % 10);
    i /= 10;
  } while (i != 0);
  size_t pos = 0;
  for (const char *c = head; *c != '\0' && pos + 1 < size; c++) {
    buf[pos++] = *c;
  }
  while (nd > 0 && pos + 1 < size) {
    buf[pos++] = digits[--nd];
  }
  for (const char *c = tail; *c != '\0' && pos + 1 < size; c++) {
    buf[pos++] = *c;
  }
  buf[pos] = '\0';
}

static void temp_path(size_t i, char *buf, size_t size) {
  compose(buf, size, g_temp_head, i, g_temp_tail);
}

static void remove_temporaries(void) {
  char path[PATH_MAX + 96];
  size_t n = atomic_load(&g_created);
  for (size_t i = 0; i < n; i++) {
    temp_path(i, path, sizeof path);
    unlink(path);
  }
  atomic_store(&g_created, 0);
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

int out_set_init(out_set *set, const char *prefix, size_t count, int force, int sync) {
  memset(set, 0, sizeof *set);
  set->count = count;
  set->force = force;
  set->sync = sync;
  size_t len = strlen(prefix);
  if (len + 96 > sizeof g_temp_head) {
    return cli_error(CLI_EXIT_CANTCREAT, "the output prefix '%s' is too long", prefix);
  }
  const char *slash = strrchr(prefix, '/');
  size_t dir_len = slash != NULL ? (size_t)(slash - prefix) + 1 : 0;
  set->final_head = malloc(len + 2);
  set->dir = malloc(dir_len + 2);
  if (set->final_head == NULL || set->dir == NULL) {
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
  snprintf(g_temp_head, sizeof g_temp_head, "%.*s.%s_", (int)dir_len, prefix, prefix + dir_len);
  snprintf(g_temp_tail, sizeof g_temp_tail, ".npy.cleave-tmp-%ld-%08x", (long)getpid(),
           (unsigned)random_tag());
  return 0;
}

void out_set_final_path(const out_set *set, size_t i, char *buf, size_t size) {
  compose(buf, size, set->final_head, i, ".npy");
}

int out_set_create(out_set *set) {
  char path[PATH_MAX + 96];
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
  install_handlers();
  set->active = 1;
  for (size_t i = 0; i < set->count; i++) {
    temp_path(i, path, sizeof path);
    atomic_store(&g_created, i + 1);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      int e = errno;
      char final[PATH_MAX + 96];
      out_set_final_path(set, i, final, sizeof final);
      out_set_abort(set);
      return cli_error(CLI_EXIT_CANTCREAT, "cannot create output '%s' (as '%s'): %s%s", final, path,
                       strerror(e), e == ENOENT ? " (the output directory is not created)" : "");
    }
    close(fd);
  }
  return 0;
}

int out_set_open(const out_set *set, size_t i, int *fd) {
  char path[PATH_MAX + 96];
  (void)set;
  temp_path(i, path, sizeof path);
  *fd = open(path, O_WRONLY | O_CLOEXEC);
  if (*fd < 0) {
    return cli_error(CLI_EXIT_IOERR, "cannot open the temporary output '%s': %s", path,
                     strerror(errno));
  }
  return 0;
}

int out_set_close(const out_set *set, size_t i, int fd) {
  int failed = set->sync && fsync(fd) != 0;
  int e = errno;
  if (close(fd) != 0 && !failed) {
    failed = 1;
    e = errno;
  }
  if (failed) {
    char path[PATH_MAX + 96];
    out_set_final_path(set, i, path, sizeof path);
    return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", path, strerror(e));
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
  char from[PATH_MAX + 96], to[PATH_MAX + 96];
  sigset_t old;
  block_signals(&old);
  int status = 0;
  size_t done = 0;
  int e = 0;
  for (; done < set->count; done++) {
    temp_path(done, from, sizeof from);
    out_set_final_path(set, done, to, sizeof to);
    int rc = set->force ? rename(from, to) : rename_noreplace(from, to);
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
        char path[PATH_MAX + 96];
        out_set_final_path(set, k, path, sizeof path);
        unlink(path);
      }
    }
    /* `from` still names the temporary that failed, for the message below. */
    for (size_t k = done; k < set->count; k++) {
      char path[PATH_MAX + 96];
      temp_path(k, path, sizeof path);
      unlink(path);
    }
    if (e == EEXIST) {
      cli_error(status,
                "output '%s' appeared while the outputs were written; nothing was "
                "written (use -f/--force to overwrite it)",
                to);
    } else if (set->force && done > 0) {
      cli_error(status,
                "cannot rename '%s' to '%s': %s; the first %zu outputs were already "
                "replaced",
                from, to, strerror(e), done);
    } else {
      cli_error(status, "cannot rename '%s' to '%s': %s", from, to, strerror(e));
    }
  }
  atomic_store(&g_created, 0);
  set->active = 0;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (status == 0 && set->sync) {
    int dfd = open(set->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
      status = cli_error(CLI_EXIT_IOERR, "cannot sync the directory '%s': %s", set->dir,
                         strerror(errno));
    }
    if (dfd >= 0) {
      close(dfd);
    }
  }
  return status;
}

void out_set_abort(out_set *set) {
  if (set->active) {
    sigset_t old;
    block_signals(&old);
    remove_temporaries();
    set->active = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
  }
}

void out_set_free(out_set *set) {
  free(set->final_head);
  free(set->dir);
  set->final_head = NULL;
  set->dir = NULL;
}
