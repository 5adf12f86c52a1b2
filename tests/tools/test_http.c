/* The bounded parsers of tools/common/http.c: Retry-After values and --header lines, as a
 * server or a command line gives them (untrusted); and the delays between retries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http.h"

static long after(const char *text, long long now) {
  return http_parse_retry_after(text, strlen(text), now);
}

static void test_retry_after_seconds(void **state) {
  (void)state;
  assert_int_equal(after("0", 0), 0);
  assert_int_equal(after("2", 0), 2);
  assert_int_equal(after(" 120\r\n", 0), 120);
  /* Capped at an hour, however many digits (no overflow). */
  assert_int_equal(after("3601", 0), 3600);
  assert_int_equal(after("99999999999999999999999999999", 0), 3600);
  assert_int_equal(after("", 0), -1);
  assert_int_equal(after("  ", 0), -1);
  assert_int_equal(after("-1", 0), -1);
  assert_int_equal(after("1.5", 0), -1);
  assert_int_equal(after("12abc", 0), -1);
  char longer[200];
  memset(longer, '1', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  assert_int_equal(after(longer, 0), -1); /* longer than any value: refused unread */
  /* Not NUL-terminated: only `len` bytes are read. */
  assert_int_equal(http_parse_retry_after("75xyz", 2, 0), 75);
}

static void test_retry_after_date(void **state) {
  (void)state;
  /* 784111777 is Sun, 06 Nov 1994 08:49:37 GMT. */
  assert_int_equal(after("Sun, 06 Nov 1994 08:49:37 GMT", 784111777 - 30), 30);
  assert_int_equal(after("Sun, 06 Nov 1994 08:49:37 GMT", 784111777 + 30), 0);
  assert_int_equal(after("Sun, 06 Nov 1994 08:49:37 GMT", 0), 3600);
  assert_int_equal(after("not a date", 0), -1);
}

static void test_delays(void **state) {
  (void)state;
  setenv("CLEAVE_TEST_HTTP_DELAY_MS", "3", 1);
  assert_int_equal(http_retry_delay_ms(0, -1), 3);
  assert_int_equal(http_retry_delay_ms(1, -1), 6);
  assert_int_equal(http_retry_delay_ms(4, -1), 48);
  assert_int_equal(http_retry_delay_ms(9, -1), 48);
  assert_int_equal(http_retry_delay_ms(0, 2), 6);
  setenv("CLEAVE_TEST_HTTP_DELAY_MS", "junk", 1);
  assert_int_equal(http_retry_delay_ms(0, -1), 1000);
  unsetenv("CLEAVE_TEST_HTTP_DELAY_MS");
  assert_int_equal(http_retry_delay_ms(2, -1), 4000);
  assert_int_equal(http_retry_delay_ms(0, 5), 5000);
}

static void test_headers(void **state) {
  (void)state;
  tool_error err;
  assert_int_equal(http_add_header("X-Test: value", &err), 0);
  assert_int_equal(http_add_header("Authorization: Bearer abc", &err), 0);
  assert_int_equal(http_add_header("X-Empty:", &err), 0);
  const char *bad[] = {"no colon",    ": no name", "Bad Name: x", "X-Ctl: a\r\nInjected: b",
                       "X-Del: \x7f", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(http_add_header(bad[i], &err), 64);
    /* The value is never repeated: it may be a secret. */
    assert_null(strstr(err.message, "Injected"));
    assert_non_null(strstr(err.message, "--header takes"));
  }
  char *huge = malloc(9000);
  assert_non_null(huge);
  memcpy(huge, "X-Big: ", 7);
  memset(huge + 7, 'a', 9000 - 8);
  huge[8999] = '\0';
  assert_int_equal(http_add_header(huge, &err), 64);
  free(huge);
}

static void test_is_url(void **state) {
  (void)state;
  assert_true(http_is_url("http://h/x"));
  assert_true(http_is_url("HTTPS://h/x"));
  assert_false(http_is_url("ftp://h/x"));
  assert_false(http_is_url("http:/h"));
  assert_false(http_is_url("model.safetensors"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_retry_after_seconds),
      cmocka_unit_test(test_retry_after_date),
      cmocka_unit_test(test_delays),
      cmocka_unit_test(test_headers),
      cmocka_unit_test(test_is_url),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
