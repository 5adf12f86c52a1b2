/* tools/checkpoint/model/ckpt_config: config.json's fields and their defaults (num_key_value_heads from
 * num_attention_heads, head_dim from hidden_size), the quantization block, and every refusal:
 * the status and a message naming the file and the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ckpt_config.h"
#include "cli_util.h"

static int parse(const char *text, ckpt_config *c, tool_error *err) {
  return ckpt_config_parse(text, strlen(text), "m/config.json", c, err);
}

static void test_llama_gqa(void **state) {
  (void)state;
  ckpt_config c;
  tool_error err;
  const char *text = "{\"model_type\": \"llama\", \"num_attention_heads\": 32, "
                     "\"num_key_value_heads\": 8, \"hidden_size\": 4096, "
                     "\"intermediate_size\": 14336, \"vocab_size\": 128256, "
                     "\"tie_word_embeddings\": false, \"rope_scaling\": {\"factor\": 8.0}}";
  assert_int_equal(parse(text, &c, &err), 0);
  assert_string_equal(c.model_type, "llama");
  assert_int_equal(c.heads, 32);
  assert_int_equal(c.kv_heads, 8);
  assert_int_equal(c.head_dim, 128); /* 4096 / 32 */
  assert_int_equal(c.hidden_size, 4096);
  assert_int_equal(c.intermediate_size, 14336);
  assert_int_equal(c.vocab_size, 128256);
  assert_int_equal(c.experts, 0);
  assert_int_equal(c.tie_word_embeddings, 0);
  assert_int_equal(c.has_quantization, 0);
}

static void test_defaults_and_moe(void **state) {
  (void)state;
  ckpt_config c;
  tool_error err;
  /* No num_key_value_heads: as many as the heads; head_dim given (Qwen3: not hidden / heads);
   * null is not given. */
  assert_int_equal(parse("{\"model_type\": \"qwen3_moe\", \"num_attention_heads\": 4, "
                         "\"head_dim\": 16, \"hidden_size\": 32, \"num_experts\": 8, "
                         "\"moe_intermediate_size\": 24, \"tie_word_embeddings\": true, "
                         "\"sliding_window\": null, \"num_local_experts\": null}",
                         &c, &err),
                   0);
  assert_int_equal(c.kv_heads, 4);
  assert_int_equal(c.head_dim, 16);
  assert_int_equal(c.experts, 8);
  assert_int_equal(c.moe_intermediate_size, 24);
  assert_int_equal(c.tie_word_embeddings, 1);
  assert_int_equal(parse("{\"num_local_experts\": 8, \"num_experts\": 8, "
                         "\"shared_expert_intermediate_size\": 40}",
                         &c, &err),
                   0);
  assert_int_equal(c.experts, 8);
  assert_int_equal(c.shared_expert_intermediate_size, 40);
  assert_string_equal(c.model_type, "");
  assert_int_equal(c.heads, 0); /* no heads: none of KV heads either (a fuzzer's 0 % 0) */
  assert_int_equal(c.kv_heads, 0);
  assert_int_equal(c.head_dim, 0);
}

static void test_quantization(void **state) {
  (void)state;
  ckpt_config c;
  tool_error err;
  assert_int_equal(parse("{\"quantization_config\": {\"quant_method\": \"fp8\", "
                         "\"fmt\": \"e4m3\", \"weight_block_size\": [128, 64]}}",
                         &c, &err),
                   0);
  assert_int_equal(c.has_quantization, 1);
  assert_string_equal(c.quant_method, "fp8");
  assert_int_equal(c.has_block, 1);
  assert_int_equal(c.block[0], 128);
  assert_int_equal(c.block[1], 64);
  assert_int_equal(parse("{\"quantization_config\": {\"quant_method\": \"gptq\"}}", &c, &err), 0);
  assert_int_equal(c.has_block, 0);
}

/* Each refusal: CLI_EXIT_DATA and a message holding the file and `words`. */
static void refused(const char *text, const char *words) {
  ckpt_config c;
  tool_error err;
  memset(&err, 0, sizeof err);
  assert_int_equal(parse(text, &c, &err), CLI_EXIT_DATA);
  if (strstr(err.message, "m/config.json: ") != err.message || strstr(err.message, words) == NULL) {
    fail_msg("message '%s' lacks '%s'", err.message, words);
  }
}

static void test_refusals(void **state) {
  (void)state;
  refused("{\"model_type\": \"llama\",", "invalid JSON");
  refused("[1, 2]", "not a JSON object");
  refused("{\"a\": 1, \"a\": 2}", "invalid JSON");
  refused("{\"model_type\": 3}", "model_type is not a string");
  refused("{\"model_type\": \"a\\u0000b\"}", "invalid JSON"); /* jansson refuses NUL */
  refused(
      "{\"model_type\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}",
      "model_type is not a name of at most 63 characters");
  refused("{\"num_attention_heads\": \"32\"}", "num_attention_heads is not an integer");
  refused("{\"num_attention_heads\": 32.0}", "num_attention_heads is not an integer");
  refused("{\"num_attention_heads\": 0}", "num_attention_heads is 0 (from 1 to");
  refused("{\"hidden_size\": -4096}", "hidden_size is -4096");
  refused("{\"vocab_size\": 9007199254740993}", "vocab_size is 9007199254740993");
  refused("{\"num_attention_heads\": 32, \"num_key_value_heads\": 3}",
          "num_key_value_heads (3) does not divide num_attention_heads (32)");
  refused("{\"num_key_value_heads\": 8}", "num_key_value_heads is given without");
  refused("{\"num_attention_heads\": 3, \"hidden_size\": 64}",
          "no head_dim, and num_attention_heads (3) does not divide hidden_size (64)");
  refused("{\"num_local_experts\": 8, \"num_experts\": 4}",
          "num_local_experts (8) and num_experts (4) disagree");
  refused("{\"tie_word_embeddings\": 1}", "tie_word_embeddings is not true or false");
  refused("{\"quantization_config\": \"fp8\"}", "quantization_config is not an object");
  refused("{\"quantization_config\": {\"quant_method\": 8}}",
          "quantization_config.quant_method is not a string");
  refused("{\"quantization_config\": {\"weight_block_size\": [128]}}",
          "quantization_config.weight_block_size is not an array of 2 integers");
  refused("{\"quantization_config\": {\"weight_block_size\": [128, 0]}}",
          "quantization_config.weight_block_size[1] is not an integer from 1");
  refused("{\"quantization_config\": {\"weight_block_size\": [\"128\", 128]}}",
          "quantization_config.weight_block_size[0] is not an integer");
}

static void test_files(void **state) {
  (void)state;
  ckpt_config c;
  tool_error err;
  assert_int_equal(ckpt_config_read("/nonexistent/config.json", &c, &err), CLI_EXIT_NOINPUT);
  assert_non_null(strstr(err.message, "cannot open '/nonexistent/config.json'"));
  assert_int_equal(ckpt_config_read("/tmp", &c, &err), CLI_EXIT_NOINPUT);
  assert_non_null(strstr(err.message, "'/tmp' is not a regular file"));
  char path[] = "/tmp/cleave-config-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  const char text[] = "{\"model_type\": \"mistral\", \"num_attention_heads\": 8}";
  assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
  assert_int_equal(ckpt_config_read(path, &c, &err), 0);
  assert_string_equal(c.model_type, "mistral");
  assert_int_equal(c.kv_heads, 8);
  /* Over the limit: refused by its size, before it is read. */
  assert_int_equal(ftruncate(fd, (off_t)CKPT_CONFIG_MAX_BYTES + 1), 0);
  assert_int_equal(ckpt_config_read(path, &c, &err), CLI_EXIT_DATA);
  assert_non_null(strstr(err.message, "more than a config.json holds"));
  assert_non_null(strstr(err.message, path));
  close(fd);
  unlink(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_llama_gqa),    cmocka_unit_test(test_defaults_and_moe),
      cmocka_unit_test(test_quantization), cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_files),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
