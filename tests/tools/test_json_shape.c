/* tools/common/json_out.c and shape_format.c: the --json writer and the shape formatter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "json_out.h"
#include "shape_format.h"

/* Runs `write` into a memory stream and compares the text. */
static void expect_json(void (*write)(json_out *), const char *expected) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  assert_non_null(out);
  json_out j;
  json_out_begin(&j, out);
  write(&j);
  assert_int_equal(json_out_finish(&j), 0);
  fclose(out);
  assert_string_equal(text, expected);
  free(text);
}

static void report(json_out *j) {
  const int64_t dims[] = {1, 12, 10, 24};
  json_out_object(j, NULL);
  json_out_string(j, "op", "variadic-split");
  json_out_array(j, "outputs");
  json_out_object(j, NULL);
  json_out_dims(j, "shape", dims, 4);
  json_out_string(j, "path", "x_0.npy");
  json_out_end_object(j);
  json_out_object(j, NULL);
  json_out_dims(j, "shape", dims, 0);
  json_out_string(j, "path", NULL);
  json_out_end_object(j);
  json_out_end_array(j);
  json_out_int(j, "axis", -2);
  json_out_uint(j, "bytes", 18446744073709551615u);
  json_out_bool(j, "ok", 1);
  json_out_bool(j, "dry_run", 0);
  json_out_end_object(j);
}

static void test_report(void **state) {
  (void)state;
  expect_json(report, "{\"op\": \"variadic-split\", \"outputs\": [{\"shape\": [1, 12, 10, 24], "
                      "\"path\": \"x_0.npy\"}, {\"shape\": [], \"path\": null}], \"axis\": -2, "
                      "\"bytes\": 18446744073709551615, \"ok\": true, \"dry_run\": false}\n");
}

static void escapes(json_out *j) {
  json_out_array(j, NULL);
  json_out_string(j, NULL, "a\"b\\c\n\x01\x7f\xc3\xa9");
  json_out_array(j, NULL);
  json_out_end_array(j);
  json_out_object(j, NULL);
  json_out_end_object(j);
  json_out_end_array(j);
}

static void test_escapes_and_empty_containers(void **state) {
  (void)state;
  expect_json(escapes, "[\"a\\\"b\\\\c\\u000a\\u0001\\u007f\xc3\xa9\", [], {}]\n");
}

static void test_shape_format(void **state) {
  (void)state;
  const int64_t dims[] = {6, 4, 0, 9223372036854775807};
  char buf[SHAPE_TEXT_MAX];
  assert_string_equal(shape_format(dims, 4, buf, sizeof buf), "[6,4,0,9223372036854775807]");
  assert_string_equal(shape_format(dims, 0, buf, sizeof buf), "[]");
  /* Cut, never overrun, always terminated. */
  char small[6];
  assert_string_equal(shape_format(dims, 4, small, sizeof small), "[6,4,");
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  shape_print(out, dims, 2);
  fclose(out);
  assert_string_equal(text, "[6,4]");
  free(text);
}

/* A report on stdout that cannot be written says so, naming stdout (the tests of the commands look
 * for the word). */
static void test_failed_stdout(void **state) {
  (void)state;
  FILE *full = fopen("/dev/full", "w");
  if (full == NULL) {
    skip();
  }
  char *text = NULL;
  size_t size = 0;
  FILE *messages = open_memstream(&text, &size);
  assert_non_null(messages);
  FILE *saved_out = stdout, *saved_err = stderr;
  stdout = full;
  stderr = messages;
  json_out j;
  json_out_begin(&j, stdout);
  json_out_object(&j, NULL);
  json_out_end_object(&j);
  int rc = json_out_finish(&j);
  stdout = saved_out;
  stderr = saved_err;
  fclose(messages);
  fclose(full);
  assert_int_equal(rc, CLI_EXIT_IOERR);
  assert_string_equal(
      text, "cleave: error: writing the report to stdout failed: No space left on device\n");
  free(text);
}

/* Reading static shapes and integer lists back from text: canonical forms only. */
static void test_shape_parse(void **state) {
  (void)state;
  int64_t dims[4];
  size_t rank = 99;
  assert_int_equal(shape_parse_static("[6,4,0,9223372036854775807]", dims, 4, &rank), 1);
  assert_int_equal(rank, 4);
  assert_true(dims[0] == 6 && dims[1] == 4 && dims[2] == 0 && dims[3] == INT64_MAX);
  assert_int_equal(shape_parse_static("[]", dims, 4, &rank), 1);
  assert_int_equal(rank, 0);
  static const char *const not_static[] = {
      "[?,4]",
      "[3..6]",
      "[...]",
      "[-1,2]",
      "[1,2",
      "1,2]",
      "[1,,2]",
      "[1,2,]",
      "[01]",
      "[ 1]",
      "[1 ]",
      "[1]x",
      "",
      "[",
      "]",
      "3",
      "[1,2,3,4,5]",
      "[+1]",
      "[9223372036854775808]",
      "[1.0]",
  };
  for (size_t i = 0; i < sizeof not_static / sizeof not_static[0]; i++) {
    assert_int_equal(shape_parse_static(not_static[i], dims, 4, &rank), 0);
  }
  assert_int_equal(shape_parse_static(NULL, dims, 4, &rank), 0);
  /* Integer lists take a sign; -0 and a leading zero are not canonical. */
  assert_int_equal(shape_parse_int_list("[-1,2,-9223372036854775808]", dims, 4, &rank), 1);
  assert_true(rank == 3 && dims[0] == -1 && dims[1] == 2 && dims[2] == INT64_MIN);
  assert_int_equal(shape_parse_int_list("[-0]", dims, 4, &rank), 0);
  assert_int_equal(shape_parse_int_list("[--1]", dims, 4, &rank), 0);
  assert_int_equal(shape_parse_int_list("[-]", dims, 4, &rank), 0);
  int64_t v = 0;
  assert_int_equal(shape_parse_int("-3", &v), 1);
  assert_int_equal(v, -3);
  assert_int_equal(shape_parse_int("9223372036854775807", &v), 1);
  assert_int_equal(v, INT64_MAX);
  assert_int_equal(shape_parse_int("-9223372036854775808", &v), 1);
  assert_int_equal(v, INT64_MIN);
  assert_int_equal(shape_parse_int("9223372036854775808", &v), 0);
  assert_int_equal(shape_parse_int("18446744073709551615", &v), 0);
  assert_int_equal(shape_parse_int("?", &v), 0);
  assert_int_equal(shape_parse_int("1 ", &v), 0);
  assert_int_equal(shape_parse_int(NULL, &v), 0);
}

static void static_or_text(json_out *j) {
  json_out_array(j, NULL);
  static const char *const texts[] = {"3",    "-1", "[6,4]", "[]", "[-1,2]", "[?,4]",
                                      "2..3", "?",  "[...]", "03", NULL};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    json_out_static_or_text(j, NULL, texts[i]);
  }
  json_out_end_array(j);
}

static void test_static_or_text(void **state) {
  (void)state;
  expect_json(static_or_text, "[3, -1, [6, 4], [], [-1, 2], \"[?,4]\", \"2..3\", \"?\", "
                              "\"[...]\", \"03\", null]\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_report),
      cmocka_unit_test(test_failed_stdout),
      cmocka_unit_test(test_escapes_and_empty_containers),
      cmocka_unit_test(test_shape_format),
      cmocka_unit_test(test_shape_parse),
      cmocka_unit_test(test_static_or_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
