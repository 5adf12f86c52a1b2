/* Reading a .npy file: its header, the size of its data, its data. */
#include "npy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

int npy_read_header(int fd, uint64_t file_size, const char *path, npy_header *h, tool_error *err) {
  char msg[256];
  unsigned char pre[12];
  size_t got = 0;
  memset(h, 0, sizeof *h);
  /* A file shorter than the longest preamble is the preamble parser's to judge. */
  int rc = io_read_upto(fd, path, pre, sizeof pre, 0, &got, err);
  if (rc != 0) {
    return rc;
  }
  uint64_t header_len = 0;
  size_t pre_len = 0;
  rc = npy_parse_preamble(pre, got, &h->major, &h->minor, &header_len, &pre_len, msg, sizeof msg);
  if (rc == 0 && pre_len + header_len > file_size) {
    snprintf(msg, sizeof msg,
             "the header length %" PRIu64 " runs past the end of the file (%" PRIu64 " bytes)",
             header_len, file_size);
    rc = CLI_EXIT_DATA;
  }
  if (rc != 0) {
    return tool_fail(err, rc, "'%s' is not a valid .npy file: %s", path, msg);
  }
  char *text = malloc((size_t)header_len + 1);
  if (text == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading the header of '%s'", path);
  }
  rc = io_read_upto(fd, path, text, (size_t)header_len, pre_len, &got, err);
  if (rc == 0 && got != header_len) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "'%s' is not a valid .npy file: the file ends inside the header", path);
  }
  if (rc == 0) {
    rc = npy_parse_dict(text, (size_t)header_len, h->major, h, msg, sizeof msg);
    if (rc != 0) {
      tool_fail(err, rc, "'%s' is not a valid .npy file: %s", path, msg);
    }
  }
  free(text);
  if (rc == 0) {
    h->data_offset = pre_len + header_len;
  }
  return rc;
}

int npy_check_data_size(const npy_header *h, int64_t item_size, uint64_t file_size,
                        const char *path, uint64_t *bytes, tool_error *err) {
  int64_t total = item_size;
  for (size_t i = 0; i < h->rank; i++) {
    if (h->shape[i] == 0) {
      total = 0;
      break;
    }
  }
  for (size_t i = 0; i < h->rank && total != 0; i++) {
    if (total > INT64_MAX / h->shape[i]) {
      return tool_fail(err, CLI_EXIT_DATA,
                       "'%s' is not a valid .npy file: the data size of the shape "
                       "in the header (elements of %" PRId64 " bytes) overflows int64",
                       path, item_size);
    }
    total *= h->shape[i];
  }
  uint64_t available = file_size - h->data_offset;
  if ((uint64_t)total > available) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "'%s' is not a valid .npy file: the header announces %" PRId64
                     " data bytes but the file holds %" PRIu64,
                     path, total, available);
  }
  *bytes = (uint64_t)total;
  return 0;
}

int npy_read_data(int fd, const char *path, const npy_header *h, uint64_t bytes, void **data,
                  tool_error *err) {
  *data = NULL;
  void *buf = bytes < SIZE_MAX ? malloc(bytes > 0 ? (size_t)bytes : 1) : NULL;
  if (buf == NULL) {
    return tool_fail(err, CLI_EXIT_SOFTWARE, "out of memory reading '%s'", path);
  }
  /* npy_check_data_size measured the file: a short read means it shrank meanwhile. */
  int rc = io_read_full(fd, path, buf, (size_t)bytes, h->data_offset, CLI_EXIT_IOERR, err);
  if (rc != 0) {
    free(buf);
    return rc;
  }
  *data = buf;
  return 0;
}
