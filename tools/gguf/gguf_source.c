/* The forward reader of GGUF headers: bounded, buffered, every error with its place. */
#include "gguf_source.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

/* Headers are read in pieces of this size (most headers fit in one). */
#define SOURCE_BUF (256u << 10)

int gguf_source_open(gguf_source *s, int fd, const char *path, uint64_t size, tool_error *err) {
  memset(s, 0, sizeof *s);
  s->fd = fd;
  s->path = path;
  s->size = size;
  s->limit = GGUF_MAX_HEADER;
  s->buf = malloc(SOURCE_BUF);
  return s->buf == NULL ? tool_oom(err, "reading a GGUF header") : 0;
}

void gguf_source_close(gguf_source *s) {
  free(s->buf);
  s->buf = NULL;
}

int gguf_fail_at(tool_error *err, const gguf_source *s, uint64_t at, const char *format, ...) {
  char text[TOOL_MESSAGE_SIZE];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return tool_fail(err, CLI_EXIT_DATA, "%s: byte %llu: %s", s->path, (unsigned long long)at, text);
}

int gguf_source_need(const gguf_source *s, uint64_t n, const char *field, tool_error *err) {
  uint64_t left = s->size - s->pos;
  if (n > left) {
    return gguf_fail_at(err, s, s->pos, "the file ends inside %s (%llu %s needed, %llu left)",
                        field, (unsigned long long)n, tool_plural(n, "byte", "bytes"),
                        (unsigned long long)left);
  }
  if (n > s->limit - s->pos) {
    return gguf_fail_at(err, s, s->pos,
                        "%s (%llu bytes) reaches past byte %llu: cleave reads GGUF headers of at "
                        "most %u bytes",
                        field, (unsigned long long)n, (unsigned long long)s->limit,
                        GGUF_MAX_HEADER);
  }
  return 0;
}

int gguf_source_read(gguf_source *s, void *dst, uint64_t n, const char *field, tool_error *err) {
  int rc = gguf_source_need(s, n, field, err);
  unsigned char *out = dst;
  while (rc == 0 && n > 0) {
    if (s->pos < s->buf_at || s->pos >= s->buf_at + s->buf_len) {
      uint64_t left = s->size - s->pos;
      size_t want = left < SOURCE_BUF ? (size_t)left : SOURCE_BUF;
      size_t got = 0;
      rc = io_read_upto(s->fd, s->path, s->buf, want, s->pos, &got, err);
      if (rc == 0 && got < want) {
        /* The file shrank since its size was taken. */
        rc = gguf_fail_at(err, s, s->pos + got, "the file ends inside %s (it got shorter)", field);
      }
      s->buf_at = s->pos;
      s->buf_len = rc == 0 ? got : 0;
      if (rc != 0) {
        break;
      }
    }
    size_t at = (size_t)(s->pos - s->buf_at);
    size_t take = s->buf_len - at < n ? s->buf_len - at : (size_t)n;
    if (out != NULL) {
      memcpy(out, s->buf + at, take);
      out += take;
    }
    s->pos += take;
    n -= take;
  }
  return rc;
}

int gguf_source_u32(gguf_source *s, uint32_t *v, const char *field, tool_error *err) {
  unsigned char b[4];
  int rc = gguf_source_read(s, b, 4, field, err);
  *v = rc == 0 ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
               : 0;
  return rc;
}

int gguf_source_u64(gguf_source *s, uint64_t *v, const char *field, tool_error *err) {
  unsigned char b[8];
  int rc = gguf_source_read(s, b, 8, field, err);
  *v = 0;
  for (int i = 7; rc == 0 && i >= 0; i--) {
    *v = *v << 8 | b[i];
  }
  return rc;
}

int64_t gguf_utf8_error(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    if (c == 0) {
      return (int64_t)i;
    }
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t len = c >= 0xc2 && c <= 0xdf   ? 2
                 : c >= 0xe0 && c <= 0xef ? 3
                 : c >= 0xf0 && c <= 0xf4 ? 4
                                          : 0;
    if (len == 0 || n - i < len) {
      return (int64_t)i;
    }
    unsigned c1 = s[i + 1];
    /* The second byte's range excludes overlong forms, surrogates and code points > U+10FFFF. */
    unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (c1 < lo || c1 > hi) {
      return (int64_t)i;
    }
    for (size_t k = 2; k < len; k++) {
      if ((s[i + k] & 0xc0) != 0x80) {
        return (int64_t)i;
      }
    }
    i += len;
  }
  return -1;
}
