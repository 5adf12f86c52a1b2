/*
 * Element types, status names and versions (docs/operators.md section 7; cleave.h "Element types",
 * "Status and errors", "Versions").
 */
#include "test_util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The names of docs/operators.md section 7, by dtype value. */
static const struct {
  cleave_dtype dtype;
  const char *name;
} names[] = {
    {CLEAVE_BOOLEAN, "boolean"},
    {CLEAVE_I8, "i8"},
    {CLEAVE_I16, "i16"},
    {CLEAVE_I32, "i32"},
    {CLEAVE_I64, "i64"},
    {CLEAVE_U8, "u8"},
    {CLEAVE_U16, "u16"},
    {CLEAVE_U32, "u32"},
    {CLEAVE_U64, "u64"},
    {CLEAVE_F16, "f16"},
    {CLEAVE_BF16, "bf16"},
    {CLEAVE_F32, "f32"},
    {CLEAVE_F64, "f64"},
    {CLEAVE_C64, "c64"},
    {CLEAVE_C128, "c128"},
    {CLEAVE_F8E4M3, "f8e4m3"},
    {CLEAVE_F8E5M2, "f8e5m2"},
    {CLEAVE_F8E4M3FNUZ, "f8e4m3fnuz"},
    {CLEAVE_F8E5M2FNUZ, "f8e5m2fnuz"},
    {CLEAVE_F8E8M0, "f8e8m0"},
    {CLEAVE_BYTES, "bytes"},
    {CLEAVE_UNICODE, "unicode"},
    {CLEAVE_STRING, "string"},
    {CLEAVE_U1, "u1"},
    {CLEAVE_U2, "u2"},
    {CLEAVE_U3, "u3"},
    {CLEAVE_U4, "u4"},
    {CLEAVE_I4, "i4"},
    {CLEAVE_U6, "u6"},
    {CLEAVE_NF4, "nf4"},
    {CLEAVE_F4E2M1, "f4e2m1"},
    {CLEAVE_INT4, "int4"},
    {CLEAVE_UINT4, "uint4"},
    {CLEAVE_INT2, "int2"},
    {CLEAVE_UINT2, "uint2"},
    {CLEAVE_FLOAT4E2M1, "float4e2m1"},
};
#define NUM_NAMES (sizeof names / sizeof names[0])

static void test_dtype_names(void **state) {
  (void)state;
  for (size_t i = 0; i < NUM_NAMES; ++i) {
    const char *got = cleave_dtype_name(names[i].dtype);
    tu_context("dtype %d, expected name %s", (int)names[i].dtype, names[i].name);
    TU_CHECK(got != NULL);
    TU_CHECK(strcmp(got, names[i].name) == 0);
  }
}

static void test_dtype_name_unknown(void **state) {
  (void)state;
  assert_null(cleave_dtype_name((cleave_dtype)0));
  assert_null(cleave_dtype_name((cleave_dtype)37)); /* one past CLEAVE_FLOAT4E2M1 */
  assert_null(cleave_dtype_name((cleave_dtype)-1));
  assert_null(cleave_dtype_name((cleave_dtype)1000));
}

static void test_dtype_round_trip(void **state) {
  (void)state;
  for (int v = 1; v <= 23; ++v) {
    const char *name = cleave_dtype_name((cleave_dtype)v);
    tu_context("dtype %d", v);
    TU_CHECK(name != NULL);
    cleave_dtype back = (cleave_dtype)0;
    cleave_error err;
    err.status = (cleave_status)99;
    TU_CHECK(cleave_dtype_from_name(name, &back, &err) == CLEAVE_OK);
    TU_CHECK(back == (cleave_dtype)v);
    TU_CHECK(err.status == CLEAVE_OK);
    TU_CHECK(err.message[0] == '\0');
    TU_CHECK(cleave_dtype_from_name(name, &back, NULL) == CLEAVE_OK);
  }
  /* Names are distinct: a name maps back to one dtype only. */
  for (size_t i = 0; i < NUM_NAMES; ++i) {
    for (size_t j = i + 1; j < NUM_NAMES; ++j) {
      assert_string_not_equal(names[i].name, names[j].name);
    }
  }
}

static void test_dtype_from_unknown_name(void **state) {
  (void)state;
  static const char *const bad[] = {"f128", "float99", "", "i 8", "u1x", "stringy"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    cleave_dtype out = CLEAVE_F64;
    cleave_error err;
    tu_context("name \"%s\"", bad[i]);
    TU_CHECK(cleave_dtype_from_name(bad[i], &out, &err) == CLEAVE_ERROR_UNSUPPORTED_TYPE);
    TU_CHECK(err.status == CLEAVE_ERROR_UNSUPPORTED_TYPE);
    TU_CHECK(out == CLEAVE_F64);
    if (bad[i][0] != '\0') {
      TU_CHECK(strstr(err.message, bad[i]) != NULL);
    }
    TU_CHECK(err.message[0] != '\0');
  }
}

static void test_type_size_every_type(void **state) {
  (void)state;
  for (size_t i = 0; i < tu_num_types; ++i) {
    int64_t bytes = -3;
    cleave_error err;
    tu_context("type %s", tu_types[i].label);
    TU_CHECK(cleave_type_size(tu_types[i].type, &bytes, &err) == CLEAVE_OK);
    TU_CHECK(err.status == CLEAVE_OK);
    TU_CHECK(bytes == (int64_t)tu_elem_size(tu_types[i].type));
  }
  /* A few sizes spelled out, so that the test table itself is checked too. */
  int64_t b = 0;
  assert_int_equal(cleave_type_size(cleave_type_of(CLEAVE_C128), &b, NULL), CLEAVE_OK);
  assert_int_equal(b, 16);
  cleave_type u5 = {CLEAVE_UNICODE, 5};
  assert_int_equal(cleave_type_size(u5, &b, NULL), CLEAVE_OK);
  assert_int_equal(b, 20);
  cleave_type s7 = {CLEAVE_BYTES, 7};
  assert_int_equal(cleave_type_size(s7, &b, NULL), CLEAVE_OK);
  assert_int_equal(b, 7);
  assert_int_equal(cleave_type_size(cleave_type_of(CLEAVE_STRING), &b, NULL), CLEAVE_OK);
  assert_int_equal(b, (int64_t)sizeof(cleave_string));
}

static void expect_type_size_error(cleave_type type, cleave_status want, const char *needle) {
  int64_t bytes = -3;
  cleave_error err;
  tu_context("dtype %d width %lld", (int)type.dtype, (long long)type.width);
  cleave_status st = cleave_type_size(type, &bytes, &err);
  if (st != want) {
    print_error("status %d, message \"%s\"\n", (int)st, err.message);
  }
  TU_CHECK(st == want);
  TU_CHECK(err.status == want);
  TU_CHECK(bytes == -3);
  TU_CHECK(err.message[0] != '\0');
  if (needle) {
    if (!tu_message_has(err.message, needle)) {
      print_error("message \"%s\" lacks \"%s\"\n", err.message, needle);
    }
    TU_CHECK(tu_message_has(err.message, needle));
  }
  TU_CHECK(cleave_type_size(type, &bytes, NULL) == want);
}

static void test_type_size_errors(void **state) {
  (void)state;
  /* bytes and unicode need a width >= 1; other types need width 0. */
  expect_type_size_error((cleave_type){CLEAVE_BYTES, 0}, CLEAVE_ERROR_UNSUPPORTED_TYPE, "0");
  expect_type_size_error((cleave_type){CLEAVE_BYTES, -2}, CLEAVE_ERROR_UNSUPPORTED_TYPE, "-2");
  expect_type_size_error((cleave_type){CLEAVE_UNICODE, 0}, CLEAVE_ERROR_UNSUPPORTED_TYPE, "0");
  expect_type_size_error((cleave_type){CLEAVE_UNICODE, -1}, CLEAVE_ERROR_UNSUPPORTED_TYPE, "-1");
  expect_type_size_error((cleave_type){CLEAVE_F32, 3}, CLEAVE_ERROR_UNSUPPORTED_TYPE, "3");
  expect_type_size_error((cleave_type){CLEAVE_STRING, 4}, CLEAVE_ERROR_UNSUPPORTED_TYPE, "4");
  expect_type_size_error((cleave_type){(cleave_dtype)0, 0}, CLEAVE_ERROR_UNSUPPORTED_TYPE, NULL);
  expect_type_size_error((cleave_type){(cleave_dtype)99, 0}, CLEAVE_ERROR_UNSUPPORTED_TYPE, "99");
  /* 4 * 2^61 = 2^63 does not fit in int64. */
  expect_type_size_error((cleave_type){CLEAVE_UNICODE, INT64_C(1) << 61}, CLEAVE_ERROR_OVERFLOW,
                         "2305843009213693952");
  expect_type_size_error((cleave_type){CLEAVE_UNICODE, INT64_MAX}, CLEAVE_ERROR_OVERFLOW, NULL);
}

static void test_type_size_limits(void **state) {
  (void)state;
  int64_t b = 0;
  /* The largest unicode width whose byte size fits: floor((2^63-1)/4). */
  cleave_type u = {CLEAVE_UNICODE, INT64_MAX / 4};
  assert_int_equal(cleave_type_size(u, &b, NULL), CLEAVE_OK);
  assert_true(b == (INT64_MAX / 4) * 4);
  cleave_type s = {CLEAVE_BYTES, INT64_MAX};
  assert_int_equal(cleave_type_size(s, &b, NULL), CLEAVE_OK);
  assert_true(b == INT64_MAX);
}

/* Every value of the enum has the name cleave.h and docs/operators.md (section 1.7) list, by
 * enumerator; every other value has none. */
static void test_status_names(void **state) {
  (void)state;
  const struct {
    cleave_status status;
    const char *name;
  } status_names[] = {
      {CLEAVE_OK, "ok"},
      {CLEAVE_ERROR_INVALID_ARGUMENT, "invalid argument"},
      {CLEAVE_ERROR_INVALID_SHAPE, "invalid shape"},
      {CLEAVE_ERROR_INVALID_AXIS, "invalid axis"},
      {CLEAVE_ERROR_INVALID_SPLIT, "invalid split"},
      {CLEAVE_ERROR_INVALID_ATTRIBUTE, "invalid attribute"},
      {CLEAVE_ERROR_UNSUPPORTED_TYPE, "unsupported type"},
      {CLEAVE_ERROR_UNSUPPORTED_VERSION, "unsupported version"},
      {CLEAVE_ERROR_OVERFLOW, "overflow"},
      {CLEAVE_ERROR_OUT_OF_MEMORY, "out of memory"},
      {CLEAVE_ERROR_CAPACITY, "capacity too small"},
      {CLEAVE_ERROR_COPY_REQUIRED, "copy required"},
  };
  size_t n = sizeof status_names / sizeof status_names[0];
  for (size_t i = 0; i < n; ++i) {
    tu_context("status %d", (int)status_names[i].status);
    /* The enum's values are 0..11 in order: the table covers every one of them. */
    TU_CHECK((size_t)status_names[i].status == i);
    const char *name = cleave_status_name(status_names[i].status);
    TU_CHECK(name != NULL);
    assert_string_equal(name, status_names[i].name);
    /* Static and stable: the same pointer every time. */
    TU_CHECK(cleave_status_name(status_names[i].status) == name);
  }
  /* Outside the enum: "unknown status", never NULL (as strerror names an unknown errno). */
  const int outside[] = {12, 13, -1, 12345, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof outside / sizeof outside[0]; ++i) {
    tu_context("status %d", outside[i]);
    TU_CHECK(cleave_status_name((cleave_status)outside[i]) != NULL &&
             strcmp(cleave_status_name((cleave_status)outside[i]), "unknown status") == 0);
  }
}

static void test_status_values_fixed(void **state) {
  (void)state;
  /* The header promises fixed numeric values. */
  assert_int_equal(CLEAVE_OK, 0);
  assert_int_equal(CLEAVE_ERROR_INVALID_ARGUMENT, 1);
  assert_int_equal(CLEAVE_ERROR_INVALID_SHAPE, 2);
  assert_int_equal(CLEAVE_ERROR_INVALID_AXIS, 3);
  assert_int_equal(CLEAVE_ERROR_INVALID_SPLIT, 4);
  assert_int_equal(CLEAVE_ERROR_INVALID_ATTRIBUTE, 5);
  assert_int_equal(CLEAVE_ERROR_UNSUPPORTED_TYPE, 6);
  assert_int_equal(CLEAVE_ERROR_UNSUPPORTED_VERSION, 7);
  assert_int_equal(CLEAVE_ERROR_OVERFLOW, 8);
  assert_int_equal(CLEAVE_ERROR_OUT_OF_MEMORY, 9);
  assert_int_equal(CLEAVE_ERROR_CAPACITY, 10);
}

static void test_version(void **state) {
  (void)state;
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", CLEAVE_VERSION_MAJOR, CLEAVE_VERSION_MINOR,
           CLEAVE_VERSION_PATCH);
  assert_int_equal(cleave_version_number(), CLEAVE_VERSION_NUMBER);
  assert_int_equal(CLEAVE_VERSION_NUMBER, CLEAVE_VERSION_MAJOR * 10000 +
                                              CLEAVE_VERSION_MINOR * 100 + CLEAVE_VERSION_PATCH);
  assert_string_equal(cleave_version_string(), want);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dtype_names),          cmocka_unit_test(test_dtype_name_unknown),
      cmocka_unit_test(test_dtype_round_trip),     cmocka_unit_test(test_dtype_from_unknown_name),
      cmocka_unit_test(test_type_size_every_type), cmocka_unit_test(test_type_size_errors),
      cmocka_unit_test(test_type_size_limits),     cmocka_unit_test(test_status_names),
      cmocka_unit_test(test_status_values_fixed),  cmocka_unit_test(test_version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
