/* Opening inputs; full reads and writes at an offset, with EINTR retried and short counts
 * continued. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

int io_open_regular(const char *path, const char *what, int *fd, uint64_t *size, tool_error *err) {
  const char *name = what != NULL ? what : "";
  const char *space = what != NULL ? " " : "";
  *fd = -1;
  *size = 0;
  int f = open(path, O_RDONLY | O_CLOEXEC);
  if (f < 0) {
    return tool_fail(err, CLI_EXIT_NOINPUT, "cannot open %s%s'%s': %s", name, space, path,
                     strerror(errno));
  }
  struct stat st;
  if (fstat(f, &st) != 0) {
    int e = errno;
    close(f);
    return tool_fail(err, CLI_EXIT_NOINPUT, "cannot open %s%s'%s': %s", name, space, path,
                     strerror(e));
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
