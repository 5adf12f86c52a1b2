/*
 * The API-misuse checks of cleave.h, for every entry point: the output count of cleave_run, NULL
 * pointers, malformed cleave_values, unknown enumerators, and all or nothing (a failing call
 * writes no output). Each checks the status, the message and that nothing was written.
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

/* cleave.h: cleave_run with an output count other than the operator's is INVALID_ARGUMENT
 * naming both counts. */
static void test_wrong_output_count(void **state) {
  (void)state;
  const int64_t shape[2] = {6, 2};
  const int64_t axis = 0;
  const int64_t lens[3] = {1, 2, 3};
  cleave_op ops[5];
  ops[0] = cleave_op_split(&axis, 3);
  ops[1] = cleave_op_variadic_split(&axis, lens, 3);
  ops[2] = cleave_op_split_to_sequence(11);
  ops[2].lengths = cleave_values_scalar(&shape[1]); /* split 2 on 6: 3 outputs */
  ops[3] = cleave_op_onnx_split(13);
  ops[3].num_outputs = tu_count_value(3);
  ops[4] = cleave_op_onnx_split(18);
  ops[4].lengths = cleave_values_list(lens, 3);
  for (size_t i = 0; i < 5; ++i) {
    const char *two[] = {"output", "2", "3", NULL};
    const char *four[] = {"output", "4", "3", NULL};
    const char *zero[] = {"output", "0", "3", NULL};
    tu_check_run_error(&ops[i], cleave_type_of(CLEAVE_U16), shape, 2, 2,
                       CLEAVE_ERROR_INVALID_ARGUMENT, two);
    tu_check_run_error(&ops[i], cleave_type_of(CLEAVE_U16), shape, 2, 4,
                       CLEAVE_ERROR_INVALID_ARGUMENT, four);
    tu_check_run_error(&ops[i], cleave_type_of(CLEAVE_U16), shape, 2, 0,
                       CLEAVE_ERROR_INVALID_ARGUMENT, zero);
  }
  /* An empty sequence wants zero outputs: one is too many. */
  const int64_t empty[1] = {0};
  cleave_op seq = cleave_op_split_to_sequence(11);
  const char *needles[] = {"output", "1", "0", NULL};
  tu_check_run_error(&seq, cleave_type_of(CLEAVE_U16), empty, 1, 1, CLEAVE_ERROR_INVALID_ARGUMENT,
                     needles);
}

static void expect_status(cleave_status got, cleave_status want, const cleave_error *err) {
  if (got != want) {
    print_error("status %d, expected %d; message \"%s\"\n", (int)got, (int)want,
                err ? err->message : "");
  }
  TU_CHECK(got == want);
  if (err) {
    TU_CHECK(err->status == want);
    /* A failure explains itself; a success leaves the message empty. */
    TU_CHECK((err->message[0] != '\0') == (want != CLEAVE_OK));
  }
}

/* cleave.h: NULL pointers where one is required are INVALID_ARGUMENT, and nothing is written. */
static void test_null_arguments(void **state) {
  (void)state;
  const int64_t shape[2] = {4, 2};
  const int64_t axis = 0;
  cleave_op op = cleave_op_split(&axis, 2);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_I32), shape, 2, 5);
  tu_outputs out;
  tu_outputs_make(&out, 2, NULL, 16);
  cleave_error err;
  cleave_split_info info;

  tu_context("NULL op");
  expect_status(cleave_run(NULL, &in.tensor, (void *const *)out.buffers, 2, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  expect_status(cleave_infer(NULL, in.tensor.type, shape, 2, &info, NULL, 0, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  cleave_plan *plan = NULL;
  expect_status(cleave_plan_create(NULL, in.tensor.type, shape, 2, &plan, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  TU_CHECK(plan == NULL);

  tu_context("NULL input tensor");
  expect_status(cleave_run(&op, NULL, (void *const *)out.buffers, 2, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  expect_status(cleave_split(NULL, 0, 2, (void *const *)out.buffers, 2, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);

  tu_context("NULL outputs array");
  expect_status(cleave_run(&op, &in.tensor, NULL, 2, &err), CLEAVE_ERROR_INVALID_ARGUMENT, &err);

  tu_context("NULL input data");
  cleave_tensor t = in.tensor;
  t.data = NULL;
  expect_status(cleave_run(&op, &t, (void *const *)out.buffers, 2, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);

  tu_context("NULL shape with rank 2");
  t = in.tensor;
  t.shape = NULL;
  expect_status(cleave_run(&op, &t, (void *const *)out.buffers, 2, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  expect_status(cleave_infer(&op, t.type, NULL, 2, &info, NULL, 0, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);

  tu_context("one NULL output of 16 bytes");
  void *ptrs[2] = {out.buffers[0], NULL};
  expect_status(cleave_run(&op, &in.tensor, ptrs, 2, &err), CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  ptrs[0] = NULL;
  ptrs[1] = out.buffers[1];
  expect_status(cleave_run(&op, &in.tensor, ptrs, 2, &err), CLEAVE_ERROR_INVALID_ARGUMENT, &err);

  tu_context("cleave_infer without info");
  expect_status(cleave_infer(&op, t.type, shape, 2, NULL, NULL, 0, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);

  tu_context("cleave_plan_create without a plan pointer");
  expect_status(cleave_plan_create(&op, t.type, shape, 2, NULL, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);

  tu_context("cleave_plan_run with NULL pointers");
  TU_CHECK(cleave_plan_create(&op, t.type, shape, 2, &plan, &err) == CLEAVE_OK);
  expect_status(cleave_plan_run(plan, NULL, (void *const *)out.buffers, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  expect_status(cleave_plan_run(plan, in.bytes, NULL, &err), CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  ptrs[0] = out.buffers[0];
  ptrs[1] = NULL;
  expect_status(cleave_plan_run(plan, in.bytes, ptrs, &err), CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  expect_status(cleave_plan_run(NULL, in.bytes, (void *const *)out.buffers, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  expect_status(cleave_plan_output_shape(plan, 0, NULL, &err), CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  cleave_plan_destroy(plan);
  cleave_plan_destroy(NULL);

  TU_CHECK(tu_outputs_untouched(&out));
  tu_outputs_free(&out);
  tu_input_free(&in);
}

/* cleave_values misuse (cleave.h: API misuse is INVALID_ARGUMENT): a NULL data pointer with
 * values to read, a count beyond any array, a scalar holding other than one value. */
static void test_values_misuse(void **state) {
  (void)state;
  const int64_t shape[1] = {6};
  const int64_t axis = 0;
  const int64_t lens[2] = {3, 3};
  cleave_op op = cleave_op_variadic_split(&axis, lens, 2);
  op.lengths.data = NULL;
  const char *nl[] = {"split_lengths", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 1, 2, CLEAVE_ERROR_INVALID_ARGUMENT, nl);
  op = cleave_op_variadic_split(&axis, lens, 2);
  op.lengths.count = SIZE_MAX - 1; /* more values than any array holds */
  const char *nc[] = {"split_lengths", "18446744073709551614", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 1, 2, CLEAVE_ERROR_INVALID_ARGUMENT, nc);
  op = cleave_op_variadic_split(&axis, lens, 2);
  op.axis.data = NULL;
  const char *na[] = {"axis", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 1, 2, CLEAVE_ERROR_INVALID_ARGUMENT, na);
  cleave_op split = cleave_op_split(&axis, 2);
  split.axis.count = 2;
  tu_check_error(&split, cleave_type_of(CLEAVE_F32), shape, 1, 2, CLEAVE_ERROR_INVALID_ARGUMENT,
                 na);
  /* CLEAVE_ABSENT is the only rank meaning "absent": any other rank is present and checked by
   * the operator's rules (a rank of 7 is not an absent input). */
  cleave_op seq = cleave_op_split_to_sequence(24);
  seq.lengths.rank = 7;
  seq.lengths.count = 2;
  seq.lengths.data = lens;
  const char *nr[] = {"split", "rank 7", NULL};
  tu_check_error(&seq, cleave_type_of(CLEAVE_F32), shape, 1, 6, CLEAVE_ERROR_INVALID_SPLIT, nr);
  cleave_op onnx = cleave_op_onnx_split(13);
  onnx.num_outputs = tu_count_value(2);
  onnx.axis = cleave_values_list(lens, 2);
  onnx.axis.rank = 7;
  const char *nra[] = {"axis", "rank 7", NULL};
  tu_check_error(&onnx, cleave_type_of(CLEAVE_F32), shape, 1, 2, CLEAVE_ERROR_INVALID_AXIS, nra);
}

/* Unknown enumerators: an op kind is INVALID_ARGUMENT, a data type UNSUPPORTED_TYPE. */
static void test_unknown_enumerators(void **state) {
  (void)state;
  const int64_t shape[1] = {4};
  const int64_t axis = 0;
  cleave_op op = cleave_op_split(&axis, 2);
  op.kind = (cleave_op_kind)99;
  const char *kind_needles[] = {"99", NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 1, 2, CLEAVE_ERROR_INVALID_ARGUMENT,
                 kind_needles);

  op = cleave_op_split(&axis, 2);
  const char *type_needles[] = {"77", NULL};
  tu_check_error(&op, cleave_type_of((cleave_dtype)77), shape, 1, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 type_needles);
  tu_check_error(&op, cleave_type_of((cleave_dtype)0), shape, 1, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE,
                 NULL);
  /* A width where none belongs, or none where one is needed. */
  cleave_type f32w = {CLEAVE_F32, 2};
  cleave_type bytes0 = {CLEAVE_BYTES, 0};
  cleave_type unicode_neg = {CLEAVE_UNICODE, -3};
  tu_check_error(&op, f32w, shape, 1, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, NULL);
  tu_check_error(&op, bytes0, shape, 1, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, NULL);
  const char *neg_needles[] = {"-3", NULL};
  tu_check_error(&op, unicode_neg, shape, 1, 2, CLEAVE_ERROR_UNSUPPORTED_TYPE, neg_needles);
}

/* cleave.h: a zeroed description (`cleave_op op = {0};`, no initialiser) is refused by every entry
 * point with INVALID_ARGUMENT and a message that names the initialisers; nothing is written. */
static void test_zeroed_op(void **state) {
  (void)state;
  const int64_t shape[2] = {4, 6};
  cleave_op op = {0};
  const char *needles[] = {"kind 0",
                           "zeroed",
                           "initialiser",
                           "cleave_op_split",
                           "cleave_op_variadic_split",
                           "cleave_op_split_to_sequence",
                           "cleave_op_onnx_split",
                           NULL};
  tu_check_error(&op, cleave_type_of(CLEAVE_F32), shape, 2, 2, CLEAVE_ERROR_INVALID_ARGUMENT,
                 needles);

  /* Partial inference and views say the same, and write nothing. */
  cleave_dim dims[2] = {cleave_dim_point(4), cleave_dim_point(6)}, out[8];
  for (size_t i = 0; i < 8; i++) {
    out[i] = cleave_dim_range(-5, -5);
  }
  cleave_partial_shape partial = {2, dims};
  cleave_partial_info info;
  cleave_error err;
  expect_status(
      cleave_infer_partial(&op, 0, cleave_type_of(CLEAVE_F32), &partial, &info, out, 8, &err),
      CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  for (size_t i = 0; needles[i] != NULL; i++) {
    TU_CHECK(tu_message_has(err.message, needles[i]));
  }
  for (size_t i = 0; i < 8; i++) {
    TU_CHECK(out[i].lo == -5 && out[i].hi == -5);
  }
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F32), shape, 2, 5);
  cleave_view views[2];
  memset(views, 0x6B, sizeof views);
  int64_t view_dims[8];
  for (size_t i = 0; i < 8; i++) {
    view_dims[i] = -5;
  }
  expect_status(cleave_views(&op, &in.tensor, views, 2, view_dims, 8, &err),
                CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  TU_CHECK(tu_message_has(err.message, "initialiser"));
  const unsigned char *bytes = (const unsigned char *)views;
  for (size_t i = 0; i < sizeof views; i++) {
    TU_CHECK(bytes[i] == 0x6B);
  }
  for (size_t i = 0; i < 8; i++) {
    TU_CHECK(view_dims[i] == -5);
  }
  tu_input_free(&in);

  /* The same op made with an initialiser runs. */
  const int64_t axis = 0;
  op = cleave_op_split(&axis, 2);
  cleave_split_info split_info;
  expect_status(cleave_infer(&op, cleave_type_of(CLEAVE_F32), shape, 2, &split_info, NULL, 0, &err),
                CLEAVE_OK, &err);
}

/* cleave.h: cleave_values_of describes values of any type and rank exactly as the struct's fields
 * would; int32 lengths give the same outputs as the int64 ones of cleave_values_list. */
static void test_values_of(void **state) {
  (void)state;
  const int32_t lens32[3] = {1, 3, 2};
  const int64_t lens64[3] = {1, 3, 2};
  cleave_values v = cleave_values_of(CLEAVE_I32, 1, 3, lens32);
  TU_CHECK(v.dtype == CLEAVE_I32);
  TU_CHECK(v.rank == 1);
  TU_CHECK(v.count == 3);
  TU_CHECK(v.data == lens32);
  const uint8_t axis8 = 1;
  cleave_values a = cleave_values_of(CLEAVE_U8, 0, 1, &axis8);
  TU_CHECK(a.dtype == CLEAVE_U8 && a.rank == 0 && a.count == 1 && a.data == &axis8);

  const int64_t shape[2] = {3, 6};
  const int64_t axis = 1;
  cleave_op typed = cleave_op_variadic_split(&axis, lens64, 3);
  typed.axis = a;
  typed.lengths = v;
  cleave_op plain = cleave_op_variadic_split(&axis, lens64, 3);
  int64_t got[3], want[3];
  cleave_split_info info;
  cleave_error err;
  expect_status(cleave_infer(&typed, cleave_type_of(CLEAVE_F32), shape, 2, &info, got, 3, &err),
                CLEAVE_OK, &err);
  expect_status(cleave_infer(&plain, cleave_type_of(CLEAVE_F32), shape, 2, &info, want, 3, &err),
                CLEAVE_OK, &err);
  for (size_t i = 0; i < 3; i++) {
    TU_CHECK(got[i] == lens64[i] && want[i] == lens64[i]);
  }
  /* Every entry point runs the typed op to the reference's bytes. */
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F32), shape, 2, 11);
  tu_expect ex = {1, 3, lens64, 0};
  tu_check_success(&typed, &in, &ex);
  tu_input_free(&in);
  /* Nothing is checked when the values are made: a rank-2 list is refused when it is read. */
  typed.lengths = cleave_values_of(CLEAVE_I32, 2, 3, lens32);
  const char *needles[] = {"split_lengths", "rank 2", NULL};
  tu_check_error(&typed, cleave_type_of(CLEAVE_F32), shape, 2, 3, CLEAVE_ERROR_INVALID_SPLIT,
                 needles);
}

/* docs/operators.md section 1: all outputs or none. A failure in the middle of the outputs' checks
 * (here the last output pointer) must leave the earlier outputs unwritten. */
static void test_all_or_nothing(void **state) {
  (void)state;
  const int64_t shape[2] = {6, 3};
  const int64_t axis = 0;
  const int64_t lens[3] = {2, 2, 2};
  cleave_op op = cleave_op_variadic_split(&axis, lens, 3);
  tu_input in;
  tu_input_make(&in, cleave_type_of(CLEAVE_F64), shape, 2, 9);
  tu_outputs out;
  tu_outputs_make(&out, 3, NULL, 48);
  void *ptrs[3] = {out.buffers[0], out.buffers[1], NULL};
  cleave_error err;
  tu_context("VariadicSplit with the last output pointer NULL");
  expect_status(cleave_run(&op, &in.tensor, ptrs, 3, &err), CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  TU_CHECK(tu_outputs_untouched(&out));
  cleave_plan *plan = NULL;
  TU_CHECK(cleave_plan_create(&op, in.tensor.type, shape, 2, &plan, &err) == CLEAVE_OK);
  expect_status(cleave_plan_run(plan, in.bytes, ptrs, &err), CLEAVE_ERROR_INVALID_ARGUMENT, &err);
  TU_CHECK(tu_outputs_untouched(&out));
  cleave_plan_destroy(plan);
  tu_outputs_free(&out);
  tu_input_free(&in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wrong_output_count), cmocka_unit_test(test_null_arguments),
      cmocka_unit_test(test_values_misuse),      cmocka_unit_test(test_unknown_enumerators),
      cmocka_unit_test(test_all_or_nothing),     cmocka_unit_test(test_zeroed_op),
      cmocka_unit_test(test_values_of),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
