/* tools/convert: the name table read both ways, and the Q/K permutation's row moves against
 * LlamaModel.permute computed here row by row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "convert_arch.h"
#include "convert_names.h"
#include "convert_permute.h"

static void expect_pair(convert_arch arch, const char *hf, const char *gguf, long bid) {
  char out[128];
  long b;
  assert_non_null(convert_name_to_gguf(arch, hf, out, sizeof out, &b));
  assert_string_equal(out, gguf);
  assert_int_equal(b, bid);
  assert_non_null(convert_name_to_hf(arch, gguf, out, sizeof out, &b));
  assert_string_equal(out, hf);
  assert_int_equal(b, bid);
}

static void test_names(void **state) {
  (void)state;
  expect_pair(CONVERT_ARCH_LLAMA, "model.embed_tokens.weight", "token_embd.weight", -1);
  expect_pair(CONVERT_ARCH_LLAMA, "lm_head.weight", "output.weight", -1);
  expect_pair(CONVERT_ARCH_LLAMA, "model.norm.weight", "output_norm.weight", -1);
  expect_pair(CONVERT_ARCH_LLAMA, "model.layers.0.self_attn.q_proj.weight", "blk.0.attn_q.weight",
              0);
  expect_pair(CONVERT_ARCH_QWEN2, "model.layers.17.self_attn.k_proj.bias", "blk.17.attn_k.bias",
              17);
  expect_pair(CONVERT_ARCH_QWEN3, "model.layers.3.self_attn.q_norm.weight",
              "blk.3.attn_q_norm.weight", 3);
  expect_pair(CONVERT_ARCH_QWEN3, "model.layers.10.mlp.down_proj.weight", "blk.10.ffn_down.weight",
              10);
  expect_pair(CONVERT_ARCH_LLAMA, "model.layers.2.post_attention_layernorm.weight",
              "blk.2.ffn_norm.weight", 2);
}

static void test_unmapped(void **state) {
  (void)state;
  char out[128];
  long b;
  /* Q norms are qwen3's only. */
  assert_null(convert_name_to_gguf(CONVERT_ARCH_LLAMA, "model.layers.0.self_attn.q_norm.weight",
                                   out, sizeof out, &b));
  assert_null(convert_name_to_gguf(CONVERT_ARCH_LLAMA, "model.layers.x.mlp.up_proj.weight", out,
                                   sizeof out, &b));
  assert_null(convert_name_to_gguf(CONVERT_ARCH_LLAMA, "model.layers.01.mlp.up_proj.weight", out,
                                   sizeof out, &b));
  assert_null(
      convert_name_to_gguf(CONVERT_ARCH_LLAMA, "model.norm.weight.extra", out, sizeof out, &b));
  assert_null(convert_name_to_gguf(CONVERT_ARCH_LLAMA, "model.embed_tokens.weight", out, 8, &b));
}

static void test_arch(void **state) {
  (void)state;
  assert_int_equal(convert_hf_class_find("MistralForCausalLM")->arch, CONVERT_ARCH_LLAMA);
  assert_int_equal(convert_hf_class_find("Qwen3ForCausalLM")->arch, CONVERT_ARCH_QWEN3);
  assert_null(convert_hf_class_find("GPT2LMHeadModel"));
  assert_true(convert_arch_get(CONVERT_ARCH_LLAMA)->permute_qk);
  assert_false(convert_arch_get(CONVERT_ARCH_QWEN2)->permute_qk);
  assert_int_equal(convert_arch_by_name("qwen2"), CONVERT_ARCH_QWEN2);
  assert_int_equal(convert_arch_by_name("gpt2"), -1);
}

/* Where LlamaModel.permute sends each row: reshape(heads, 2, half) swapaxes(1, 2). */
static int64_t permuted_source(int64_t rows, int64_t heads, int64_t out_row) {
  int64_t head_rows = rows / heads, half = head_rows / 2;
  int64_t h = out_row / head_rows, r = out_row % head_rows;
  return h * head_rows + (r % 2) * half + r / 2;
}

static void expect_permutation(int64_t rows, int64_t heads) {
  size_t n;
  tool_error err = {0};
  assert_int_equal(convert_permute_check(rows, heads, &n, &err), 0);
  convert_row_move *m = calloc(n, sizeof *m);
  int64_t *src = calloc((size_t)rows, sizeof *src);
  int64_t *back = calloc((size_t)rows, sizeof *back);
  assert_non_null(m);
  for (int64_t r = 0; r < rows; r++) {
    src[r] = -1;
    back[r] = -1;
  }
  convert_permute_moves(rows, heads, 0, m);
  for (size_t i = 0; i < n; i++) {
    for (int64_t k = 0; k < m[i].rows; k++) {
      int64_t d = m[i].dst + k * m[i].dst_step;
      assert_true(d >= 0 && d < rows);
      assert_int_equal(src[d], -1); /* each row written once */
      src[d] = m[i].src + k * m[i].src_step;
    }
  }
  for (int64_t r = 0; r < rows; r++) {
    assert_int_equal(src[r], permuted_source(rows, heads, r));
  }
  /* The inverse undoes it. */
  convert_permute_moves(rows, heads, 1, m);
  for (size_t i = 0; i < n; i++) {
    for (int64_t k = 0; k < m[i].rows; k++) {
      back[m[i].dst + k * m[i].dst_step] = src[m[i].src + k * m[i].src_step];
    }
  }
  for (int64_t r = 0; r < rows; r++) {
    assert_int_equal(back[r], r);
  }
  free(m);
  free(src);
  free(back);
}

static void test_permutation(void **state) {
  (void)state;
  expect_permutation(64, 4);
  expect_permutation(32, 2);
  expect_permutation(2, 1);
  expect_permutation(128, 8);
}

static void test_permutation_refused(void **state) {
  (void)state;
  size_t n;
  tool_error err = {0};
  assert_int_equal(convert_permute_check(60, 4, &n, &err), CLI_EXIT_DATA);
  assert_string_equal(err.message, "60 rows are not 4 heads of an even number of rows each, as "
                                   "the Q/K permutation needs");
  assert_int_equal(convert_permute_check(12, 4, &n, &err), CLI_EXIT_DATA);
  assert_int_equal(convert_permute_check(64, 0, &n, &err), CLI_EXIT_DATA);
  assert_string_equal(err.message, "cannot permute for 0 heads");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_unmapped),
      cmocka_unit_test(test_arch),
      cmocka_unit_test(test_permutation),
      cmocka_unit_test(test_permutation_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
