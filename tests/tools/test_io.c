/* tools/common/io.c: full reads and writes, truncation and failures named with the offset. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "io.h"

static int temp_file(char *path, size_t size) {
  snprintf(path, size, "/tmp/cleave-test-io-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  return fd;
}

static void test_write_then_read_back(void **state) {
  (void)state;
  char path[64];
  int fd = temp_file(path, sizeof path);
  /* Larger than one pipe or page, at an offset: several calls may be needed. */
  size_t size = (1u << 20) + 123;
  unsigned char *out = malloc(size), *in = malloc(size);
  assert_non_null(out);
  assert_non_null(in);
  for (size_t i = 0; i < size; i++) {
    out[i] = (unsigned char)(i * 31 + 7);
  }
  tool_error err = {0};
  assert_int_equal(io_write_full(fd, path, out, size, 100, &err), 0);
  assert_int_equal(io_read_full(fd, path, in, size, 100, CLI_EXIT_DATA, &err), 0);
  assert_memory_equal(in, out, size);
  size_t got = 0;
  assert_int_equal(io_read_upto(fd, path, in, size, 100 + size - 10, &got, &err), 0);
  assert_int_equal(got, 10);
  assert_memory_equal(in, out + size - 10, 10);
  free(out);
  free(in);
  close(fd);
  unlink(path);
}

static void test_short_file_gives_the_callers_status(void **state) {
  (void)state;
  char path[64];
  int fd = temp_file(path, sizeof path);
  tool_error err = {0};
  assert_int_equal(io_write_full(fd, path, "0123456789", 10, 0, &err), 0);
  char buf[16];
  assert_int_equal(io_read_full(fd, path, buf, 8, 4, CLI_EXIT_DATA, &err), CLI_EXIT_DATA);
  assert_int_equal(err.status, CLI_EXIT_DATA);
  char expected[256];
  snprintf(expected, sizeof expected, "'%s' ends at byte 10, before the 8 bytes at offset 4", path);
  assert_string_equal(err.message, expected);
  assert_int_equal(io_read_full(fd, path, buf, 8, 4, CLI_EXIT_IOERR, &err), CLI_EXIT_IOERR);
  close(fd);
  unlink(path);
}

static void test_failures_name_the_file_and_offset(void **state) {
  (void)state;
  tool_error err = {0};
  char buf[4];
  /* A descriptor open for writing only cannot be read. */
  int fd = open("/dev/null", O_WRONLY);
  assert_true(fd >= 0);
  assert_int_equal(io_read_full(fd, "null", buf, 4, 0, CLI_EXIT_DATA, &err), CLI_EXIT_IOERR);
  assert_string_equal(err.message, "cannot read 'null' at offset 0: Bad file descriptor");
  close(fd);
  /* /dev/full refuses every write with ENOSPC. */
  fd = open("/dev/full", O_WRONLY);
  if (fd >= 0) {
    assert_int_equal(io_write_full(fd, "full", "abcd", 4, 0, &err), CLI_EXIT_IOERR);
    assert_string_equal(err.message, "writing 'full' failed at offset 0: No space left on device");
    close(fd);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_write_then_read_back),
      cmocka_unit_test(test_short_file_gives_the_callers_status),
      cmocka_unit_test(test_failures_name_the_file_and_offset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
