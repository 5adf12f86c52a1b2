/* tools/checkpoint: dtype sizes (plain, sub-byte, block-quantized), globs, and the cut rules of
 * block types (GGUF's quantized blocks, which no safetensors dtype has: the table here is the
 * test's own, with Q4_0's published geometry of 32 elements in 18 bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ckpt_cut.h"
#include "ckpt_glob.h"
#include "ckpt_plan.h"
#include "error.h"

static const ckpt_dtype f32 = {"F32", 0, 1, 32, 1, CLEAVE_F32};
static const ckpt_dtype f4 = {"F4", 0, 1, 4, 1, CLEAVE_F4E2M1};
static const ckpt_dtype f6 = {"F6_E2M3", 0, 1, 6, 0, CLEAVE_U8};
static const ckpt_dtype q4 = {"Q4_0", 2, 32, 144, 0, CLEAVE_U8};

static void test_sizes(void **state) {
  (void)state;
  uint64_t elements = 0, bytes = 0;
  const int64_t plain[] = {3, 5};
  assert_int_equal(ckpt_dtype_size(&f32, plain, 2, &elements, &bytes), CKPT_SIZE_OK);
  assert_int_equal(elements, 15);
  assert_int_equal(bytes, 60);
  /* A scalar is one element. */
  assert_int_equal(ckpt_dtype_size(&f32, NULL, 0, &elements, &bytes), CKPT_SIZE_OK);
  assert_int_equal(bytes, 4);
  /* Sub-byte types: the whole tensor must fill whole bytes, not each row. */
  const int64_t odd[] = {3};
  assert_int_equal(ckpt_dtype_size(&f4, odd, 1, &elements, &bytes), CKPT_SIZE_PARTIAL_BYTE);
  const int64_t rows_of_three[] = {2, 3};
  assert_int_equal(ckpt_dtype_size(&f4, rows_of_three, 2, &elements, &bytes), CKPT_SIZE_OK);
  assert_int_equal(bytes, 3);
  const int64_t four[] = {4};
  assert_int_equal(ckpt_dtype_size(&f6, four, 1, &elements, &bytes), CKPT_SIZE_OK);
  assert_int_equal(bytes, 3);
  /* Blocks: the innermost dimension holds whole blocks. */
  const int64_t blocks[] = {3, 64};
  assert_int_equal(ckpt_dtype_size(&q4, blocks, 2, &elements, &bytes), CKPT_SIZE_OK);
  assert_int_equal(bytes, 3 * 2 * 18);
  const int64_t straddling[] = {2, 48};
  assert_int_equal(ckpt_dtype_size(&q4, straddling, 2, &elements, &bytes), CKPT_SIZE_PARTIAL_BLOCK);
  assert_int_equal(ckpt_dtype_size(&q4, NULL, 0, &elements, &bytes), CKPT_SIZE_PARTIAL_BLOCK);
  const int64_t empty[] = {0, 32};
  assert_int_equal(ckpt_dtype_size(&q4, empty, 2, &elements, &bytes), CKPT_SIZE_OK);
  assert_int_equal(bytes, 0);
  /* Overflow of the elements, and of the bytes beyond INT64_MAX. */
  const int64_t huge[] = {INT64_MAX, 4};
  assert_int_equal(ckpt_dtype_size(&f32, huge, 2, &elements, &bytes), CKPT_SIZE_OVERFLOW);
  const int64_t big[] = {(int64_t)1 << 62};
  assert_int_equal(ckpt_dtype_size(&f32, big, 1, &elements, &bytes), CKPT_SIZE_OVERFLOW);
  uint64_t bits = 0;
  assert_int_equal(ckpt_dtype_bits(&q4, 33, &bits), -1);
  assert_int_equal(ckpt_dtype_bits(&q4, 64, &bits), 0);
  assert_int_equal(bits, 288);
}

static void test_globs(void **state) {
  (void)state;
  ckpt_match m;
  assert_int_equal(ckpt_glob_match("model.*.qkv_proj.*", "model.3.qkv_proj.weight", &m), 1);
  assert_int_equal(m.count, 2);
  char *name = ckpt_glob_fill("model.*.q_proj.*", &m);
  assert_string_equal(name, "model.3.q_proj.weight");
  free(name);
  assert_int_equal(ckpt_glob_match("a?c", "abc", NULL), 1);
  assert_int_equal(ckpt_glob_match("a?c", "ac", NULL), 0);
  /* '[' is literal. */
  assert_int_equal(ckpt_glob_match("w[0]", "w[0]", NULL), 1);
  assert_int_equal(ckpt_glob_match("w[0]", "w0", NULL), 0);
  /* Each '*' takes the shortest run that lets the rest match. */
  assert_int_equal(ckpt_glob_match("*.*", "a.b.c", &m), 1);
  assert_int_equal(m.len[0], 1);
  assert_int_equal(ckpt_glob_stars("*a*b*"), 3);
  /* More '*' than captures: matches nothing. */
  assert_int_equal(ckpt_glob_match("*********", "abc", NULL), 0);
}

/* A tensor of the test's own. */
static ckpt_tensor tensor(const ckpt_dtype *d, int64_t *shape, int ndim) {
  ckpt_tensor t;
  memset(&t, 0, sizeof t);
  t.name = (char *)"w";
  t.dtype = d;
  t.ndim = ndim;
  t.shape = shape;
  t.offset = 1000;
  ckpt_dtype_size(d, shape, ndim, &(uint64_t){0}, &t.bytes);
  return t;
}

static void test_block_cuts(void **state) {
  (void)state;
  int64_t shape[] = {4, 64};
  ckpt_tensor t = tensor(&q4, shape, 2);
  ckpt_cut cut = {0};
  ckpt_part *parts = NULL;
  size_t count = 0;
  tool_error err = {0};
  /* The innermost axis, at block boundaries: each row of 2 blocks (36 bytes) in halves. */
  cut.axis = 1;
  cut.has_parts = 1;
  cut.parts = 2;
  assert_int_equal(ckpt_cut_tensor(&cut, &t, "m.gguf", &parts, &count, &err), 0);
  assert_int_equal(count, 2);
  assert_int_equal(parts[1].rows, 4);
  assert_int_equal(parts[1].row_bytes, 36);
  assert_int_equal(parts[1].col, 18);
  assert_int_equal(parts[1].take, 18);
  assert_int_equal(parts[1].shape[1], 32);
  ckpt_span span = ckpt_span_part(&t, &parts[1], 7);
  assert_int_equal(span.src_row, 1000);
  assert_int_equal(span.src_stride, 36);
  assert_int_equal(span.src_col, 18);
  assert_int_equal(span.group, 7);
  free(parts);
  /* Axis 0: row ranges, one contiguous span each. */
  cut.axis = 0;
  assert_int_equal(ckpt_cut_tensor(&cut, &t, "m.gguf", &parts, &count, &err), 0);
  span = ckpt_span_part(&t, &parts[1], 7);
  assert_int_equal(span.rows, 1);
  assert_int_equal(span.src_row, 1000 + 72);
  assert_int_equal(span.take, 72);
  assert_int_equal(span.group, 0);
  free(parts);
  /* Inside a block: refused, naming the type and its block. */
  int64_t lengths[] = {16, 48};
  cut.axis = 1;
  cut.has_parts = 0;
  cut.lengths = lengths;
  cut.length_count = 2;
  assert_int_equal(ckpt_cut_tensor(&cut, &t, "m.gguf", &parts, &count, &err), CLI_EXIT_DATA);
  assert_null(parts);
  assert_string_equal(err.message,
                      "m.gguf: tensor 'w' (Q4_0 [4,64]): part 0 holds 16 elements of the axis: not "
                      "a whole number of Q4_0 blocks (32 elements)");
  int64_t later[] = {32, 0, 32};
  cut.lengths = later;
  cut.length_count = 3;
  assert_int_equal(ckpt_cut_tensor(&cut, &t, "m.gguf", &parts, &count, &err), 0);
  assert_int_equal(count, 3);
  assert_int_equal(parts[2].col, 18);
  free(parts);
  /* A view that puts a block across two rows is refused. */
  assert_int_equal(ckpt_parse_view("16,-1", &cut), 0);
  cut.has_parts = 1;
  cut.parts = 2;
  cut.axis = 0;
  assert_int_equal(ckpt_cut_tensor(&cut, &t, "m.gguf", &parts, &count, &err), CLI_EXIT_DATA);
  assert_string_equal(err.message,
                      "m.gguf: tensor 'w' (Q4_0 [4,64], viewed as [16,16]): the view's innermost "
                      "dimension 16 is not a whole number of Q4_0 blocks (32 elements)");
}

static void test_block_view_and_starts(void **state) {
  (void)state;
  int64_t shape[] = {2, 96};
  ckpt_tensor t = tensor(&q4, shape, 2);
  ckpt_cut cut = {0};
  ckpt_part *parts = NULL;
  size_t count = 0;
  tool_error err = {0};
  /* [2,96] seen as [6,32] keeps whole blocks per row. */
  assert_int_equal(ckpt_parse_view("6,32", &cut), 0);
  cut.has_parts = 1;
  cut.parts = 3;
  cut.axis = 0;
  assert_int_equal(ckpt_cut_tensor(&cut, &t, "m.gguf", &parts, &count, &err), 0);
  assert_int_equal(parts[2].take, 2 * 18);
  free(parts);
  /* [2,96] seen as [4,48]: 48 is not a whole number of blocks. */
  assert_int_equal(ckpt_parse_view("4,48", &cut), 0);
  cut.parts = 2;
  assert_int_equal(ckpt_cut_tensor(&cut, &t, "m.gguf", &parts, &count, &err), CLI_EXIT_DATA);
  assert_non_null(strstr(err.message, "viewed as [4,48]): the view's innermost dimension 48 is "
                                      "not a whole number of Q4_0 blocks (32 elements)"));
  /* Unequal parts of whole blocks. */
  cut.has_view = 0;
  int64_t lengths[] = {32, 64};
  cut.has_parts = 0;
  cut.lengths = lengths;
  cut.length_count = 2;
  cut.axis = 1;
  assert_int_equal(ckpt_cut_tensor(&cut, &t, "m.gguf", &parts, &count, &err), 0);
  assert_int_equal(parts[1].col, 18);
  assert_int_equal(parts[1].take, 36);
  assert_int_equal(parts[1].shape[1], 64);
  free(parts);
  /* Sub-byte types keep their own messages. */
  int64_t f4_shape[] = {2, 3};
  ckpt_tensor small = tensor(&f4, f4_shape, 2);
  cut.has_parts = 1;
  cut.parts = 3;
  cut.lengths = NULL;
  assert_int_equal(ckpt_cut_tensor(&cut, &small, "m.st", &parts, &count, &err), CLI_EXIT_DATA);
  assert_string_equal(err.message,
                      "m.st: tensor 'w' (F4 [2,3]): a row along axis 1 holds 12 bits: the parts "
                      "would not start on byte boundaries");
}

static void test_scrub(void **state) {
  (void)state;
  tool_error err;
  tool_fail(&err, CLI_EXIT_DATA, "tensor '%s'", "evil\n\x1b[31m\x7f");
  assert_int_equal(tool_scrub(&err), CLI_EXIT_DATA);
  assert_string_equal(err.message, "tensor 'evil??[31m?'");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sizes),      cmocka_unit_test(test_globs),
      cmocka_unit_test(test_block_cuts), cmocka_unit_test(test_block_view_and_starts),
      cmocka_unit_test(test_scrub),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
