/* tools/gguf/gguf_meta_build.c: GGUF metadata values built as the bytes a file stores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gguf_meta_build.h"
#include "gguf_value.h"

static void expect_bytes(const ckpt_meta *m, int type, const void *bytes, size_t size) {
  assert_non_null(m);
  assert_int_equal(gguf_meta_type(m), type);
  assert_int_equal(m->value_size, size);
  assert_memory_equal(m->value, bytes, size);
  assert_int_equal(m->value[size], '\0');
}

static void test_scalars(void **state) {
  (void)state;
  ckpt_meta *meta = NULL;
  size_t n = 0;
  tool_error err = {0};
  assert_int_equal(gguf_meta_put_u32(&meta, &n, "a.u32", 0x01020304u, &err), 0);
  assert_int_equal(gguf_meta_put_i32(&meta, &n, "a.i32", -2, &err), 0);
  assert_int_equal(gguf_meta_put_f32(&meta, &n, "a.f32", 1.5f, &err), 0);
  assert_int_equal(gguf_meta_put_bool(&meta, &n, "a.bool", 7, &err), 0);
  assert_int_equal(gguf_meta_put_u64(&meta, &n, "a.u64", 5, &err), 0);
  assert_int_equal(gguf_meta_put_string(&meta, &n, "a.str", "héllo", &err), 0);
  assert_int_equal(n, 6);
  expect_bytes(gguf_meta_get(meta, n, "a.u32"), GGUF_U32, "\x04\x03\x02\x01", 4);
  expect_bytes(gguf_meta_get(meta, n, "a.i32"), GGUF_I32, "\xfe\xff\xff\xff", 4);
  expect_bytes(gguf_meta_get(meta, n, "a.f32"), GGUF_F32, "\x00\x00\xc0\x3f", 4);
  expect_bytes(gguf_meta_get(meta, n, "a.bool"), GGUF_BOOL, "\x01", 1);
  expect_bytes(gguf_meta_get(meta, n, "a.u64"), GGUF_U64, "\x05\0\0\0\0\0\0\0", 8);
  expect_bytes(gguf_meta_get(meta, n, "a.str"), GGUF_STRING, "h\xc3\xa9llo", 6);
  assert_null(gguf_meta_get(meta, n, "a.none"));
  gguf_meta_free_all(meta, n);
}

/* A key set again takes its new value (and type) in its place. */
static void test_replace_keeps_place(void **state) {
  (void)state;
  ckpt_meta *meta = NULL;
  size_t n = 0;
  tool_error err = {0};
  assert_int_equal(gguf_meta_put_u32(&meta, &n, "first", 1, &err), 0);
  assert_int_equal(gguf_meta_put_u32(&meta, &n, "second", 2, &err), 0);
  assert_int_equal(gguf_meta_put_string(&meta, &n, "first", "x", &err), 0);
  assert_int_equal(n, 2);
  assert_string_equal(meta[0].key, "first");
  expect_bytes(&meta[0], GGUF_STRING, "x", 1);
  assert_string_equal(meta[1].key, "second");
  gguf_meta_free_all(meta, n);
}

static void test_arrays(void **state) {
  (void)state;
  ckpt_meta *meta = NULL;
  size_t n = 0;
  tool_error err = {0};
  const char *const words[] = {"ab", "", "c"};
  assert_int_equal(gguf_meta_put_string_array(&meta, &n, "s", words, NULL, 3, &err), 0);
  const size_t lens[] = {1, 2};
  const char *const cut[] = {"xyz", "pq"};
  assert_int_equal(gguf_meta_put_string_array(&meta, &n, "t", cut, lens, 2, &err), 0);
  const float f[] = {-0.0f, 2.0f};
  assert_int_equal(gguf_meta_put_f32_array(&meta, &n, "f", f, 2, &err), 0);
  const int32_t i[] = {1, -1};
  assert_int_equal(gguf_meta_put_i32_array(&meta, &n, "i", i, 2, &err), 0);
  assert_int_equal(gguf_meta_put_i32_array(&meta, &n, "e", NULL, 0, &err), 0);

  static const unsigned char s_bytes[] = {8, 0, 0, 0, 3, 0, 0, 0,   0,   0, 0, 0, 2,
                                          0, 0, 0, 0, 0, 0, 0, 'a', 'b', 0, 0, 0, 0,
                                          0, 0, 0, 0, 1, 0, 0, 0,   0,   0, 0, 0, 'c'};
  expect_bytes(gguf_meta_get(meta, n, "s"), GGUF_ARRAY, s_bytes, sizeof s_bytes);
  static const unsigned char t_bytes[] = {8, 0, 0, 0, 2,   0, 0, 0, 0, 0, 0, 0, 1, 0,   0,  0,
                                          0, 0, 0, 0, 'x', 2, 0, 0, 0, 0, 0, 0, 0, 'p', 'q'};
  expect_bytes(gguf_meta_get(meta, n, "t"), GGUF_ARRAY, t_bytes, sizeof t_bytes);
  static const unsigned char f_bytes[] = {6, 0, 0, 0, 2, 0,    0, 0, 0, 0,
                                          0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0x40};
  expect_bytes(gguf_meta_get(meta, n, "f"), GGUF_ARRAY, f_bytes, sizeof f_bytes);
  static const unsigned char i_bytes[] = {5, 0, 0, 0, 2, 0, 0,    0,    0,    0,
                                          0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  expect_bytes(gguf_meta_get(meta, n, "i"), GGUF_ARRAY, i_bytes, sizeof i_bytes);
  int et;
  uint64_t ec;
  assert_int_equal(gguf_meta_array(gguf_meta_get(meta, n, "e"), &et, &ec), 0);
  assert_int_equal(et, GGUF_I32);
  assert_int_equal(ec, 0);
  gguf_meta_free_all(meta, n);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scalars),
      cmocka_unit_test(test_replace_keeps_place),
      cmocka_unit_test(test_arrays),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
