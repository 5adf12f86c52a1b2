/*
 * An input file wherever it is: a local path (a descriptor, read with pread) or a URL
 * (http.h, read by ranged GETs). Opened, sized, read at an offset and closed the same way, so
 * that the format drivers' readers and the checkpoint writer read a model over HTTP as they read
 * it from a disk; a local file keeps its descriptor and io.h's reads, nothing more.
 */
#ifndef CLEAVE_TOOL_IO_SOURCE_H
#define CLEAVE_TOOL_IO_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "http.h"
#include "io.h"

/** An open input: `fd` for a local file (-1 for a URL), `http` for a URL (NULL for a local
 * file), its `path` (borrowed from the caller) and `size`. */
typedef struct io_source {
  int fd;
  http_file *http;
  const char *path;
  uint64_t size;
} io_source;

/**
 * Opens `path`, a regular file (io_open_regular, whose messages and statuses it keeps) or a URL
 * (http_open). `path` must outlive the source. Returns 0 or the status, with nothing left open
 * (`s->fd` -1, `s->http` NULL).
 */
int io_source_open(io_source *s, const char *path, const char *what, tool_error *err);

/** Reads exactly `size` bytes at `offset`, as io_read_full (a URL: http_read). */
static inline int io_source_read(io_source *s, void *buf, size_t size, uint64_t offset,
                                 int short_status, tool_error *err) {
  return s->http == NULL ? io_read_full(s->fd, s->path, buf, size, offset, short_status, err)
                         : http_read(s->http, buf, size, offset, err);
}

/** Reads at most `size` bytes at `offset`, up to the end of the file, as io_read_upto. */
int io_source_read_upto(io_source *s, void *buf, size_t size, uint64_t offset, size_t *got,
                        tool_error *err);

/** The ETag of a URL's file ("" for none, and for a local file). */
const char *io_source_etag(const io_source *s);

/** Closes it (a source never opened, zeroed with fd -1, is allowed). */
void io_source_close(io_source *s);

#endif /* CLEAVE_TOOL_IO_SOURCE_H */
