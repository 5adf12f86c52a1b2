/* Full reads and writes at an offset, with EINTR retried and short counts continued. */
#include "io.h"

#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int io_read_upto(int fd, const char *path, void *buf, size_t size, uint64_t offset, size_t *got,
                 tool_error *err) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd, (char *)buf + done, size - done, (off_t)(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      *got = done;
      return tool_fail(err, CLI_EXIT_IOERR, "cannot read '%s' at offset %llu: %s", path,
                       (unsigned long long)(offset + done), strerror(errno));
    }
    if (n == 0) {
      break;
    }
    done += (size_t)n;
  }
  *got = done;
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
    return tool_fail(err, short_status,
                     "'%s' ends at byte %llu, before the %zu bytes at offset %llu", path,
                     (unsigned long long)(offset + got), size, (unsigned long long)offset);
  }
  return 0;
}

int io_write_full(int fd, const char *path, const void *buf, size_t size, uint64_t offset,
                  tool_error *err) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, (const char *)buf + done, size - done, (off_t)(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return tool_fail(err, CLI_EXIT_IOERR, "writing '%s' failed at offset %llu: %s", path,
                       (unsigned long long)(offset + done), strerror(n == 0 ? ENOSPC : errno));
    }
    done += (size_t)n;
  }
  return 0;
}
