/* The text form of partial shapes: parsing, canonical printing, errors and buffer sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cleave.h"

/* Parses `text` and prints it back in canonical form. */
static void expect_canonical(const char *text, const char *want) {
  cleave_dim dims[16];
  size_t rank = 99;
  cleave_error err;
  cleave_status st = cleave_partial_shape_parse(text, dims, 16, &rank, &err);
  if (st != CLEAVE_OK) {
    print_error("\"%s\": %s\n", text, err.message);
  }
  assert_int_equal(st, CLEAVE_OK);
  assert_int_equal(err.status, CLEAVE_OK);
  assert_string_equal(err.message, "");
  char buf[512];
  size_t length = 0;
  cleave_partial_shape shape = {rank, dims};
  assert_int_equal(cleave_partial_shape_format(&shape, buf, sizeof buf, &length, &err), CLEAVE_OK);
  assert_string_equal(buf, want);
  assert_int_equal(length, strlen(want));
}

static void test_parse_and_print(void **state) {
  (void)state;
  expect_canonical("[6,12,10,24]", "[6,12,10,24]");
  expect_canonical("[2,?,3..6,4..]", "[2,?,3..6,4..]");
  expect_canonical("[]", "[]");
  expect_canonical("[...]", "[...]");
  expect_canonical("[-1,3]", "[?,3]");
  expect_canonical("[0..]", "[?]");
  expect_canonical("[5..5]", "[5]");
  expect_canonical("[0..0]", "[0]");
  expect_canonical("[0..7]", "[0..7]");
  expect_canonical(" [ 2 ,\t? , 3..6 ] ", "[2,?,3..6]");
  expect_canonical("[ ... ]", "[...]");
  expect_canonical("[ ]", "[]");
  expect_canonical("[007]", "[7]");
  expect_canonical("[9223372036854775807]", "[9223372036854775807]");
  expect_canonical("[9223372036854775806..9223372036854775807]",
                   "[9223372036854775806..9223372036854775807]");
  expect_canonical("[9223372036854775807..]", "[9223372036854775807..]");
}

static void test_parsed_values(void **state) {
  (void)state;
  cleave_dim dims[8];
  size_t rank = 0;
  assert_int_equal(cleave_partial_shape_parse("[2,?,3..6,4..,-1]", dims, 8, &rank, NULL),
                   CLEAVE_OK);
  assert_int_equal(rank, 5);
  const int64_t want[5][2] = {{2, 2},
                              {0, CLEAVE_DIM_UNBOUNDED},
                              {3, 6},
                              {4, CLEAVE_DIM_UNBOUNDED},
                              {0, CLEAVE_DIM_UNBOUNDED}};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(dims[i].lo, want[i][0]);
    assert_int_equal(dims[i].hi, want[i][1]);
  }
  assert_int_equal(cleave_partial_shape_parse("[...]", dims, 8, &rank, NULL), CLEAVE_OK);
  assert_int_equal(rank, CLEAVE_RANK_DYNAMIC);
  assert_int_equal(cleave_partial_shape_parse("[]", NULL, 0, &rank, NULL), CLEAVE_OK);
  assert_int_equal(rank, 0);
  /* dims NULL: the rank only. */
  assert_int_equal(cleave_partial_shape_parse("[1,2,3]", NULL, 0, &rank, NULL), CLEAVE_OK);
  assert_int_equal(rank, 3);
}

/* Expects a parse error naming every needle, with dims and rank untouched. */
static void expect_parse_error(const char *text, const char *const *needles) {
  cleave_dim dims[4];
  for (int i = 0; i < 4; i++) {
    dims[i] = cleave_dim_range(-3, -3);
  }
  size_t rank = 77;
  cleave_error err;
  cleave_status st = cleave_partial_shape_parse(text, dims, 4, &rank, &err);
  if (st != CLEAVE_ERROR_INVALID_SHAPE) {
    print_error("\"%s\": status %d\n", text, (int)st);
  }
  assert_int_equal(st, CLEAVE_ERROR_INVALID_SHAPE);
  assert_int_equal(err.status, CLEAVE_ERROR_INVALID_SHAPE);
  for (int i = 0; needles[i] != NULL; i++) {
    if (strstr(err.message, needles[i]) == NULL) {
      print_error("\"%s\": message \"%s\" lacks \"%s\"\n", text, err.message, needles[i]);
    }
    assert_non_null(strstr(err.message, needles[i]));
  }
  assert_int_equal(rank, 77);
  for (int i = 0; i < 4; i++) {
    assert_int_equal(dims[i].lo, -3);
  }
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_parse_errors(void **state) {
  (void)state;
  expect_parse_error("[3..2]", NEEDLES("3..2", "lower bound above its upper bound", "character 2"));
  expect_parse_error("[1,5..4]", NEEDLES("5..4", "character 4"));
  expect_parse_error("[2,x]", NEEDLES("'x'", "character 4"));
  expect_parse_error("", NEEDLES("end of text", "character 1", "'['"));
  expect_parse_error("2,3", NEEDLES("'2'", "character 1"));
  expect_parse_error("[", NEEDLES("end of text", "character 2"));
  expect_parse_error("[2", NEEDLES("end of text", "character 3"));
  expect_parse_error("[2,]", NEEDLES("']'", "character 4"));
  expect_parse_error("[,]", NEEDLES("','", "character 2"));
  expect_parse_error("[2]x", NEEDLES("'x'", "character 4"));
  expect_parse_error("[2][3]", NEEDLES("'['", "character 4"));
  expect_parse_error("[-2]", NEEDLES("negative", "character 2"));
  expect_parse_error("[-12]", NEEDLES("negative", "character 2"));
  expect_parse_error("[-1..4]", NEEDLES("'.'", "character 4"));
  expect_parse_error("[1.5]", NEEDLES("'5'", "character 4"));
  expect_parse_error("[..5]", NEEDLES("'.'", "character 2"));
  expect_parse_error("[?..5]", NEEDLES("'.'", "character 3"));
  expect_parse_error("[4..x]", NEEDLES("'x'", "character 5"));
  expect_parse_error("[...,1]", NEEDLES("','", "character 5"));
  expect_parse_error("[2 3]", NEEDLES("'3'", "character 4"));
  expect_parse_error("[+3]", NEEDLES("'+'", "character 2"));
  expect_parse_error("[9223372036854775808]", NEEDLES("above 9223372036854775807", "character 2"));
  expect_parse_error("[1..99999999999999999999]", NEEDLES("above", "character 5"));
  expect_parse_error("[\x01]", NEEDLES("byte 0x01", "character 2"));
}

static void test_parse_capacity_and_arguments(void **state) {
  (void)state;
  cleave_dim dims[3] = {{-3, -3}, {-3, -3}, {-3, -3}};
  size_t rank = 0;
  cleave_error err;
  assert_int_equal(cleave_partial_shape_parse("[1,2,3]", dims, 2, &rank, &err),
                   CLEAVE_ERROR_CAPACITY);
  assert_int_equal(rank, 3);
  assert_non_null(strstr(err.message, "3 dimensions"));
  for (int i = 0; i < 3; i++) {
    assert_int_equal(dims[i].lo, -3);
  }
  assert_int_equal(cleave_partial_shape_parse("[1,2,3]", dims, 3, &rank, &err), CLEAVE_OK);
  assert_int_equal(dims[2].lo, 3);
  assert_int_equal(cleave_partial_shape_parse(NULL, dims, 3, &rank, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cleave_partial_shape_parse("[1]", dims, 3, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
}

static void test_format_dims_and_buffers(void **state) {
  (void)state;
  char buf[CLEAVE_DIM_TEXT_SIZE];
  size_t length = 0;
  cleave_error err;
  struct {
    cleave_dim dim;
    const char *text;
  } cases[] = {
      {{5, 5}, "5"},
      {{0, CLEAVE_DIM_UNBOUNDED}, "?"},
      {{3, CLEAVE_DIM_UNBOUNDED}, "3.."},
      {{0, 4}, "0..4"},
      {{2, 3}, "2..3"},
      {{INT64_MAX, INT64_MAX}, "9223372036854775807"},
      {{INT64_MAX - 1, CLEAVE_DIM_UNBOUNDED}, "9223372036854775806.."},
      {{0, INT64_MAX}, "0..9223372036854775807"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(cleave_dim_format(cases[i].dim, buf, sizeof buf, &length, &err), CLEAVE_OK);
    assert_string_equal(buf, cases[i].text);
    assert_int_equal(length, strlen(cases[i].text));
  }
  /* The longest dim text fits CLEAVE_DIM_TEXT_SIZE. */
  assert_int_equal(
      cleave_dim_format(cleave_dim_range(INT64_MAX - 1, INT64_MAX), buf, sizeof buf, &length, &err),
      CLEAVE_OK);
  assert_int_equal(length, 40);
  /* Too small: CAPACITY, "" and the length needed. */
  char small[4] = "zzz";
  assert_int_equal(cleave_dim_format(cleave_dim_range(10, 20), small, 4, &length, &err),
                   CLEAVE_ERROR_CAPACITY);
  assert_string_equal(small, "");
  assert_int_equal(length, 6);
  assert_int_equal(cleave_dim_format(cleave_dim_range(1, 20), small, 4, &length, &err),
                   CLEAVE_ERROR_CAPACITY);
  char fits[5];
  assert_int_equal(cleave_dim_format(cleave_dim_range(1, 2), fits, 5, &length, &err), CLEAVE_OK);
  assert_string_equal(fits, "1..2");
  /* Size 0 with a NULL buffer: learn the length. */
  assert_int_equal(cleave_dim_format(cleave_dim_point(123), NULL, 0, &length, &err),
                   CLEAVE_ERROR_CAPACITY);
  assert_int_equal(length, 3);
  /* Malformed dims. */
  assert_int_equal(cleave_dim_format(cleave_dim_range(4, 3), buf, sizeof buf, &length, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);
  assert_non_null(strstr(err.message, "[4, 3]"));
  assert_int_equal(cleave_dim_format(cleave_dim_range(-1, 3), buf, sizeof buf, &length, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);

  cleave_dim dims[] = {{2, 2}, {0, CLEAVE_DIM_UNBOUNDED}, {3, 6}};
  cleave_partial_shape shape = {3, dims};
  char text[12];
  /* "[2,?,3..6]" is 10 characters: 11 bytes fit, 10 do not. */
  assert_int_equal(cleave_partial_shape_format(&shape, text, 11, &length, &err), CLEAVE_OK);
  assert_string_equal(text, "[2,?,3..6]");
  assert_int_equal(cleave_partial_shape_format(&shape, text, 10, &length, &err),
                   CLEAVE_ERROR_CAPACITY);
  assert_int_equal(length, 10);
  assert_string_equal(text, "");
  shape.rank = CLEAVE_RANK_DYNAMIC;
  shape.dims = NULL;
  assert_int_equal(cleave_partial_shape_format(&shape, text, sizeof text, &length, &err),
                   CLEAVE_OK);
  assert_string_equal(text, "[...]");
  shape.rank = 0;
  assert_int_equal(cleave_partial_shape_format(&shape, text, sizeof text, &length, &err),
                   CLEAVE_OK);
  assert_string_equal(text, "[]");
  shape.rank = 2;
  assert_int_equal(cleave_partial_shape_format(&shape, text, sizeof text, &length, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  dims[1] = cleave_dim_range(7, 6);
  shape.rank = 3;
  shape.dims = dims;
  assert_int_equal(cleave_partial_shape_format(&shape, text, sizeof text, &length, &err),
                   CLEAVE_ERROR_INVALID_SHAPE);
  assert_non_null(strstr(err.message, "dimension 1"));
  assert_int_equal(cleave_partial_shape_format(NULL, text, sizeof text, &length, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_and_print),
      cmocka_unit_test(test_parsed_values),
      cmocka_unit_test(test_parse_errors),
      cmocka_unit_test(test_parse_capacity_and_arguments),
      cmocka_unit_test(test_format_dims_and_buffers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
