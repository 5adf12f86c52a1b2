/* tools/checkpoint/write/ckpt_hash: the checksums of a file and its ranges in one pass, through
 * reads and through mapped windows (files over two windows, ranges across window boundaries, empty
 * ranges, an empty file), each compared with libxxhash's one-shot XXH3-64 of the same bytes; a
 * file shorter than asked (both ways: through a mapping it raises SIGBUS, which must become an
 * error, also in the second thread that hashes a file of two windows or more); ranges out of order;
 * the copy that checksums; the hex form. The in-order stream the writer feeds (ckpt_hash_stream):
 * bytes fed in pieces with holes of zeros between the ranges and at the end, against the one-shot
 * checksums of the whole bytes; and each way it breaks (a piece below one fed, a hole over a
 * range's bytes, bytes past the end). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include <cmocka.h>

#include "ckpt_hash.h"
#include "cli_util.h"

/* Over two 8 MiB windows and an odd tail. */
#define BIG ((size_t)(17u << 20) + 123)

static unsigned char *random_bytes(size_t n) {
  unsigned char *b = malloc(n);
  assert_non_null(b);
  uint32_t x = 2463534242u;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b[i] = (unsigned char)x;
  }
  return b;
}

static int temp_file(const void *data, size_t n, char *path) {
  strcpy(path, "/tmp/cleave-hash-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, data, n), (ssize_t)n);
  return fd;
}

static void test_file_and_ranges(void **state) {
  (void)state;
  unsigned char *data = random_bytes(BIG);
  char path[64];
  int fd = temp_file(data, BIG, path);
  const uint64_t window = 8u << 20;
  ckpt_hash_range want[] = {
      {0, 10, 0, 0},          {100, 5u << 20, 0, 1},        {window - 7, 20, 0, 2},
      {window + 13, 0, 0, 3}, {2 * window - 1, 1000, 0, 4}, {BIG, 0, 0, 5}};
  size_t n = sizeof want / sizeof want[0];
  for (int mapped = 0; mapped < 2; mapped++) {
    ckpt_hash_range r[sizeof want / sizeof want[0]];
    memcpy(r, want, sizeof r);
    uint64_t whole = 0;
    tool_error err;
    assert_int_equal(ckpt_hash_file(fd, path, BIG, r, n, mapped, &whole, &err), 0);
    assert_true(whole == XXH3_64bits(data, BIG));
    for (size_t i = 0; i < n; i++) {
      assert_true(r[i].hash == XXH3_64bits(data + r[i].offset, (size_t)r[i].bytes));
    }
  }
  close(fd);
  unlink(path);
  /* An empty file. */
  fd = temp_file(data, 0, path);
  ckpt_hash_range empty = {0, 0, 0, 0};
  uint64_t whole = 1;
  tool_error err;
  assert_int_equal(ckpt_hash_file(fd, path, 0, &empty, 1, 1, &whole, &err), 0);
  assert_true(whole == XXH3_64bits(NULL, 0) && empty.hash == XXH3_64bits(NULL, 0));
  close(fd);
  unlink(path);
  free(data);
}

/* Asked for more bytes than the file has: through reads, the end is found; through a mapping,
 * the page past the end raises SIGBUS, caught and reported. */
static void test_short_file(void **state) {
  (void)state;
  unsigned char *data = random_bytes(1u << 20);
  char path[64];
  int fd = temp_file(data, 1u << 20, path);
  uint64_t asked = (3u << 20) + 5;
  for (int mapped = 0; mapped < 2; mapped++) {
    uint64_t whole;
    tool_error err;
    assert_int_equal(ckpt_hash_file(fd, path, asked, NULL, 0, mapped, &whole, &err), CLI_EXIT_DATA);
    assert_non_null(strstr(err.message, path));
    assert_non_null(strstr(err.message, mapped ? "shortened while being read" : "ends at byte"));
  }
  close(fd);
  unlink(path);
  free(data);
  /* Over two windows (a second thread hashes the whole file's bytes): the window past the end
   * faults in that thread alone (no range there), or in both. */
  data = random_bytes(BIG);
  fd = temp_file(data, BIG, path);
  asked = BIG + (20u << 20);
  ckpt_hash_range tail = {BIG - 10, 20u << 20, 0, 0};
  for (size_t n = 0; n < 2; n++) {
    uint64_t whole;
    tool_error err;
    assert_int_equal(ckpt_hash_file(fd, path, asked, &tail, n, 1, &whole, &err), CLI_EXIT_DATA);
    assert_non_null(strstr(err.message, "shortened while being read"));
  }
  close(fd);
  unlink(path);
  free(data);
}

static void test_ranges_out_of_order(void **state) {
  (void)state;
  char path[64];
  int fd = temp_file("abcdef", 6, path);
  ckpt_hash_range r[] = {{3, 2, 0, 0}, {1, 1, 0, 1}};
  uint64_t whole;
  tool_error err;
  assert_int_equal(ckpt_hash_file(fd, path, 6, r, 2, 0, &whole, &err), CLI_EXIT_SOFTWARE);
  ckpt_hash_range past = {4, 3, 0, 0};
  assert_int_equal(ckpt_hash_file(fd, path, 6, &past, 1, 0, &whole, &err), CLI_EXIT_SOFTWARE);
  close(fd);
  unlink(path);
}

static void test_copy(void **state) {
  (void)state;
  size_t n = (3u << 20) + 77;
  unsigned char *data = random_bytes(n);
  char in_path[64], out_path[64];
  int in = temp_file(data, n, in_path);
  int out = temp_file(data, 0, out_path);
  uint64_t bytes = 0, hash = 0;
  tool_error err;
  io_source src = {in, NULL, in_path, n};
  assert_int_equal(ckpt_hash_copy(&src, out, out_path, &bytes, &hash, &err), 0);
  assert_true(bytes == n && hash == XXH3_64bits(data, n));
  unsigned char *back = malloc(n);
  assert_non_null(back);
  assert_int_equal(pread(out, back, n, 0), (ssize_t)n);
  assert_memory_equal(back, data, n);
  close(in);
  close(out);
  unlink(in_path);
  unlink(out_path);
  free(back);
  free(data);
}

/* Feeds data[0, size) in pieces of `step` bytes except the holes [hole, hole + hole_len), left
 * as zeros, the last piece first when `swap`; returns 0 with the checksums, or -1. */
static int stream_hash(const unsigned char *data, uint64_t size, ckpt_hash_range *r, size_t n,
                       size_t step, uint64_t hole, uint64_t hole_len, int swap, uint64_t *whole) {
  ckpt_hash_stream h;
  tool_error err;
  assert_int_equal(ckpt_hash_stream_init(&h, r, n, size, &err), 0);
  uint64_t end = size - size % 7; /* the last 0-6 bytes: a hole at the end */
  if (swap) {
    ckpt_hash_stream_feed(&h, data + end - 1, 1, end - 1);
  }
  for (uint64_t at = 0; at < end - (swap != 0); at += step) {
    uint64_t to = at + step < end - (swap != 0) ? at + step : end - (swap != 0);
    for (uint64_t k = at; k < to; k++) {
      if (k < hole || k >= hole + hole_len) {
        uint64_t run = k;
        while (run < to && (run < hole || run >= hole + hole_len)) {
          run++;
        }
        ckpt_hash_stream_feed(&h, data + k, (size_t)(run - k), k);
        k = run;
      }
    }
  }
  int rc = ckpt_hash_stream_end(&h, size, whole);
  ckpt_hash_stream_free(&h);
  return rc;
}

static void test_stream(void **state) {
  (void)state;
  const uint64_t size = 100003;
  unsigned char *data = random_bytes((size_t)size);
  /* Zeros where nothing is fed: at 50000-50100 (between ranges) and the last bytes. */
  memset(data + 50000, 0, 100);
  memset(data + size - size % 7, 0, (size_t)(size % 7));
  ckpt_hash_range want[] = {{0, 16, 0, 0},     {16, 49984, 0, 1},    {50100, 0, 0, 2},
                            {50100, 77, 0, 3}, {50177, 49000, 0, 4}, {size, 0, 0, 5}};
  size_t n = sizeof want / sizeof want[0];
  size_t steps[] = {1, 13, 4096, 1u << 20};
  for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
    ckpt_hash_range r[sizeof want / sizeof want[0]];
    memcpy(r, want, sizeof r);
    uint64_t whole = 0;
    assert_int_equal(stream_hash(data, size, r, n, steps[s], 50000, 100, 0, &whole), 0);
    assert_true(whole == XXH3_64bits(data, (size_t)size));
    for (size_t i = 0; i < n; i++) {
      assert_true(r[i].hash == XXH3_64bits(data + r[i].offset, (size_t)r[i].bytes));
    }
    /* A piece fed before the bytes below it. */
    memcpy(r, want, sizeof r);
    assert_int_equal(stream_hash(data, size, r, n, steps[s], 50000, 100, 1, &whole), -1);
    /* A hole over range 1's bytes. */
    memcpy(r, want, sizeof r);
    assert_int_equal(stream_hash(data, size, r, n, steps[s], 40000, 100, 0, &whole), -1);
  }
  /* Bytes past the end, and a stream that ends short of a range's end. */
  ckpt_hash_stream h;
  tool_error err;
  uint64_t whole;
  assert_int_equal(ckpt_hash_stream_init(&h, NULL, 0, 4, &err), 0);
  ckpt_hash_stream_feed(&h, data, 5, 0);
  assert_int_equal(ckpt_hash_stream_end(&h, 4, &whole), -1);
  ckpt_hash_stream_free(&h);
  ckpt_hash_range r = {2, 10, 0, 0};
  assert_int_equal(ckpt_hash_stream_init(&h, &r, 1, 12, &err), 0);
  ckpt_hash_stream_feed(&h, data, 5, 0);
  assert_int_equal(ckpt_hash_stream_end(&h, 12, &whole), -1);
  ckpt_hash_stream_free(&h);
  /* Ranges out of order are refused at the start. */
  ckpt_hash_range bad[] = {{3, 2, 0, 0}, {1, 1, 0, 1}};
  assert_int_equal(ckpt_hash_stream_init(&h, bad, 2, 6, &err), CLI_EXIT_SOFTWARE);
  ckpt_hash_stream_free(&h);
  free(data);
}

static void test_hex(void **state) {
  (void)state;
  char hex[CKPT_HASH_HEX];
  ckpt_hash_hex(0x0123456789abcdefULL, hex);
  assert_string_equal(hex, "0123456789abcdef");
  uint64_t v = 0;
  assert_int_equal(ckpt_hash_parse("0123456789ABCDEF", &v), 0);
  assert_true(v == 0x0123456789abcdefULL);
  assert_int_equal(ckpt_hash_parse("0123456789abcde", &v), -1);
  assert_int_equal(ckpt_hash_parse("0123456789abcdef0", &v), -1);
  assert_int_equal(ckpt_hash_parse("0123456789abcdeg", &v), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_file_and_ranges),
      cmocka_unit_test(test_short_file),
      cmocka_unit_test(test_ranges_out_of_order),
      cmocka_unit_test(test_copy),
      cmocka_unit_test(test_stream),
      cmocka_unit_test(test_hex),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
