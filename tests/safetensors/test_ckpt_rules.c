/* tools/checkpoint: dtype sizes (plain, sub-byte, block-quantized), globs, scales found by name
 * and cut in blocks with their weights, and the cut rules of block types (GGUF's quantized blocks,
 * which no safetensors dtype has: the table here is the test's own, with Q4_0's published geometry
 * of 32 elements in 18 bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ckpt_companion.h"
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

/* A scale is found by its weight's name among names that share its prefix. */
static void test_companion_names(void **state) {
  (void)state;
  const char *names[] = {"a.weight",    "a.weight.x", "a.weight_scale_inv", "a.weightb",
                         "b_scale_inv", "c.w",        "c.w_scale_inv",      "c.w_scale_inv2"};
  ckpt_tensor ts[8];
  const ckpt_tensor *by_name[8];
  int64_t shape[] = {4, 8};
  for (size_t i = 0; i < 8; i++) {
    ts[i] = tensor(&f32, shape, 2);
    ts[i].name = (char *)names[i];
    by_name[i] = &ts[i];
  }
  ckpt_model m;
  memset(&m, 0, sizeof m);
  m.tensor_count = 8;
  m.by_name = by_name;
  size_t at = 99;
  assert_ptr_equal(ckpt_companion_weight(&m, &ts[2], &at), &ts[0]);
  assert_int_equal(at, 0);
  assert_ptr_equal(ckpt_companion_weight(&m, &ts[6], &at), &ts[5]);
  assert_int_equal(at, 5);
  /* No tensor "b"; a suffix not at the end; a weight that is not a scale. */
  assert_null(ckpt_companion_weight(&m, &ts[4], &at));
  assert_null(ckpt_companion_weight(&m, &ts[7], &at));
  assert_null(ckpt_companion_weight(&m, &ts[0], &at));
}

/* A weight's cut in blocks of [4, 8]: lengths counted in blocks, the last part taking the last
 * (partial) block; a part starting inside a block is refused; the parts of a join give back
 * their lengths. */
static void test_companion_cuts(void **state) {
  (void)state;
  int64_t wshape[] = {10, 20}, sshape[] = {3, 3}, bad_shape[] = {3, 2};
  ckpt_tensor w = tensor(&f32, wshape, 2), s = tensor(&f32, sshape, 2);
  w.name = (char *)"x.weight";
  s.name = (char *)"x.weight_scale_inv";
  ckpt_quant q = {1, {4, 8}};
  tool_error err = {0};
  assert_int_equal(ckpt_companion_check(&q, &w, &s, "m.st", &err), 0);
  int64_t lengths[] = {8, -1};
  ckpt_cut cut = {0}, scut;
  cut.axis = 0;
  cut.lengths = lengths;
  cut.length_count = 2;
  assert_int_equal(ckpt_companion_cut(&q, &w, &s, &cut, "m.st", &scut, &err), 0);
  assert_int_equal(scut.axis, 0);
  assert_int_equal(scut.has_parts, 0);
  assert_int_equal(scut.length_count, 2);
  assert_int_equal(scut.lengths[0], 2);
  assert_int_equal(scut.lengths[1], 1);
  ckpt_companion_cut_free(&scut);
  /* Columns: 16 then 4 of the last block of 8 (partial). */
  int64_t columns[] = {16, 4};
  cut.axis = -1;
  cut.lengths = columns;
  assert_int_equal(ckpt_companion_cut(&q, &w, &s, &cut, "m.st", &scut, &err), 0);
  assert_int_equal(scut.axis, 1);
  assert_int_equal(scut.lengths[0], 2);
  assert_int_equal(scut.lengths[1], 1);
  ckpt_companion_cut_free(&scut);
  /* Two halves of 10 columns: the second would start inside the second block. */
  cut.has_parts = 1;
  cut.parts = 2;
  assert_int_equal(ckpt_companion_cut(&q, &w, &s, &cut, "m.st", &scut, &err), CLI_EXIT_DATA);
  assert_non_null(strstr(err.message, "part 1 would start at column 10 of axis 1, inside a "
                                      "quantization block of 8 columns (weight_block_size [4, "
                                      "8])"));
  assert_null(scut.lengths);
  /* The block size unknown, a scale of another shape. */
  ckpt_quant unknown = {0, {0, 0}};
  assert_int_equal(ckpt_companion_cut(&unknown, &w, &s, &cut, "m.st", &scut, &err), CLI_EXIT_DATA);
  assert_non_null(strstr(err.message, "--quant-block B0,B1"));
  s.shape = bad_shape;
  assert_int_equal(ckpt_companion_check(&q, &w, &s, "m.st", &err), CLI_EXIT_DATA);
  assert_non_null(strstr(err.message, "needs a scale of shape [3,3]"));
  assert_int_equal(ckpt_companion_check(&unknown, &w, &s, "m.st", &err), 0);
  /* The join of parts of 8 and 2 rows is the cut 8,2. */
  int64_t p0[] = {8, 20}, p1[] = {2, 20};
  ckpt_tensor a = tensor(&f32, p0, 2), b = tensor(&f32, p1, 2);
  const ckpt_tensor *parts[] = {&a, &b};
  assert_int_equal(ckpt_companion_join_cut(&w, parts, 2, NULL, 0, &scut, &err), 0);
  assert_int_equal(scut.length_count, 2);
  assert_int_equal(scut.lengths[0], 8);
  assert_int_equal(scut.lengths[1], 2);
  ckpt_companion_cut_free(&scut);
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
      cmocka_unit_test(test_sizes),           cmocka_unit_test(test_globs),
      cmocka_unit_test(test_block_cuts),      cmocka_unit_test(test_block_view_and_starts),
      cmocka_unit_test(test_companion_names), cmocka_unit_test(test_companion_cuts),
      cmocka_unit_test(test_scrub),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
