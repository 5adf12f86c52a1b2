/* tools/common/words.c: a line split into words as a POSIX shell splits a simple command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "words.h"

/* Splits `line` and compares the words with `expected` (NULL-terminated). */
static void expect_words(const char *line, const char *const *expected) {
  words w;
  tool_error err;
  assert_int_equal(words_split(line, strlen(line), &w, &err), 0);
  size_t n = 0;
  for (; expected[n] != NULL; n++) {
    assert_true(n < w.count);
    assert_string_equal(w.argv[n], expected[n]);
  }
  assert_int_equal(w.count, n);
  assert_null(w.argv[n]);
  words_free(&w);
}

static void expect_error(const char *line, const char *message) {
  words w;
  tool_error err;
  assert_int_equal(words_split(line, strlen(line), &w, &err), CLI_EXIT_USAGE);
  assert_string_equal(err.message, message);
  assert_null(w.argv);
}

static void test_plain(void **state) {
  (void)state;
  expect_words("--tensor a.* -a 0\t-n 3\r\n",
               (const char *const[]){"--tensor", "a.*", "-a", "0", "-n", "3", NULL});
  expect_words("", (const char *const[]){NULL});
  expect_words("   \t\n", (const char *const[]){NULL});
  expect_words("x", (const char *const[]){"x", NULL});
}

static void test_quotes(void **state) {
  (void)state;
  /* As the shell: single quotes keep everything, double quotes all but \" \\ \$ \`. */
  expect_words("--tensor 'model.layers.*.qkv proj' --into \"a b,c\\\"d\\\\e\\xf\"",
               (const char *const[]){"--tensor", "model.layers.*.qkv proj", "--into",
                                     "a b,c\"d\\e\\xf", NULL});
  expect_words("'it'\\''s' a\"b\"'c' '' \"\"", (const char *const[]){"it's", "abc", "", "", NULL});
  expect_words("'#not a comment' \"$x\" '\\n'",
               (const char *const[]){"#not a comment", "$x", "\\n", NULL});
}

static void test_backslashes_and_comments(void **state) {
  (void)state;
  expect_words("a\\ b c\\#d \\'e\\\" \\\\",
               (const char *const[]){"a b", "c#d", "'e\"", "\\", NULL});
  expect_words("--tensor x # the rest: 'unclosed", (const char *const[]){"--tensor", "x", NULL});
  expect_words("# a whole comment", (const char *const[]){NULL});
  expect_words("a#b", (const char *const[]){"a#b", NULL});
  expect_words("\\#a", (const char *const[]){"#a", NULL});
}

static void test_errors(void **state) {
  (void)state;
  expect_error("--into 'a,b", "column 8: the single quote opened here is not closed");
  expect_error("x \"a\\\"", "column 3: the double quote opened here is not closed");
  expect_error("-a 0 \\", "column 6: a backslash ends the line (a line continuation is not "
                          "supported: write the whole rule on one line)");
  expect_error("-a 0 \\\n", "column 6: a backslash ends the line (a line continuation is not "
                            "supported: write the whole rule on one line)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plain),
      cmocka_unit_test(test_quotes),
      cmocka_unit_test(test_backslashes_and_comments),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
