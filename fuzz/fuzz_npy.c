/* Fuzz target: the .npy header reader of the cleave command (tools/npy/npy_read.c, npy_file.c,
 * npy_dtype.c, npy_write.c) on arbitrary file contents.
 *
 * The input is a whole .npy file. It goes through the buffer entry points (npy_parse_preamble,
 * npy_parse_dict) and, through a memfd, through npy_read_header as the CLI calls it; both must
 * agree. Then the dtype mapping and the data-size check, whose results are recomputed here, and
 * for every accepted header a round trip through the writer (npy_build_header) that must read back
 * to the same header. Every failure must come with its status and a message naming the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define PATH "fuzz.npy"

static int g_memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  g_memfd = memfd_create("fuzz_npy", MFD_CLOEXEC);
  if (g_memfd < 0) {
    abort();
  }
  return 0;
}

/* A failing call must return CLI_EXIT_DATA and record it with a message naming the file. */
static void check_reported(int rc, const tool_error *err, const char *must_contain) {
  if (rc != CLI_EXIT_DATA || err->status != rc || strstr(err->message, must_contain) == NULL) {
    abort();
  }
}

static int same_header(const npy_header *a, const npy_header *b) {
  if (strcmp(a->descr, b->descr) != 0 || a->fortran_order != b->fortran_order ||
      a->rank != b->rank) {
    return 0;
  }
  for (size_t i = 0; i < a->rank; i++) {
    if (a->shape[i] != b->shape[i]) {
      return 0;
    }
  }
  return 1;
}

/* Where the header text first breaks the format's byte rules, found independently of the parser
 * (which scans for them before parsing): the first NUL or, below version 3.0, non-ASCII byte;
 * then, in a 3.0 header, the first sequence that does not decode to a Unicode scalar value in
 * its shortest form. Returns len when there is none; `utf8` tells which rule. */
static size_t first_bad_byte(const unsigned char *t, size_t len, int major, int *utf8) {
  *utf8 = 0;
  for (size_t i = 0; i < len; i++) {
    if (t[i] == 0 || (t[i] >= 0x80 && major < 3)) {
      return i;
    }
  }
  *utf8 = 1;
  size_t i = 0;
  while (major >= 3 && i < len) {
    unsigned char c = t[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t n;
    uint32_t cp, min;
    if ((c & 0xe0) == 0xc0) {
      n = 2, cp = c & 0x1fu, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      n = 3, cp = c & 0x0fu, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      n = 4, cp = c & 0x07u, min = 0x10000;
    } else {
      return i;
    }
    if (n > len - i) {
      return i;
    }
    for (size_t k = 1; k < n; k++) {
      if ((t[i + k] & 0xc0) != 0x80) {
        return i;
      }
      cp = cp << 6 | (t[i + k] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return i;
    }
    i += n;
  }
  return len;
}

/* The parser's verdict on the header's bytes must match first_bad_byte. */
static void check_byte_rules(const unsigned char *text, size_t len, int major, int rc,
                             const char *msg) {
  int utf8 = 0;
  size_t bad = first_bad_byte(text, len, major, &utf8);
  size_t at = 0;
  int skip = -1;
  /* The rule is what follows the offset (later messages may quote header text). */
  int is_utf8 = 0, reported = 0;
  if (sscanf(msg, "header offset %zu: %n", &at, &skip) == 1 && skip > 0) {
    const char *rule = msg + skip;
    is_utf8 = strncmp(rule, "invalid UTF-8 in a version 3.0 header", 37) == 0;
    reported = is_utf8 || strncmp(rule, "NUL byte in the header", 22) == 0 ||
               strncmp(rule, "non-ASCII byte 0x", 17) == 0;
  }
  if (bad == len ? rc != 0 && reported : rc == 0 || !reported || at != bad || is_utf8 != utf8) {
    abort();
  }
}

/* The header from the buffer entry points, as npy_read_header combines them. Returns 0 or the
 * status, with the reason in msg. */
static int parse_buffer(const uint8_t *data, size_t size, npy_header *h, char *msg, size_t cap) {
  memset(h, 0, sizeof *h);
  uint64_t header_len = 0;
  size_t pre_len = 0;
  int rc = npy_parse_preamble(data, size < 12 ? size : 12, &h->major, &h->minor, &header_len,
                              &pre_len, msg, cap);
  if (rc != 0) {
    if (rc != CLI_EXIT_DATA || msg[0] == '\0') {
      abort();
    }
    return rc;
  }
  if ((h->major != 1 && h->major != 2 && h->major != 3) || h->minor != 0 ||
      header_len > NPY_MAX_HEADER_BYTES || pre_len != (h->major == 1 ? 10u : 12u)) {
    abort();
  }
  if (pre_len + header_len > size) {
    snprintf(msg, cap, "past the end");
    return CLI_EXIT_DATA;
  }
  /* The dictionary text in a buffer of its exact size, so that the sanitizer sees any read past
   * it (the fuzzer's own buffer continues with the data). */
  char *text = malloc(header_len > 0 ? (size_t)header_len : 1);
  if (text == NULL) {
    abort();
  }
  memcpy(text, data + pre_len, (size_t)header_len);
  rc = npy_parse_dict(text, (size_t)header_len, h->major, h, msg, cap);
  check_byte_rules((const unsigned char *)text, (size_t)header_len, h->major, rc, msg);
  free(text);
  if (rc != 0) {
    if (rc != CLI_EXIT_DATA || msg[0] == '\0') {
      abort();
    }
    return rc;
  }
  if (h->rank > NPY_MAX_RANK || memchr(h->descr, '\0', sizeof h->descr) == NULL ||
      (h->fortran_order != 0 && h->fortran_order != 1)) {
    abort();
  }
  for (size_t i = 0; i < h->rank; i++) {
    if (h->shape[i] < 0) {
      abort();
    }
  }
  h->data_offset = pre_len + header_len;
  return 0;
}

/* The header through the CLI's own entry point, reading the bytes from a file descriptor. */
static int parse_fd(const uint8_t *data, size_t size, npy_header *h) {
  if (ftruncate(g_memfd, 0) != 0) {
    abort();
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(g_memfd, data + done, size - done, (off_t)done);
    if (n <= 0) {
      abort();
    }
    done += (size_t)n;
  }
  tool_error err;
  int rc = npy_read_header(g_memfd, size, PATH, h, &err);
  if (rc != 0) {
    check_reported(rc, &err, "'" PATH "' is not a valid .npy file: ");
  }
  return rc;
}

/* The data size the header announces, or -1 when it overflows int64 (computed independently). */
static int64_t expected_bytes(const npy_header *h, int64_t item_size) {
  for (size_t i = 0; i < h->rank; i++) {
    if (h->shape[i] == 0) {
      return 0;
    }
  }
  __int128 total = item_size;
  for (size_t i = 0; i < h->rank; i++) {
    total *= h->shape[i];
    if (total > INT64_MAX) {
      return -1;
    }
  }
  return (int64_t)total;
}

static void check_data_size(const npy_header *h, const npy_dtype *dt, size_t size) {
  uint64_t bytes = UINT64_MAX;
  tool_error err;
  int rc = npy_check_data_size(h, dt->item_size, size, PATH, &bytes, &err);
  int64_t want = expected_bytes(h, dt->item_size);
  int fits = want >= 0 && (uint64_t)want <= size - h->data_offset;
  if (fits != (rc == 0)) {
    abort();
  }
  if (rc == 0) {
    if (bytes != (uint64_t)want) {
      abort();
    }
  } else {
    check_reported(rc, &err, want < 0 ? "overflows int64" : "data bytes but the file holds");
  }
}

/* The writer's header for `h` must read back as `h`, with the data 64-byte aligned. */
static void check_round_trip(const npy_header *h) {
  unsigned char *bytes = NULL;
  size_t size = 0;
  tool_error err;
  if (npy_build_header(h->descr, h->fortran_order, h->shape, h->rank, &bytes, &size, &err) != 0) {
    abort();
  }
  npy_header back;
  char msg[256];
  if (size % 64 != 0 || parse_buffer(bytes, size, &back, msg, sizeof msg) != 0 ||
      !same_header(h, &back) || back.data_offset != size || back.major > 2) {
    abort();
  }
  free(bytes);
}

/* A --dtype as the CLI could parse it (a named type, or S<n>/U<n> with n >= 1), chosen from the
 * last bytes of the input, to exercise reinterpretation and contradiction checks. */
static cleave_type forced_type(const uint8_t *data, size_t size) {
  uint8_t pick = size > 0 ? data[size - 1] : 0;
  uint8_t width = size > 1 ? data[size - 2] : 0;
  cleave_dtype dtype = (cleave_dtype)(pick % 40 + 1);
  if (cleave_dtype_name(dtype) == NULL) {
    dtype = CLEAVE_F32;
  }
  cleave_type t = cleave_type_of(dtype);
  if (dtype == CLEAVE_BYTES || dtype == CLEAVE_UNICODE) {
    t.width = width == 0xff ? INT64_MAX : 1 + width % 16;
  }
  return t;
}

static void check_dtype(const npy_header *h, const cleave_type *forced, size_t size) {
  npy_dtype dt;
  memset(&dt, 0, sizeof dt);
  tool_error err;
  int rc = npy_descr_to_dtype(h->descr, forced, PATH, &dt, &err);
  if (rc != 0) {
    /* The message quotes the file and the descr as written. */
    char quoted[NPY_DESCR_SIZE + 3];
    snprintf(quoted, sizeof quoted, "'%s'", h->descr);
    check_reported(rc, &err, "'" PATH "' has dtype ");
    if (strstr(err.message, quoted) == NULL) {
      abort();
    }
    return;
  }
  int64_t size_of_type = 0;
  if (dt.item_size <= 0 || cleave_type_size(dt.type, &size_of_type, NULL) != CLEAVE_OK ||
      size_of_type != dt.item_size) {
    abort();
  }
  /* A --dtype that is accepted is the type the data is read as, exactly (width included). */
  if (forced != NULL && (dt.type.dtype != forced->dtype || dt.type.width != forced->width)) {
    abort();
  }
  check_data_size(h, &dt, size);
  if (forced == NULL) {
    check_round_trip(h);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npy_header from_buffer, from_fd;
  char msg[256] = "";
  int rc_buffer = parse_buffer(data, size, &from_buffer, msg, sizeof msg);
  int rc_fd = parse_fd(data, size, &from_fd);
  /* Both entry points agree on the verdict, and on the header when they accept it. */
  if ((rc_buffer == 0) != (rc_fd == 0)) {
    abort();
  }
  if (rc_buffer != 0) {
    return 0;
  }
  if (!same_header(&from_buffer, &from_fd) || from_buffer.data_offset != from_fd.data_offset ||
      from_buffer.major != from_fd.major) {
    abort();
  }
  check_dtype(&from_fd, NULL, size);
  cleave_type forced = forced_type(data, size);
  check_dtype(&from_fd, &forced, size);
  return 0;
}
