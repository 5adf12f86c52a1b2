/* Opening inputs; full reads and writes at an offset, with EINTR retried and short counts
 * continued. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

void io_raise_open_limit(size_t needed) {
  struct rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
      lim.rlim_cur >= needed || lim.rlim_cur >= lim.rlim_max) {
    return;
  }
  /* The hard limit, or, when it is unlimited (which Linux refuses as a soft limit above its
   * nr_open), what is needed. */
  rlim_t want = lim.rlim_max == RLIM_INFINITY ? (rlim_t)needed : lim.rlim_max;
  lim.rlim_cur = want;
  if (setrlimit(RLIMIT_NOFILE, &lim) != 0 && want > (rlim_t)needed) {
    lim.rlim_cur = (rlim_t)needed;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

int io_resource_limit(int e) {
  return e == EMFILE || e == ENFILE || e == ENOMEM;
}

int io_open_status(int e) {
  return io_resource_limit(e) ? CLI_EXIT_SOFTWARE : CLI_EXIT_NOINPUT;
}

static void limit_text(rlim_t v, char *buf, size_t size) {
  if (v == RLIM_INFINITY) {
    snprintf(buf, size, "unlimited");
  } else {
    snprintf(buf, size, "%llu", (unsigned long long)v);
  }
}

const char *io_open_reason(int e, char *buf, size_t size) {
  struct rlimit lim;
  char soft[32], hard[32];
  if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    limit_text(lim.rlim_cur, soft, sizeof soft);
    limit_text(lim.rlim_max, hard, sizeof hard);
    snprintf(buf, size,
             "%s (a resource limit: this process may have %s files open, its hard limit is %s; "
             "'ulimit -n' sets it)",
             strerror(e), soft, hard);
  } else if (e == ENFILE) {
    snprintf(buf, size, "%s (a resource limit: the system's table of open files is full)",
             strerror(e));
  } else if (e == ENOMEM) {
    snprintf(buf, size, "%s (a resource limit: out of memory)", strerror(e));
  } else {
    snprintf(buf, size, "%s", strerror(e));
  }
  return buf;
}

int io_open_fail(tool_error *err, int e, const char *what, const char *path) {
  char reason[256];
  return tool_fail(err, io_open_status(e), "cannot open %s%s'%s': %s", what != NULL ? what : "",
                   what != NULL ? " " : "", path, io_open_reason(e, reason, sizeof reason));
}

int io_open_regular(const char *path, const char *what, int *fd, uint64_t *size, tool_error *err) {
  const char *name = what != NULL ? what : "";
  const char *space = what != NULL ? " " : "";
  *fd = -1;
  *size = 0;
  int f = open(path, O_RDONLY | O_CLOEXEC);
  if (f < 0) {
    return io_open_fail(err, errno, what, path);
  }
  struct stat st;
  if (fstat(f, &st) != 0) {
    int e = errno;
    close(f);
    return io_open_fail(err, e, what, path);
  }
  if (!S_ISREG(st.st_mode)) {
    close(f);
    /* A pipe or a device is refused up front: the readers read at offsets, some more than once. */
    return tool_fail(err, CLI_EXIT_NOINPUT, "cannot open %s%s'%s': %s", name, space, path,
                     S_ISDIR(st.st_mode)
                         ? "it is a directory"
                         : "it is not a regular file (cleave reads its files at offsets)");
  }
  *fd = f;
  *size = (uint64_t)st.st_size;
  return 0;
}

unsigned io_permissions(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? (unsigned)(st.st_mode & 0777) : 0;
}

int io_pread_all(int fd, void *buf, size_t size, uint64_t offset, size_t *got) {
  size_t done = 0;
  int e = 0;
  while (done < size) {
    ssize_t n = pread(fd, (char *)buf + done, size - done, (off_t)(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      e = errno;
      break;
    }
    if (n == 0) {
      break;
    }
    done += (size_t)n;
  }
  *got = done;
  return e;
}

int io_pwrite_all(int fd, const void *buf, size_t size, uint64_t offset, size_t *done) {
  size_t written = 0;
  int e = 0;
  while (written < size) {
    ssize_t n = pwrite(fd, (const char *)buf + written, size - written, (off_t)(offset + written));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      e = n == 0 ? ENOSPC : errno;
      break;
    }
    written += (size_t)n;
  }
  *done = written;
  return e;
}

int io_read_upto(int fd, const char *path, void *buf, size_t size, uint64_t offset, size_t *got,
                 tool_error *err) {
  int e = io_pread_all(fd, buf, size, offset, got);
  if (e != 0) {
    return tool_fail(err, CLI_EXIT_IOERR, "cannot read '%s' at offset %llu: %s", path,
                     (unsigned long long)(offset + *got), strerror(e));
  }
  return 0;
}

int io_read_full(int fd, const char *path, void *buf, size_t size, uint64_t offset,
                 int short_status, tool_error *err) {
  size_t got = 0;
  int rc = io_read_upto(fd, path, buf, size, offset, &got, err);
  if (rc != 0) {
    return rc;
  }
  if (got < size) {
    return tool_fail(err, short_status, "'%s' ends at byte %llu, before the %zu %s at offset %llu",
                     path, (unsigned long long)(offset + got), size,
                     tool_plural(size, "byte", "bytes"), (unsigned long long)offset);
  }
  return 0;
}

int io_write_full(int fd, const char *path, const void *buf, size_t size, uint64_t offset,
                  tool_error *err) {
  size_t done = 0;
  int e = io_pwrite_all(fd, buf, size, offset, &done);
  if (e != 0) {
    return tool_fail(err, CLI_EXIT_IOERR, "writing '%s' failed at offset %llu: %s", path,
                     (unsigned long long)(offset + done), strerror(e));
  }
  return 0;
}
