/* tools/npy/npy_dtype.c: the descr written for each type (npy_descr_for), and that it reads back
 * as the same type (npy_descr_to_dtype): one table serves both directions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "npy.h"

static void test_descrs(void **state) {
  (void)state;
  static const struct {
    cleave_dtype dtype;
    const char *descr;
  } cases[] = {
      {CLEAVE_BOOLEAN, "|b1"}, {CLEAVE_I8, "|i1"},     {CLEAVE_I16, "<i2"},  {CLEAVE_I32, "<i4"},
      {CLEAVE_I64, "<i8"},     {CLEAVE_U8, "|u1"},     {CLEAVE_U16, "<u2"},  {CLEAVE_U32, "<u4"},
      {CLEAVE_U64, "<u8"},     {CLEAVE_F16, "<f2"},    {CLEAVE_F32, "<f4"},  {CLEAVE_F64, "<f8"},
      {CLEAVE_C64, "<c8"},     {CLEAVE_C128, "<c16"},  {CLEAVE_BF16, "|V2"}, {CLEAVE_F8E4M3, "|V1"},
      {CLEAVE_F8E5M2, "|V1"},  {CLEAVE_F8E8M0, "|V1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cleave_type type = cleave_type_of(cases[i].dtype);
    char descr[NPY_DESCR_SIZE];
    assert_int_equal(npy_descr_for(type, descr, sizeof descr), 0);
    assert_string_equal(descr, cases[i].descr);
    /* Raw void elements read back only with the type named (--dtype). */
    int raw = descr[1] == 'V';
    npy_dtype back;
    tool_error err;
    assert_int_equal(npy_descr_to_dtype(descr, raw ? &type : NULL, "t.npy", &back, &err), 0);
    assert_int_equal(back.type.dtype, cases[i].dtype);
  }
}

static void test_no_descr(void **state) {
  (void)state;
  static const cleave_dtype none[] = {CLEAVE_STRING, CLEAVE_U1,  CLEAVE_U3,    CLEAVE_U4,
                                      CLEAVE_I4,     CLEAVE_NF4, CLEAVE_F4E2M1};
  for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
    char descr[NPY_DESCR_SIZE] = "unchanged";
    assert_int_equal(npy_descr_for(cleave_type_of(none[i]), descr, sizeof descr), -1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_descrs),
      cmocka_unit_test(test_no_descr),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
