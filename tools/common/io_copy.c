/* Copying a byte range between files, in the kernel when it can. */
#include "io_copy.h"

#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "io.h"

/* Upper bound of one copy_file_range call, so that signals are seen regularly. */
#define COPY_CALL_MAX ((size_t)64 << 20)

/* Errors after which copy_file_range cannot work between these two files at all. */
static int refused(int e) {
  return e == EXDEV || e == EINVAL || e == ENOSYS || e == EOPNOTSUPP || e == EBADF ||
         e == ETXTBSY || e == EPERM;
}

int io_copy_range(io_copier *c, int in_fd, const char *in_path, uint64_t from, int out_fd,
                  const char *out_path, uint64_t to, uint64_t size, tool_error *err) {
  while (size > 0 && c->in_kernel) {
    loff_t in_off = (loff_t)from, out_off = (loff_t)to;
    size_t want = size < COPY_CALL_MAX ? (size_t)size : COPY_CALL_MAX;
    ssize_t n = copy_file_range(in_fd, &in_off, out_fd, &out_off, want, 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && refused(errno)) {
      c->in_kernel = 0;
      break;
    }
    if (n < 0) {
      /* Which side failed is not known, but a full disk, a file-size limit or a quota can only
       * be the output's. */
      int e = errno;
      if (e == ENOSPC || e == EFBIG || e == EDQUOT) {
        return tool_fail(err, CLI_EXIT_IOERR, "writing '%s' failed at offset %llu: %s", out_path,
                         (unsigned long long)to, strerror(e));
      }
      return tool_fail(
          err, CLI_EXIT_IOERR, "copying from '%s' at offset %llu to '%s' at offset %llu failed: %s",
          in_path, (unsigned long long)from, out_path, (unsigned long long)to, strerror(e));
    }
    if (n == 0) {
      return tool_fail(err, CLI_EXIT_IOERR,
                       "'%s' ends at byte %llu, before the %llu %s at offset %llu", in_path,
                       (unsigned long long)from, (unsigned long long)size,
                       tool_plural(size, "byte", "bytes"), (unsigned long long)from);
    }
    from += (uint64_t)n;
    to += (uint64_t)n;
    size -= (uint64_t)n;
    if (c->report != NULL) {
      progress_add(c->report, (uint64_t)n);
    }
  }
  while (size > 0) {
    size_t want = size < c->buf_size ? (size_t)size : c->buf_size;
    int rc = io_read_full(in_fd, in_path, c->buf, want, from, CLI_EXIT_IOERR, err);
    if (rc == 0) {
      rc = io_write_full(out_fd, out_path, c->buf, want, to, err);
    }
    if (rc != 0) {
      return rc;
    }
    from += want;
    to += want;
    size -= want;
    if (c->report != NULL) {
      progress_add(c->report, want);
    }
  }
  return 0;
}
