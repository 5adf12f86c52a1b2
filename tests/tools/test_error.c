/* tools/common/error.c: the one error type of the tools. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"

static void test_fail_records_status_and_message(void **state) {
  (void)state;
  tool_error err = {0};
  assert_int_equal(tool_fail(&err, CLI_EXIT_DATA, "tensor '%s' has %d dims", "w", 3),
                   CLI_EXIT_DATA);
  assert_int_equal(err.status, CLI_EXIT_DATA);
  assert_string_equal(err.message, "tensor 'w' has 3 dims");
  /* A NULL error still returns the status. */
  assert_int_equal(tool_fail(NULL, CLI_EXIT_IOERR, "x"), CLI_EXIT_IOERR);
}

static void test_prefix_puts_the_place_first(void **state) {
  (void)state;
  tool_error err = {0};
  tool_fail(&err, CLI_EXIT_DATA, "shape [2,3] does not split");
  assert_int_equal(tool_prefix(&err, "rank%d.safetensors: tensor '%s'", 1, "q"), CLI_EXIT_DATA);
  assert_string_equal(err.message, "rank1.safetensors: tensor 'q': shape [2,3] does not split");
}

static void test_long_messages_are_cut_not_overrun(void **state) {
  (void)state;
  tool_error err = {0};
  char big[3000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  tool_fail(&err, CLI_EXIT_DATA, "%s", big);
  assert_int_equal(strlen(err.message), TOOL_MESSAGE_SIZE - 1);
  tool_prefix(&err, "%s", big);
  assert_int_equal(strlen(err.message), TOOL_MESSAGE_SIZE - 1);
}

static void test_library_statuses_map_to_exit_statuses(void **state) {
  (void)state;
  assert_int_equal(cli_exit_for_status(CLEAVE_OK), CLI_EXIT_OK);
  assert_int_equal(cli_exit_for_status(CLEAVE_ERROR_INVALID_AXIS), CLI_EXIT_DATA);
  assert_int_equal(cli_exit_for_status(CLEAVE_ERROR_OVERFLOW), CLI_EXIT_DATA);
  assert_int_equal(cli_exit_for_status(CLEAVE_ERROR_UNSUPPORTED_VERSION), CLI_EXIT_USAGE);
  assert_int_equal(cli_exit_for_status(CLEAVE_ERROR_OUT_OF_MEMORY), CLI_EXIT_SOFTWARE);
  cleave_error lib = {CLEAVE_ERROR_INVALID_SPLIT, "lengths sum to 7"};
  tool_error err = {0};
  assert_int_equal(tool_from_library(&err, &lib, "tensor 'w'"), CLI_EXIT_DATA);
  assert_string_equal(err.message, "tensor 'w': lengths sum to 7");
  assert_int_equal(tool_from_library(&err, &lib, NULL), CLI_EXIT_DATA);
  assert_string_equal(err.message, "lengths sum to 7");
}

static void test_oom(void **state) {
  (void)state;
  tool_error err = {0};
  assert_int_equal(tool_oom(&err, "reading the index"), CLI_EXIT_SOFTWARE);
  assert_string_equal(err.message, "out of memory reading the index");
}

static void test_plural(void **state) {
  (void)state;
  assert_string_equal(tool_plural(1, "output", "outputs"), "output");
  assert_string_equal(tool_plural(0, "output", "outputs"), "outputs");
  assert_string_equal(tool_plural(2, "output", "outputs"), "outputs");
  assert_string_equal(tool_plural(UINT64_MAX, "byte", "bytes"), "bytes");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fail_records_status_and_message),
      cmocka_unit_test(test_prefix_puts_the_place_first),
      cmocka_unit_test(test_long_messages_are_cut_not_overrun),
      cmocka_unit_test(test_library_statuses_map_to_exit_statuses),
      cmocka_unit_test(test_oom),
      cmocka_unit_test(test_plural),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
