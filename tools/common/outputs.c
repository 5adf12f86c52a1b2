/* All-or-nothing output files: the staging folder, signal clean-up, the commit (outputs.h). */
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
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "error.h"
#include "io.h"
#include "outputs_commit.h"
#include "outputs_staging.h"
#include "outputs_stale.h"

/* The size of the buffers paths are composed in. A prefix set's paths always fit (out_set_init
 * refuses a longer prefix); a staged path of a folder set that does not fit is longer than
 * PATH_MAX, so no system call could create it. */
#define PATH_BUF OUT_PATH_BUF

/* Signal-handler state. The handler may read only these: outputs 0..g_created-1 are named
 * g_names[i] in the staging folder g_stage_fd, which is g_stage_name in g_stage_dir_fd. All are
 * set before the handlers are installed, and g_created is raised before each creation, so a file
 * can never exist without the handler knowing it. */
static volatile int g_stage_dir_fd = -1;
static volatile int g_stage_fd = -1;
static const char *volatile g_stage_name;
static char *const *volatile g_names;
static atomic_size_t g_created;

/* SIGPIPE: the report on stdout is written before the commit, and may meet a closed pipe. */
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
#define CLEANUP_SIGNAL_COUNT (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Writes head, i in decimal and tail to buf. Returns 0, or -1 when the result was shortened to
 * fit. */
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

/* Async-signal-safe: unlinkat and nothing else. */
static void remove_temporaries(void) {
  size_t n = atomic_load(&g_created);
  for (size_t i = 0; i < n; i++) {
    unlinkat(g_stage_fd, g_names[i], 0);
  }
  atomic_store(&g_created, 0);
  if (g_stage_name != NULL) {
    unlinkat(g_stage_dir_fd, g_stage_name, AT_REMOVEDIR);
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

/* The clean-up signals, and the stop of a terminal's ^Z: a commit is not left half done while
 * the process is stopped. */
static void block_signals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++) {
    sigaddset(&set, cleanup_signals[i]);
  }
  sigaddset(&set, SIGTSTP);
  sigprocmask(SIG_BLOCK, &set, old);
}

/* Whether a clean-up signal arrived while they were blocked: it is delivered when they are not. */
static int cleanup_signal_pending(void) {
  sigset_t pending;
  if (sigpending(&pending) != 0) {
    return 0;
  }
  for (size_t i = 0; i < CLEANUP_SIGNAL_COUNT; i++) {
    if (sigismember(&pending, cleanup_signals[i]) == 1) {
      return 1;
    }
  }
  return 0;
}

const char *out_set_final(const out_set *set, size_t i, char *buf, size_t size) {
  if (set->folder) {
    return set->finals[i];
  }
  compose(buf, size, set->final_head, i, ".npy");
  return buf;
}

void out_set_final_path(const out_set *set, size_t i, char *buf, size_t size) {
  if (set->folder) {
    snprintf(buf, size, "%s", set->finals[i]);
  } else {
    compose(buf, size, set->final_head, i, ".npy");
  }
}

static const char *final_of(const void *ctx, size_t i, char *buf, size_t size) {
  return out_set_final(ctx, i, buf, size);
}

/* The path of output i in the staging folder, for messages. */
static const char *staged_path(const out_set *set, size_t i, char *buf, size_t size) {
  snprintf(buf, size, "%s%s/%s", set->stage_in, set->stage_name, set->names[i]);
  return buf;
}

static void reset(out_set *set) {
  memset(set, 0, sizeof *set);
  set->stage_dir_fd = -1;
  set->stage_fd = -1;
}

/* The folder part of `path` ("" or ending in '/'), malloc'd. */
static char *folder_part(const char *path) {
  const char *slash = strrchr(path, '/');
  return strndup(path, slash != NULL ? (size_t)(slash - path) + 1 : 0);
}

int out_set_init(out_set *set, const char *prefix, size_t count, int force, int sync) {
  reset(set);
  set->count = count;
  set->force = force;
  set->sync = sync;
  size_t len = strlen(prefix);
  if (len + 96 > PATH_MAX) {
    return cli_error(CLI_EXIT_CANTCREAT, "the output prefix '%s' is too long", prefix);
  }
  set->stage_in = folder_part(prefix);
  set->final_head = malloc(len + 2);
  set->names = calloc(count + 1, sizeof *set->names);
  if (set->stage_in == NULL || set->final_head == NULL || set->names == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  size_t dir_len = strlen(set->stage_in);
  set->dir = strdup(dir_len == 0 ? "." : set->stage_in);
  set->stage_for = strdup(prefix + dir_len);
  if (set->dir == NULL || set->stage_for == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  snprintf(set->final_head, len + 2, "%s_", prefix);
  char name[PATH_BUF];
  for (size_t i = 0; i < count; i++) {
    compose(name, sizeof name, set->final_head + dir_len, i, ".npy");
    if ((set->names[i] = strdup(name)) == NULL) {
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  return 0;
}

static int same_file(const char *path, const struct stat *st) {
  struct stat in;
  return stat(path, &in) == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino;
}

/* A named output that exists: refused when it is a directory, and without --force, naming it
 * "one of the inputs" when it is. */
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

/* ---- the temporaries dead runs left ------------------------------------------------------- */

/* Finishes or undoes the commits of the dead runs' temporaries in the folder `fd` (path `path`:
 * "" or ending in '/'), those starting with `prefix` (NULL: all), removes them and says so. */
static void clear_in(int fd, const char *path, const char *prefix) {
  out_temp *found = NULL;
  size_t count = 0;
  if (out_temps_dead(fd, prefix, 1, &found, &count) != 0) {
    return;
  }
  for (size_t i = 0; i < count; i++) {
    out_temp *t = &found[i];
    char note[512];
    int rc = out_commit_recover(fd, t, note, sizeof note);
    tool_error w;
    if (rc == 0) {
      tool_fail(&w, 0,
                "removed '%s%s' (%llu %s in %zu %s), left by a cleave run that ended without "
                "cleaning up%s",
                path, t->name, (unsigned long long)t->bytes, tool_plural(t->bytes, "byte", "bytes"),
                t->files, tool_plural(t->files, "file", "files"), note);
    } else {
      tool_fail(&w, 0,
                "cannot remove '%s%s', left by a cleave run that ended without cleaning up: "
                "%s%s",
                path, t->name, strerror(errno), note);
    }
    tool_scrub(&w); /* a folder's names are anyone's */
    cli_warning("%s", w.message);
  }
  out_temps_free(found, count);
}

/* Opens the folder of the staging folder when it exists, and clears the dead runs' temporaries
 * of the set under the commit lock: its own staging folders beside a folder of its own, and all
 * those inside that folder; all those of the folder of the files. */
static void clear_dead(out_set *set) {
  if (set->cleared) {
    return;
  }
  set->cleared = 1;
  if (set->stage_dir_fd < 0) {
    set->stage_dir_fd =
        open(set->stage_in[0] != '\0' ? set->stage_in : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (set->stage_dir_fd < 0 || out_commit_lock(set->stage_dir_fd) != 0) {
    return; /* the folder is missing (creating the outputs says so), or busy: left for later */
  }
  char prefix[NAME_MAX + 1];
  clear_in(set->stage_dir_fd, set->stage_in,
           set->own != NULL ? out_stage_prefix(set->own, prefix, sizeof prefix) : NULL);
  if (set->own != NULL) {
    int fd = open(set->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && out_commit_lock(fd) == 0) {
      clear_in(fd, set->dir, NULL);
    }
    if (fd >= 0) {
      close(fd);
    }
  }
  flock(set->stage_dir_fd, LOCK_UN);
}

/* ---- named files ------------------------------------------------------------------------- */

/* OUTDIR as a folder and a name in it: the name as given, or, for ".", "..", "/" and a symbolic
 * link, the folder it resolves to (the staging folder goes beside the folder itself). NULL
 * `*name`: the root, which has no folder to stage beside. */
static int split_outdir(const char *dir, char **parent, char **name) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') {
    n--;
  }
  char *s = strndup(dir, n);
  if (s == NULL) {
    return -1;
  }
  const char *slash = strrchr(s, '/');
  const char *last = slash != NULL ? slash + 1 : s;
  struct stat st;
  if (strcmp(s, "/") == 0 || strcmp(last, ".") == 0 || strcmp(last, "..") == 0 ||
      (lstat(s, &st) == 0 && S_ISLNK(st.st_mode))) {
    char *real = realpath(s, NULL);
    if (real != NULL) {
      free(s);
      s = real;
      slash = strrchr(s, '/');
      last = slash != NULL ? slash + 1 : s;
    }
  }
  int root = strcmp(s, "/") == 0;
  *parent = root ? strdup("/") : strndup(s, slash != NULL ? (size_t)(slash - s) + 1 : 0);
  *name = root ? NULL : strdup(last);
  free(s);
  return *parent == NULL || (!root && *name == NULL) ? -1 : 0;
}

/* The folder sets' common part: the names and final paths, the folder with a trailing '/'. */
static int init_named(out_set *set, const char *dir, char *const *names, size_t count, int force,
                      int sync, int replace_last) {
  reset(set);
  set->folder = 1;
  set->replace_last = replace_last;
  set->count = count;
  set->force = force;
  set->sync = sync;
  size_t n = strlen(dir);
  set->dir = malloc(n + 2);
  set->finals = calloc(count + 1, sizeof *set->finals);
  set->names = calloc(count + 1, sizeof *set->names);
  if (set->dir == NULL || set->finals == NULL || set->names == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  snprintf(set->dir, n + 2, "%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/");
  for (size_t i = 0; i < count; i++) {
    if ((set->names[i] = strdup(names[i])) == NULL ||
        asprintf(&set->finals[i], "%s%s", set->dir, names[i]) < 0) {
      set->finals[i] = NULL;
      return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  return 0;
}

static int check_all_existing(out_set *set, const char *const *inputs, size_t input_count) {
  clear_dead(set);
  for (size_t i = 0; i < set->count; i++) {
    /* The last output of a set that asks for it (a manifest) replaces its earlier run's. */
    int rc = check_existing(set->finals[i], inputs, input_count,
                            set->force || (set->replace_last && i + 1 == set->count));
    if (rc != 0) {
      return rc;
    }
  }
  return 0;
}

int out_set_init_folder(out_set *set, const char *dir, char *const *names, size_t count,
                        const char *const *inputs, size_t input_count, int force, int sync,
                        int replace_last) {
  int rc = init_named(set, dir, names, count, force, sync, replace_last);
  if (rc != 0) {
    return rc;
  }
  if (split_outdir(dir, &set->stage_in, &set->own) != 0) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (set->own == NULL) {
    /* The root: staged inside. */
    free(set->stage_in);
    set->stage_in = strdup(set->dir);
    set->stage_for = strdup("root");
  } else {
    set->stage_for = strdup(set->own);
  }
  if (set->stage_in == NULL || set->stage_for == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  return check_all_existing(set, inputs, input_count);
}

int out_set_init_files(out_set *set, const char *dir, const char *name, char *const *names,
                       size_t count, const char *const *inputs, size_t input_count, int force,
                       int sync, int replace_last) {
  struct stat st;
  if (stat(dir[0] != '\0' ? dir : ".", &st) != 0 && errno == ENOENT) {
    /* A folder that does not exist yet is the run's own: made and put in place in one step. */
    return out_set_init_folder(set, dir, names, count, inputs, input_count, force, sync,
                               replace_last);
  }
  int rc = init_named(set, dir, names, count, force, sync, replace_last);
  if (rc != 0) {
    return rc;
  }
  set->stage_in = strdup(set->dir);
  set->stage_for = strdup(name);
  if (set->stage_in == NULL || set->stage_for == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  return check_all_existing(set, inputs, input_count);
}

int out_set_init_file(out_set *set, const char *path, const char *const *inputs, size_t input_count,
                      int force, int sync) {
  reset(set);
  size_t len = strlen(path);
  if (len == 0 || path[len - 1] == '/') {
    return cli_error(CLI_EXIT_CANTCREAT, "output '%s' names a directory, not a file", path);
  }
  if (len + 96 > PATH_MAX) {
    return cli_error(CLI_EXIT_CANTCREAT, "the output path '%s' is too long", path);
  }
  char *dir = folder_part(path);
  if (dir == NULL) {
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  char *name = (char *)path + strlen(dir);
  int rc = init_named(set, dir, &name, 1, force, sync, 0);
  if (rc == 0) {
    set->file = 1;
    free(set->finals[0]);
    set->finals[0] = strdup(path);
    free(set->dir);
    set->dir = strdup(dir[0] == '\0' ? "." : dir);
    set->stage_in = dir;
    dir = NULL;
    set->stage_for = strdup(name);
    if (set->finals[0] == NULL || set->dir == NULL || set->stage_for == NULL) {
      rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
    }
  }
  free(dir);
  return rc != 0 ? rc : check_all_existing(set, inputs, input_count);
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

void out_set_expect(out_set *set, const char *const *names) {
  set->expected = names;
}

/* ---- the staging folder ------------------------------------------------------------------ */

/* Prefix sets: clears the dead runs' temporaries, then refuses existing outputs. */
static int prepare_prefix(out_set *set) {
  clear_dead(set);
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

/* Whether OUTDIR, open as `fd`, is a mount point (a staging folder beside it would be on
 * another file system). */
static int outdir_mounted(int fd) {
  struct stat here, above;
  return fstat(fd, &here) != 0 || fstatat(fd, "..", &above, 0) != 0 || here.st_dev != above.st_dev;
}

/* Makes the staging folder in `stage_in` (its folder opened if not yet). */
static int make_in_stage_dir(out_set *set) {
  if (set->stage_dir_fd < 0) {
    set->stage_dir_fd =
        open(set->stage_in[0] != '\0' ? set->stage_in : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (set->stage_dir_fd < 0) {
      return -1;
    }
  }
  /* Under the folder's commit lock, which a run clearing the dead runs' temporaries holds: it
   * never sees this staging folder made and not yet locked. */
  int locked = out_commit_lock(set->stage_dir_fd) == 0;
  int rc = out_stage_make(set->stage_dir_fd, set->stage_for, &set->stage_name, &set->stage_fd);
  int e = errno;
  if (locked) {
    flock(set->stage_dir_fd, LOCK_UN);
  }
  errno = e;
  return rc;
}

/* Stages inside OUTDIR itself (it exists), its files to be placed one by one. */
static int stage_inside(out_set *set) {
  if (set->stage_dir_fd >= 0) {
    close(set->stage_dir_fd);
    set->stage_dir_fd = -1;
  }
  free(set->stage_in);
  free(set->own);
  set->own = NULL;
  set->stage_in = strdup(set->dir);
  if (set->stage_in == NULL) {
    errno = ENOMEM;
    return -1;
  }
  return make_in_stage_dir(set);
}

static int make_stage(out_set *set) {
  char path[PATH_BUF];
  if (set->own == NULL && !set->folder) {
    /* A prefix set: its folder must exist, and is not created. */
    if (make_in_stage_dir(set) == 0) {
      return 0;
    }
    int e = errno;
    char prefix[NAME_MAX + 1];
    snprintf(path, sizeof path, "%s%s%ld-XXXXXXXX/%s", set->stage_in,
             out_stage_prefix(set->stage_for, prefix, sizeof prefix), (long)getpid(),
             set->count > 0 ? set->names[0] : "");
    char buf[PATH_BUF];
    return cli_error(CLI_EXIT_CANTCREAT, "cannot create output '%s' (as '%s'): %s%s",
                     set->count > 0 ? out_set_final(set, 0, buf, sizeof buf) : set->dir, path,
                     strerror(e), e == ENOENT ? " (the output directory is not created)" : "");
  }
  if (set->own == NULL) {
    /* Files among others, or the root: in their folder, which must exist. */
    if (make_in_stage_dir(set) == 0) {
      return 0;
    }
    int e = errno;
    return cli_error(CLI_EXIT_CANTCREAT,
                     "cannot create output '%s' (its staging folder in '%s'): %s%s",
                     set->count > 0 ? set->finals[0] : set->dir, set->dir, strerror(e),
                     e == ENOENT ? " (the output directory is not created)" : "");
  }
  /* A folder of the run's own: beside it, or inside it when it is a mount point or its folder
   * cannot be written. */
  int fd = open(set->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int e = errno;
  if (fd < 0 && e != ENOENT) {
    return cli_error(CLI_EXIT_CANTCREAT, "cannot create the output folder '%s': %s", set->dir,
                     strerror(e));
  }
  int inside = fd >= 0 && outdir_mounted(fd);
  if (fd >= 0) {
    close(fd);
  }
  int rc = inside ? -1 : make_in_stage_dir(set);
  e = errno;
  if (rc != 0 && fd >= 0 && (inside || e == EACCES || e == EPERM || e == EROFS)) {
    rc = stage_inside(set);
    e = errno;
  }
  if (rc != 0) {
    return cli_error(CLI_EXIT_CANTCREAT, "cannot create the output folder '%s': %s", set->dir,
                     strerror(e));
  }
  return 0;
}

int out_set_create(out_set *set) {
  int rc = set->folder ? 0 : prepare_prefix(set);
  if (rc != 0) {
    return rc;
  }
  /* From the staging folder's creation to the handlers' installation a signal waits: it then
   * finds the handler, which removes the folder. */
  sigset_t old;
  block_signals(&old);
  rc = make_stage(set);
  if (rc != 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
  }
  atomic_store(&g_created, 0);
  g_stage_dir_fd = set->stage_dir_fd;
  g_stage_fd = set->stage_fd;
  g_stage_name = set->stage_name;
  g_names = set->names;
  install_handlers();
  set->active = 1;
  sigprocmask(SIG_SETMASK, &old, NULL);
  for (size_t i = 0; i < set->count; i++) {
    atomic_store(&g_created, i + 1);
    int fd = openat(set->stage_fd, set->names[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                    create_mode(set, i));
    int e = errno;
    if (fd >= 0 && (e = settle_mode(set, i, fd)) != 0) {
      close(fd);
      fd = -1;
    }
    if (fd < 0) {
      char buf[PATH_BUF], path[PATH_BUF];
      const char *final = out_set_final(set, i, buf, sizeof buf);
      staged_path(set, i, path, sizeof path);
      out_set_abort(set);
      char reason[256];
      return cli_error(io_resource_limit(e) ? CLI_EXIT_SOFTWARE : CLI_EXIT_CANTCREAT,
                       "cannot create output '%s' (as '%s'): %s", final, path,
                       io_open_reason(e, reason, sizeof reason));
    }
    close(fd);
  }
  return 0;
}

/* Opens output i in the staging folder with `flags`; `what` says what for in the message. */
static int open_staged(const out_set *set, size_t i, int flags, const char *what, int *fd) {
  *fd = openat(set->stage_fd, set->names[i], flags | O_CLOEXEC);
  if (*fd < 0) {
    /* Too many files open at once is a resource limit (70), named with its value. */
    int e = errno;
    char path[PATH_BUF], reason[256];
    return cli_error(io_resource_limit(e) ? CLI_EXIT_SOFTWARE : CLI_EXIT_IOERR,
                     "cannot %s the temporary output '%s': %s", what,
                     staged_path(set, i, path, sizeof path),
                     io_open_reason(e, reason, sizeof reason));
  }
  return 0;
}

int out_set_open(const out_set *set, size_t i, int *fd) {
  return open_staged(set, i, O_WRONLY, "open", fd);
}

int out_set_open_read(const out_set *set, size_t i, int *fd) {
  return open_staged(set, i, O_RDONLY, "read back", fd);
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

/* ---- the commit -------------------------------------------------------------------------- */

/* Takes the commit lock of the staging folder's folder. That folder may have been replaced by a
 * run that wrote it as its own folder (our staging folder moved into the new one with the
 * folder's other entries): the new one is then locked. */
static int lock_stage_dir(out_set *set) {
  const char *path = set->stage_in[0] != '\0' ? set->stage_in : ".";
  for (int tries = 0; tries < 8; tries++) {
    if (out_commit_lock(set->stage_dir_fd) != 0) {
      long pid = out_commit_holder(set->stage_dir_fd);
      char who[64] = "";
      if (pid > 0) {
        snprintf(who, sizeof who, " (pid %ld)", pid);
      }
      return cli_error(CLI_EXIT_CANTCREAT,
                       "another cleave run%s has been committing into '%s' for a minute; nothing "
                       "was written",
                       who, path);
    }
    struct stat now, locked, mine, found;
    if (stat(path, &now) == 0 && fstat(set->stage_dir_fd, &locked) == 0 &&
        now.st_dev == locked.st_dev && now.st_ino == locked.st_ino) {
      return 0;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fstat(set->stage_fd, &mine) != 0 ||
        fstatat(fd, set->stage_name, &found, AT_SYMLINK_NOFOLLOW) != 0 ||
        found.st_ino != mine.st_ino || found.st_dev != mine.st_dev) {
      if (fd >= 0) {
        close(fd);
      }
      return cli_error(CLI_EXIT_IOERR,
                       "the folder '%s' was replaced while the outputs were written, and the "
                       "staging folder '%s' with it; nothing was written",
                       path, set->stage_name);
    }
    close(set->stage_dir_fd);
    set->stage_dir_fd = fd;
    g_stage_dir_fd = fd;
  }
  return cli_error(CLI_EXIT_IOERR, "the folder '%s' keeps being replaced; nothing was written",
                   path);
}

static void release(out_set *set) {
  atomic_store(&g_created, 0);
  g_stage_name = NULL;
  set->active = 0;
  if (set->stage_fd >= 0) {
    close(set->stage_fd); /* its lock with it */
    set->stage_fd = -1;
  }
  if (set->stage_dir_fd >= 0) {
    close(set->stage_dir_fd);
    set->stage_dir_fd = -1;
  }
}

int out_set_commit(out_set *set) {
  int rc = lock_stage_dir(set);
  if (rc != 0) {
    out_set_abort(set);
    return rc;
  }
  sigset_t old;
  block_signals(&old);
  if (cleanup_signal_pending()) {
    /* A signal sent while the outputs were written, before the commit began: the run ends as
     * the signal asks, with nothing changed: the temporaries are removed, then the signal is
     * delivered as the mask is restored. */
    out_set_abort(set);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return cli_error(CLI_EXIT_SOFTWARE, "interrupted by a signal; nothing was written");
  }
  int dir_is_target = set->own == NULL;
  out_commit c = {.dir_fd = set->stage_dir_fd,
                  .dir_path = set->stage_in,
                  .stage_name = set->stage_name,
                  .stage_fd = set->stage_fd,
                  .folder = set->own,
                  .folder_path = set->dir,
                  .target_fd = dir_is_target ? set->stage_dir_fd : -1,
                  .names = set->names,
                  .count = set->count,
                  .final = final_of,
                  .final_ctx = set,
                  .force = set->force,
                  .replace_last = set->replace_last,
                  .sync = set->sync,
                  .interrupted = cleanup_signal_pending};
  tool_error err;
  rc = out_commit_run(&c, &err);
  if (rc != 0) {
    if (out_remove_tree(set->stage_dir_fd, set->stage_name, NULL, NULL) != 0 && errno != ENOENT) {
      size_t n = strlen(err.message);
      snprintf(err.message + n, sizeof err.message - n,
               "; the staging folder '%s%s' cannot be removed either: %s", set->stage_in,
               set->stage_name, strerror(errno));
    }
    tool_report(&err);
  }
  release(set);
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (rc == 0) {
    out_stale_warn(set);
  }
  return rc;
}

void out_set_abort(out_set *set) {
  if (set->active) {
    sigset_t old;
    block_signals(&old);
    remove_temporaries();
    out_remove_tree(set->stage_dir_fd, set->stage_name, NULL, NULL);
    release(set);
    sigprocmask(SIG_SETMASK, &old, NULL);
  }
}

void out_set_free(out_set *set) {
  out_set_abort(set);
  for (size_t i = 0; i < set->count; i++) {
    if (set->finals != NULL) {
      free(set->finals[i]);
    }
    if (set->names != NULL) {
      free(set->names[i]);
    }
  }
  free(set->finals);
  free(set->names);
  free(set->final_head);
  free(set->dir);
  free(set->modes);
  free(set->stage_for);
  free(set->stage_in);
  free(set->own);
  free(set->stage_name);
  if (set->stage_fd >= 0) {
    close(set->stage_fd);
  }
  if (set->stage_dir_fd >= 0) {
    close(set->stage_dir_fd);
  }
  reset(set);
}
