/* All-or-nothing named outputs in one folder. */
#include "st_outdir.h"

#include <errno.h>
#include <fcntl.h>
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

/* Signal-handler state: temporaries 0..g_created-1 are g_temps[i]; g_dir is removed too when
 * this run made it. Everything is prepared before the handlers are installed. */
static char *const *g_temps;
static atomic_size_t g_created;
static const char *g_made_dir;

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define CLEANUP_COUNT (sizeof cleanup_signals / sizeof cleanup_signals[0])

static void remove_all(void) {
  size_t n = atomic_load(&g_created);
  for (size_t i = 0; i < n; i++) {
    unlink(g_temps[i]);
  }
  atomic_store(&g_created, 0);
  if (g_made_dir != NULL) {
    rmdir(g_made_dir);
  }
}

static void on_signal(int sig) {
  int saved = errno;
  remove_all();
  errno = saved;
  raise(sig); /* SA_RESETHAND: the default action kills the process with this signal */
}

static void install_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = (int)(SA_RESETHAND | SA_RESTART);
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < CLEANUP_COUNT; i++) {
    sigaddset(&sa.sa_mask, cleanup_signals[i]);
  }
  for (size_t i = 0; i < CLEANUP_COUNT; i++) {
    struct sigaction old;
    if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
      continue; /* ignored by whoever started us: stays ignored */
    }
    sigaction(cleanup_signals[i], &sa, NULL);
  }
  signal(SIGXFSZ, SIG_IGN);
}

static void block_signals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < CLEANUP_COUNT; i++) {
    sigaddset(&set, cleanup_signals[i]);
  }
  sigprocmask(SIG_BLOCK, &set, old);
}

static char *path_of(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 1;
  char *p = malloc(n);
  if (p != NULL) {
    snprintf(p, n, "%s%s", dir, name);
  }
  return p;
}

void st_outdir_free(st_outdir *o) {
  for (size_t i = 0; i < o->count; i++) {
    if (o->finals != NULL) {
      free(o->finals[i]);
    }
    if (o->temps != NULL) {
      free(o->temps[i]);
    }
  }
  free(o->finals);
  free(o->temps);
  free(o->dir);
  memset(o, 0, sizeof *o);
}

static int is_input(const st_model *m, const struct stat *st) {
  for (size_t i = 0; i < m->file_count; i++) {
    struct stat in;
    if (stat(m->files[i].path, &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino) {
      return 1;
    }
  }
  if (m->index_path != NULL) {
    struct stat in;
    if (stat(m->index_path, &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino) {
      return 1;
    }
  }
  return 0;
}

int st_outdir_init(st_outdir *o, const char *dir, char *const *names, size_t count,
                   const st_model *model, int force, int sync) {
  memset(o, 0, sizeof *o);
  size_t n = strlen(dir);
  o->dir = malloc(n + 2);
  o->finals = calloc(count + 1, sizeof *o->finals);
  o->temps = calloc(count + 1, sizeof *o->temps);
  o->count = count;
  o->force = force;
  o->sync = sync;
  if (o->dir == NULL || o->finals == NULL || o->temps == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  snprintf(o->dir, n + 2, "%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/");
  uint32_t tag = 0;
  if (getrandom(&tag, sizeof tag, GRND_NONBLOCK) != (ssize_t)sizeof tag) {
    tag = (uint32_t)time(NULL) ^ (uint32_t)clock() * 2654435761u;
  }
  for (size_t i = 0; i < count; i++) {
    char temp[96];
    snprintf(temp, sizeof temp, ".cleave-tmp-%ld-%08x-%zu", (long)getpid(), (unsigned)tag, i);
    o->finals[i] = path_of(o->dir, names[i]);
    o->temps[i] = path_of(o->dir, temp);
    if (o->finals[i] == NULL || o->temps[i] == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
    struct stat st;
    if (lstat(o->finals[i], &st) != 0) {
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      return cli_error(CLI_EXIT_CANTCREAT, "output '%s' exists and is a directory", o->finals[i]);
    }
    if (!force) {
      struct stat target;
      int input = stat(o->finals[i], &target) == 0 && is_input(model, &target);
      return cli_error(CLI_EXIT_CANTCREAT, "output '%s' %s (use -f/--force to replace it%s)",
                       o->finals[i], input ? "is one of the inputs" : "exists",
                       input ? "; the input is then replaced by a new file, never written in "
                               "place"
                             : "");
    }
  }
  return 0;
}

int st_outdir_create(st_outdir *o) {
  struct stat st;
  if (stat(o->dir, &st) != 0) {
    if (errno != ENOENT || mkdir(o->dir, 0777) != 0) {
      return cli_error(CLI_EXIT_CANTCREAT, "cannot create the output folder '%s': %s", o->dir,
                       strerror(errno));
    }
    o->made_dir = 1;
  } else if (!S_ISDIR(st.st_mode)) {
    return cli_error(CLI_EXIT_CANTCREAT, "the output folder '%s' is not a folder", o->dir);
  }
  g_temps = o->temps;
  g_made_dir = o->made_dir ? o->dir : NULL;
  atomic_store(&g_created, 0);
  install_handlers();
  o->active = 1;
  for (size_t i = 0; i < o->count; i++) {
    atomic_store(&g_created, i + 1);
    int fd = open(o->temps[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      int e = errno;
      st_outdir_abort(o);
      return cli_error(CLI_EXIT_CANTCREAT, "cannot create output '%s' (as '%s'): %s", o->finals[i],
                       o->temps[i], strerror(e));
    }
    close(fd);
  }
  return 0;
}

int st_outdir_open(const st_outdir *o, size_t i, int *fd) {
  *fd = open(o->temps[i], O_WRONLY | O_CLOEXEC);
  if (*fd < 0) {
    return cli_error(CLI_EXIT_IOERR, "cannot open the temporary output '%s': %s", o->temps[i],
                     strerror(errno));
  }
  return 0;
}

int st_outdir_close(const st_outdir *o, size_t i, int fd) {
  int failed = o->sync && fsync(fd) != 0;
  int e = errno;
  if (close(fd) != 0 && !failed) {
    failed = 1;
    e = errno;
  }
  if (failed) {
    return cli_error(CLI_EXIT_IOERR, "writing output '%s' failed: %s", o->finals[i], strerror(e));
  }
  return 0;
}

static int rename_noreplace(const char *from, const char *to) {
  if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) {
    return 0;
  }
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
    return -1;
  }
  if (link(from, to) == 0) {
    unlink(from);
    return 0;
  }
  return -1;
}

int st_outdir_commit(st_outdir *o) {
  sigset_t old;
  block_signals(&old);
  size_t done = 0;
  int e = 0;
  for (; done < o->count; done++) {
    int rc = o->force ? rename(o->temps[done], o->finals[done])
                      : rename_noreplace(o->temps[done], o->finals[done]);
    if (rc != 0) {
      e = errno;
      break;
    }
  }
  int status = 0;
  if (done < o->count) {
    status = e == EEXIST ? CLI_EXIT_CANTCREAT : CLI_EXIT_IOERR;
    if (!o->force) {
      for (size_t k = 0; k < done; k++) {
        unlink(o->finals[k]); /* they did not exist before: the commit refuses to replace */
      }
    }
    for (size_t k = done; k < o->count; k++) {
      unlink(o->temps[k]);
    }
    if (o->made_dir) {
      rmdir(o->dir);
    }
    if (e == EEXIST) {
      cli_error(status,
                "output '%s' appeared while the outputs were written; nothing was "
                "written (use -f/--force to overwrite it)",
                o->finals[done]);
    } else if (o->force && done > 0) {
      cli_error(status,
                "cannot rename '%s' to '%s': %s; the first %zu outputs were already "
                "replaced",
                o->temps[done], o->finals[done], strerror(e), done);
    } else {
      cli_error(status, "cannot rename '%s' to '%s': %s", o->temps[done], o->finals[done],
                strerror(e));
    }
  }
  atomic_store(&g_created, 0);
  g_made_dir = NULL;
  o->active = 0;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (status == 0 && o->sync) {
    int dfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
      status =
          cli_error(CLI_EXIT_IOERR, "cannot sync the folder '%s': %s", o->dir, strerror(errno));
    }
    if (dfd >= 0) {
      close(dfd);
    }
  }
  return status;
}

void st_outdir_abort(st_outdir *o) {
  if (o->active) {
    sigset_t old;
    block_signals(&old);
    remove_all();
    g_made_dir = NULL;
    o->active = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
  }
}
