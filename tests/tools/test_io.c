/* tools/common/io.c: opening inputs, full reads and writes, truncation and failures named with the
 * offset. */
#include <errno.h>
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

static void test_open_regular(void **state) {
  (void)state;
  char path[64];
  int made = temp_file(path, sizeof path);
  tool_error err = {0};
  assert_int_equal(io_write_full(made, path, "0123456789", 10, 0, &err), 0);
  close(made);
  int fd = -1;
  uint64_t size = 0;
  assert_int_equal(io_open_regular(path, "input", &fd, &size, &err), 0);
  assert_true(fd >= 0);
  assert_int_equal(size, 10);
  close(fd);
  unlink(path);

  /* Each refusal names what the file is, leaves nothing open and gives status 66. */
  char expected[256];
  assert_int_equal(io_open_regular(path, "input", &fd, &size, &err), CLI_EXIT_NOINPUT);
  assert_int_equal(err.status, CLI_EXIT_NOINPUT);
  assert_int_equal(fd, -1);
  snprintf(expected, sizeof expected, "cannot open input '%s': No such file or directory", path);
  assert_string_equal(err.message, expected);
  assert_int_equal(io_open_regular("/tmp", NULL, &fd, &size, &err), CLI_EXIT_NOINPUT);
  assert_string_equal(err.message, "cannot open '/tmp': it is a directory");
  assert_int_equal(fd, -1);
  assert_int_equal(io_open_regular("/dev/null", "the weights", &fd, &size, &err), CLI_EXIT_NOINPUT);
  assert_string_equal(err.message, "cannot open the weights '/dev/null': it is not a regular file "
                                   "(cleave reads its files at offsets)");
  assert_int_equal(fd, -1);
}

static void test_loops_return_the_errno(void **state) {
  (void)state;
  char path[64];
  int fd = temp_file(path, sizeof path);
  size_t count = 99;
  assert_int_equal(io_pwrite_all(fd, "abcdef", 6, 2, &count), 0);
  assert_int_equal(count, 6);
  char buf[16];
  /* Up to the end of the file: 8 bytes, 2 of them the hole before the data. */
  assert_int_equal(io_pread_all(fd, buf, sizeof buf, 0, &count), 0);
  assert_int_equal(count, 8);
  assert_memory_equal(buf + 2, "abcdef", 6);
  close(fd);
  unlink(path);
  fd = open("/dev/null", O_WRONLY);
  assert_true(fd >= 0);
  assert_int_equal(io_pread_all(fd, buf, 4, 0, &count), EBADF);
  assert_int_equal(count, 0);
  close(fd);
  fd = open("/dev/full", O_WRONLY);
  if (fd >= 0) {
    assert_int_equal(io_pwrite_all(fd, "abcd", 4, 0, &count), ENOSPC);
    assert_int_equal(count, 0);
    close(fd);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_regular),
      cmocka_unit_test(test_loops_return_the_errno),
      cmocka_unit_test(test_write_then_read_back),
      cmocka_unit_test(test_short_file_gives_the_callers_status),
      cmocka_unit_test(test_failures_name_the_file_and_offset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
