/*
 * Concat execution against the naive reference: random cases on every byte-sized element type
 * (strings as handles, fixed-width strings) through every entry point, and every path of the copy
 * engine run the other way (row copies in cache and streamed, lanes, each register transposition
 * with its edges, the gather, windows of a long one-shot list, threads), in both kernel families,
 * into aligned and misaligned outputs.
 */
#include "concat_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every byte-sized type, fixed-width strings at several widths, variable-length strings. */
static const cleave_type byte_types[] = {
    {CLEAVE_BOOLEAN, 0}, {CLEAVE_I8, 0},     {CLEAVE_I16, 0},        {CLEAVE_I32, 0},
    {CLEAVE_I64, 0},     {CLEAVE_U8, 0},     {CLEAVE_U16, 0},        {CLEAVE_U32, 0},
    {CLEAVE_U64, 0},     {CLEAVE_F16, 0},    {CLEAVE_BF16, 0},       {CLEAVE_F32, 0},
    {CLEAVE_F64, 0},     {CLEAVE_C64, 0},    {CLEAVE_C128, 0},       {CLEAVE_F8E4M3, 0},
    {CLEAVE_F8E5M2, 0},  {CLEAVE_F8E8M0, 0}, {CLEAVE_F8E4M3FNUZ, 0}, {CLEAVE_F8E5M2FNUZ, 0},
    {CLEAVE_BYTES, 1},   {CLEAVE_BYTES, 3},  {CLEAVE_BYTES, 7},      {CLEAVE_UNICODE, 1},
    {CLEAVE_UNICODE, 5}, {CLEAVE_STRING, 0}};

/* Whether ONNX (Concat at `opset`, or ConcatFromSequence when `sequence`) takes `dtype`,
 * from docs/operators.md section 8 as the test reads it. */
static int onnx_takes(cleave_dtype dtype, int64_t opset, int sequence) {
  if (dtype == CLEAVE_F16 || dtype == CLEAVE_F32 || dtype == CLEAVE_F64) {
    return 1;
  }
  if (dtype == CLEAVE_BF16) {
    return !sequence && opset >= 13;
  }
  if (dtype >= CLEAVE_F8E4M3 && dtype <= CLEAVE_F8E8M0) {
    return 0;
  }
  return sequence || opset >= 4;
}

/* Random valid concats of every byte-sized type. */
static void test_random(void **state) {
  (void)state;
  uint64_t rng = 20261128;
  for (size_t t = 0; t < sizeof byte_types / sizeof byte_types[0]; t++) {
    for (int c = 0; c < 30; c++) {
      size_t rank = (size_t)cc_between(&rng, 1, 4);
      size_t n = (size_t)cc_between(&rng, 1, 5);
      int kind = (int)cc_between(&rng, 0, 2);
      int stack = kind == 2 && cc_between(&rng, 0, 1) == 1;
      int64_t opsets[] = {1, 4, 11, 13, 18};
      int64_t opset = kind == 1 ? opsets[cc_between(&rng, 0, 4)] : 11;
      if (kind > 0 && !onnx_takes(byte_types[t].dtype, opset, kind == 2)) {
        kind = 0;
        stack = 0;
      }
      size_t out_rank = rank + (stack ? 1 : 0);
      size_t axis = (size_t)cc_between(&rng, 0, (int64_t)out_rank - 1);
      int64_t shapes[5][CC_MAX_RANK];
      for (size_t k = 0; k < rank; k++) {
        shapes[0][k] = cc_between(&rng, 0, 4);
        /* Mostly non-empty: an empty dim off the axis empties every input. */
        shapes[0][k] += shapes[0][k] == 0 && cc_between(&rng, 0, 3) > 0;
      }
      for (size_t i = 1; i < n; i++) {
        memcpy(shapes[i], shapes[0], sizeof shapes[0]);
        if (!stack) {
          shapes[i][axis] = cc_between(&rng, 0, 4);
        }
      }
      cc_inputs in;
      cc_inputs_make(&in, byte_types[t], n, rank, (const int64_t(*)[CC_MAX_RANK])shapes,
                     (unsigned)c);
      /* Negative axes where the version takes them. */
      int64_t value = (int64_t)axis;
      if ((kind != 1 || opset >= 11) && cc_between(&rng, 0, 1) == 1) {
        value -= (int64_t)out_rank;
      }
      cleave_concat_op op = kind == 0   ? cleave_op_concat(&value)
                            : kind == 1 ? cleave_op_onnx_concat(opset, &value)
                                        : cleave_op_concat_from_sequence(11, &value, stack);
      cc_context("type %zu case %d: kind %d opset %lld, %zu inputs of rank %zu, axis %lld%s", t, c,
                 kind, (long long)opset, n, rank, (long long)value, stack ? " stacked" : "");
      cc_expect ex;
      cc_expect_of(in.tensors, n, axis, stack, &ex);
      cc_check_success(&op, in.tensors, n, &ex);
      cc_inputs_free(&in);
    }
  }
}

/* Inputs [rows, len_i] of `type` joined on axis 1. */
static void make_rows(cc_inputs *in, cleave_type type, int64_t rows, const int64_t *lens,
                      size_t n) {
  int64_t(*shapes)[CC_MAX_RANK] = calloc(n, sizeof *shapes);
  assert_non_null(shapes);
  for (size_t i = 0; i < n; i++) {
    shapes[i][0] = rows;
    shapes[i][1] = lens[i];
  }
  cc_inputs_make(in, type, n, 2, (const int64_t(*)[CC_MAX_RANK])shapes, (unsigned)n);
  free(shapes);
}

/* Runs a [rows, len_i] concat on axis 1 with `options` in every family, threads and alignment. */
static void run_paths(cleave_type type, int64_t rows, const int64_t *lens, size_t n,
                      int64_t nontemporal, int64_t tiny, const char *word, int streams) {
  cc_inputs in;
  make_rows(&in, type, rows, lens, n);
  int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  cc_expect ex;
  cc_expect_of(in.tensors, n, 1, 0, &ex);
  static const cleave_kernels_choice families[] = {CLEAVE_KERNELS_PORTABLE, CLEAVE_KERNELS_AVX2};
  size_t num_families = cc_have_avx2() ? 2 : 1;
  for (size_t f = 0; f < num_families; f++) {
    const char *words[3] = {word, NULL, NULL};
    /* The portable tiny kernels never stream. */
    if (streams && nontemporal == 0 && (f == 1 || strcmp(word, "rows") == 0)) {
      words[1] = "nt";
    }
    for (int threads = 0; threads < 3; threads++) {
      for (size_t misalign = 0; misalign <= 16; misalign += 16) {
        cc_context("%s, %zu inputs of %lld rows, family %zu, nt %lld, threads %d, misalign %zu",
                   word, n, (long long)rows, f, (long long)nontemporal, threads, misalign);
        cleave_plan_options o = cc_options(families[f], nontemporal, threads ? 0 : INT64_MAX, tiny);
        int calls =
            cc_check_plan(&op, in.tensors, n, &ex, &o, (cc_threads)threads, misalign, words);
        if (threads == CC_CUSTOM_2) {
          CC_CHECK(calls <= 1);
        }
      }
    }
  }
  cc_inputs_free(&in);
}

static void test_rows(void **state) {
  (void)state;
  int64_t two[] = {100, 60}, three[] = {256, 256, 256}, wide[] = {8192, 8192};
  run_paths(cleave_type_of(CLEAVE_F32), 64, two, 2, INT64_MAX, 64, "rows", 0);
  run_paths(cleave_type_of(CLEAVE_F32), 64, two, 2, 0, 64, "rows", 1);
  /* Pieces of 1 KiB: lanes of rows; pieces of 32 KiB: lanes inside each piece. */
  run_paths(cleave_type_of(CLEAVE_F32), 64, three, 3, 0, 64, "rows", 1);
  run_paths(cleave_type_of(CLEAVE_F32), 4, wide, 2, 0, 64, "rows", 1);
  /* One row: every input a block. */
  run_paths(cleave_type_of(CLEAVE_U8), 1, three, 3, 0, 64, "rows", 1);
}

static void test_transpositions(void **state) {
  (void)state;
  static const struct {
    cleave_dtype dtype;
    const char *word;
  } widths[] = {{CLEAVE_U8, "transpose1"},
                {CLEAVE_U16, "transpose2"},
                {CLEAVE_F32, "transpose4"},
                {CLEAVE_F64, "transpose8"}};
  int64_t ones[91];
  for (size_t i = 0; i < 91; i++) {
    ones[i] = 1;
  }
  for (size_t w = 0; w < 4; w++) {
    /* 64 inputs: rows of whole lines (streamed when aligned); 70 and 37 rows: every edge. */
    run_paths(cleave_type_of(widths[w].dtype), 48, ones, 64, 0, 64, widths[w].word, 1);
    run_paths(cleave_type_of(widths[w].dtype), 37, ones, 70, 0, 64, widths[w].word, 1);
    run_paths(cleave_type_of(widths[w].dtype), 37, ones, 70, INT64_MAX, 64, widths[w].word, 0);
    run_paths(cleave_type_of(widths[w].dtype), 5, ones, 3, INT64_MAX, 64, widths[w].word, 0);
    /* A large run steps by the rows of one input line (64 / W) and asks for lines ahead: 165
     * rows are two or more steps and a tail; 91 inputs leave a group narrower than the widest
     * and a few last units; 20 inputs make at most one widest group (the lookahead wraps into
     * the next step). */
    run_paths(cleave_type_of(widths[w].dtype), 165, ones, 91, 0, 64, widths[w].word, 1);
    run_paths(cleave_type_of(widths[w].dtype), 165, ones, 20, 0, 64, widths[w].word, 1);
  }
}

static void test_gather(void **state) {
  (void)state;
  static const int64_t units[] = {3, 5, 12, 16, 24, 32, 40, 64, 100};
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    int64_t lens[5] = {units[u], units[u], units[u], units[u], units[u]};
    run_paths(cleave_type_of(CLEAVE_U8), 33, lens, 5, 0, 128, "gather", 0);
  }
  /* A mix: tiny and row segments in one schedule. */
  int64_t mixed[] = {1, 200, 2, 2, 2, 90, 4};
  run_paths(cleave_type_of(CLEAVE_U16), 70, mixed, 7, 0, 64, "rows", 1);
}

/* Stacking scalars rows: each input gives one element per output row. */
static void test_stack_tiny(void **state) {
  (void)state;
  int64_t shapes[20][CC_MAX_RANK];
  for (size_t i = 0; i < 20; i++) {
    shapes[i][0] = 300;
  }
  cc_inputs in;
  cc_inputs_make(&in, cleave_type_of(CLEAVE_F32), 20, 1, (const int64_t(*)[CC_MAX_RANK])shapes, 9);
  int64_t axis = -1;
  cleave_concat_op op = cleave_op_concat_from_sequence(11, &axis, 1);
  cc_expect ex;
  cc_expect_of(in.tensors, 20, 1, 1, &ex);
  static const char *const words[] = {"transpose4", NULL};
  cleave_plan_options o = cleave_plan_options_default();
  cc_check_plan(&op, in.tensors, 20, &ex, &o, CC_ONE_THREAD, 0, words);
  cc_check_success(&op, in.tensors, 20, &ex);
  cc_inputs_free(&in);
}

/* A one-shot run of more segments than fit on the stack goes window by window. */
static void test_long_list(void **state) {
  (void)state;
  int64_t lens[150];
  for (size_t i = 0; i < 150; i++) {
    lens[i] = (int64_t)(i % 3);
  }
  cc_inputs in;
  make_rows(&in, cleave_type_of(CLEAVE_F32), 9, lens, 150);
  int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  cc_expect ex;
  cc_expect_of(in.tensors, 150, 1, 0, &ex);
  cc_check_success(&op, in.tensors, 150, &ex);
  cc_inputs_free(&in);
}

/* A run large enough for the default thresholds: streamed, on 2 threads; small runs never call
 * the parallel-for. */
static void test_defaults(void **state) {
  (void)state;
  int64_t big[] = {2048, 2048};
  cc_inputs in;
  make_rows(&in, cleave_type_of(CLEAVE_F32), 1024, big, 2);
  cc_context("16 MiB with the default options");
  int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  cc_expect ex;
  cc_expect_of(in.tensors, 2, 1, 0, &ex);
  cleave_plan_options o = cleave_plan_options_default();
  static const char *const words[] = {"rows", "nt", NULL};
  CC_CHECK(cc_check_plan(&op, in.tensors, 2, &ex, &o, CC_CUSTOM_2, 0, words) == 1);
  cc_check_plan(&op, in.tensors, 2, &ex, &o, CC_POOL_2, 0, words);
  cc_inputs_free(&in);
  int64_t small[] = {3, 4};
  make_rows(&in, cleave_type_of(CLEAVE_F32), 6, small, 2);
  cc_expect_of(in.tensors, 2, 1, 0, &ex);
  CC_CHECK(cc_check_plan(&op, in.tensors, 2, &ex, &o, CC_CUSTOM_2, 0, NULL) == 0);
  cc_inputs_free(&in);
}

/* A plan's run checks its pointers and writes nothing when one is wrong. */
static void test_run_pointers(void **state) {
  (void)state;
  int64_t lens[] = {2, 0, 3};
  cc_inputs in;
  make_rows(&in, cleave_type_of(CLEAVE_I32), 2, lens, 3);
  int64_t axis = 1;
  cleave_concat_op op = cleave_op_concat(&axis);
  cleave_concat_plan *plan = NULL;
  cleave_error err;
  assert_int_equal(cleave_concat_plan_create(&op, in.tensors, 3, NULL, &plan, &err), CLEAVE_OK);
  unsigned char out[64];
  memset(out, CC_SENTINEL, sizeof out);
  const void *ptrs[3] = {in.data[0], NULL, NULL};
  assert_int_equal(cleave_concat_plan_run(plan, ptrs, out, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "inputs[2] is NULL but that input is not empty");
  ptrs[2] = in.data[2];
  assert_int_equal(cleave_concat_plan_run(plan, NULL, out, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "the inputs array is NULL but the operator has 3 inputs");
  assert_int_equal(cleave_concat_plan_run(plan, ptrs, NULL, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "the output pointer is NULL but the output is not empty");
  assert_int_equal(cleave_concat_plan_run(NULL, ptrs, out, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "the plan is NULL");
  for (size_t k = 0; k < sizeof out; k++) {
    assert_int_equal(out[k], CC_SENTINEL);
  }
  void *allocated = out;
  cleave_allocator half = {cleave_allocator_system().alloc, NULL, NULL};
  assert_int_equal(cleave_concat_plan_run_alloc(plan, ptrs, NULL, &half, &allocated, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "the allocator's free function is NULL");
  assert_null(allocated);
  allocated = out;
  ptrs[0] = NULL;
  assert_int_equal(cleave_concat_plan_run_alloc(plan, ptrs, NULL, NULL, &allocated, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "inputs[0] is NULL but that input is not empty");
  assert_null(allocated);
  assert_int_equal(cleave_concat_plan_run_alloc(plan, ptrs, NULL, NULL, NULL, &err),
                   CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "the output result is NULL");
  /* The one-shot call checks the same. */
  in.tensors[0].data = NULL;
  assert_int_equal(cleave_concat_run(&op, in.tensors, 3, out, &err), CLEAVE_ERROR_INVALID_ARGUMENT);
  assert_string_equal(err.message, "inputs[0] is NULL but that input is not empty");
  in.tensors[0].data = in.data[0];
  cleave_concat_plan_destroy(plan);
  cc_inputs_free(&in);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random),         cmocka_unit_test(test_rows),
      cmocka_unit_test(test_transpositions), cmocka_unit_test(test_gather),
      cmocka_unit_test(test_stack_tiny),     cmocka_unit_test(test_long_list),
      cmocka_unit_test(test_defaults),       cmocka_unit_test(test_run_pointers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
