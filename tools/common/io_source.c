/* An input file wherever it is (io_source.h). */
#include "io_source.h"

#include <unistd.h>

int io_source_open(io_source *s, const char *path, const char *what, tool_error *err) {
  s->fd = -1;
  s->http = NULL;
  s->path = path;
  s->size = 0;
  if (http_is_url(path)) {
    return http_open(path, what, &s->http, &s->size, err);
  }
  return io_open_regular(path, what, &s->fd, &s->size, err);
}

int io_source_read_upto(io_source *s, void *buf, size_t size, uint64_t offset, size_t *got,
                        tool_error *err) {
  if (s->http == NULL) {
    return io_read_upto(s->fd, s->path, buf, size, offset, got, err);
  }
  uint64_t left = offset < s->size ? s->size - offset : 0;
  size_t n = left < size ? (size_t)left : size;
  *got = 0;
  int rc = http_read(s->http, buf, n, offset, err);
  if (rc == 0) {
    *got = n;
  }
  return rc;
}

const char *io_source_etag(const io_source *s) {
  return s->http != NULL ? http_etag(s->http) : "";
}

void io_source_close(io_source *s) {
  if (s->fd >= 0) {
    close(s->fd);
  }
  http_close(s->http);
  s->fd = -1;
  s->http = NULL;
}
