/* tools/common/report.c, out_default_prefix and out_resolve_prefix: what the commands print about
 * their outputs, as text and as docs/cli.md's JSON, and the output prefix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "outputs.h"
#include "report.h"

/* A report written into memory. */
typedef struct captured {
  char *text;
  size_t size;
  FILE *out;
} captured;

static void capture(captured *c) {
  c->text = NULL;
  c->size = 0;
  c->out = open_memstream(&c->text, &c->size);
  assert_non_null(c->out);
}

static void expect(captured *c, const char *expected) {
  fclose(c->out);
  assert_string_equal(c->text, expected);
  free(c->text);
}

static const int64_t dims[] = {1, 12, 10, 24};

static void test_text(void **state) {
  (void)state;
  captured c;
  capture(&c);
  report r;
  report_begin(&r, c.out, "variadic-split", 0, 0);
  report_output(&r, dims, 4, "x_0.npy");
  report_output(&r, dims, 0, "x_1.npy");
  report_output(&r, dims + 1, 2, NULL);
  report_output_text(&r, "[3,1..4]");
  assert_int_equal(report_end(&r), 0);
  expect(&c, "x_0.npy [1,12,10,24]\nx_1.npy []\n[12,10]\n[3,1..4]\n");

  capture(&c);
  report_begin(&r, c.out, "split", 0, 1);
  report_output(&r, dims, 4, "x_0.npy");
  assert_int_equal(report_end(&r), 0);
  expect(&c, "");

  capture(&c);
  report_begin(&r, c.out, "split-to-sequence", 0, 0);
  report_sequence(&r, "2..3", "[3,1..4]");
  assert_int_equal(report_end(&r), 0);
  expect(&c, "2..3 x [3,1..4]\n");
}

static void test_json(void **state) {
  (void)state;
  captured c;
  capture(&c);
  report r;
  /* --json prints even with -q; "shape" is the text form, "dims" the same as integers. */
  report_begin(&r, c.out, "variadic-split", 1, 1);
  report_output(&r, dims, 4, "x_0.npy");
  report_output(&r, dims, 1, "a \"b\".npy");
  report_output(&r, dims, 0, "s.npy");
  assert_int_equal(report_end(&r), 0);
  expect(&c, "{\"op\": \"variadic-split\", \"outputs\": [{\"shape\": \"[1,12,10,24]\", \"path\": "
             "\"x_0.npy\", \"dims\": [1, 12, 10, 24]}, {\"shape\": \"[1]\", \"path\": \"a "
             "\\\"b\\\".npy\", \"dims\": [1]}, {\"shape\": \"[]\", \"path\": \"s.npy\", \"dims\": "
             "[]}]}\n");

  /* A shape in text form has "dims" only when it is static. */
  capture(&c);
  report_begin(&r, c.out, "onnx-split", 1, 0);
  report_output(&r, dims, 2, NULL);
  report_output_text(&r, "[?]");
  report_output_text(&r, "[3,4]");
  assert_int_equal(report_end(&r), 0);
  expect(&c, "{\"op\": \"onnx-split\", \"outputs\": [{\"shape\": \"[1,12]\", \"dims\": [1, 12]}, "
             "{\"shape\": \"[?]\"}, {\"shape\": \"[3,4]\", \"dims\": [3, 4]}]}\n");

  /* An empty sequence still has its outputs array. */
  capture(&c);
  report_begin(&r, c.out, "split-to-sequence", 1, 0);
  assert_int_equal(report_end(&r), 0);
  expect(&c, "{\"op\": \"split-to-sequence\", \"outputs\": []}\n");

  capture(&c);
  report_begin(&r, c.out, "split-to-sequence", 1, 0);
  report_sequence(&r, "2..3", "[3,1..4]");
  assert_int_equal(report_end(&r), 0);
  expect(&c, "{\"op\": \"split-to-sequence\", \"count\": \"2..3\", \"element\": \"[3,1..4]\"}\n");

  capture(&c);
  report_begin(&r, c.out, "split-to-sequence", 1, 0);
  report_sequence(&r, "3..6", "[3,1]");
  assert_int_equal(report_end(&r), 0);
  expect(&c, "{\"op\": \"split-to-sequence\", \"count\": \"3..6\", \"element\": \"[3,1]\", "
             "\"element_dims\": [3, 1]}\n");
}

static void test_failing_stream(void **state) {
  (void)state;
  FILE *full = fopen("/dev/full", "w");
  if (full == NULL) {
    skip();
  }
  /* The message goes to stderr: keep it out of the test's log. */
  FILE *saved = stderr;
  stderr = fopen("/dev/null", "w");
  assert_non_null(stderr);
  report r;
  report_begin(&r, full, "split", 0, 0);
  report_output(&r, dims, 4, "x_0.npy");
  int text_rc = report_end(&r);
  report_begin(&r, full, "split", 1, 0);
  report_output(&r, dims, 4, "x_0.npy");
  int json_rc = report_end(&r);
  fclose(stderr);
  stderr = saved;
  fclose(full);
  assert_int_equal(text_rc, CLI_EXIT_IOERR);
  assert_int_equal(json_rc, CLI_EXIT_IOERR);
}

static void test_default_prefix(void **state) {
  (void)state;
  static const struct {
    const char *input, *suffix, *prefix;
  } cases[] = {
      {"data/x.npy", ".npy", "data/x"},   {"x.npy.npy", ".npy", "x.npy"},
      {".npy", ".npy", ".npy"},           {"model.xml", ".xml", "model"},
      {"model.XML", ".xml", "model.XML"}, {"x", ".npy", "x"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *prefix = out_default_prefix(cases[i].input, cases[i].suffix);
    assert_non_null(prefix);
    assert_string_equal(prefix, cases[i].prefix);
    free(prefix);
  }
}

/* -o: a prefix, or a directory (existing, or written with a trailing '/') holding DIR/STEM_i. */
static void test_resolve_prefix(void **state) {
  (void)state;
  char dir[] = "/tmp/cleave-test-prefix-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char with_stem[64];
  snprintf(with_stem, sizeof with_stem, "%s/x", dir);
  const struct {
    const char *output, *input, *prefix;
  } cases[] = {
      {NULL, "data/x.npy", "data/x"},      {"p", "data/x.npy", "p"},
      {"out/", "data/x.npy", "out/x"},     {"out//", "x.npy", "out//x"},
      {"/", "a/b/x.data", "/x.data"},      {dir, "data/x.npy", with_stem},
      {"missing/p", "x.npy", "missing/p"}, {"out/", "data/.npy", "out/.npy"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *prefix = out_resolve_prefix(cases[i].output, cases[i].input, ".npy");
    assert_non_null(prefix);
    assert_string_equal(prefix, cases[i].prefix);
    free(prefix);
  }
  assert_int_equal(rmdir(dir), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_text),           cmocka_unit_test(test_json),
      cmocka_unit_test(test_failing_stream), cmocka_unit_test(test_default_prefix),
      cmocka_unit_test(test_resolve_prefix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
