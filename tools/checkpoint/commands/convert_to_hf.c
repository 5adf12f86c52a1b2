/* convert, the way back: a GGUF file (or the first file of a split set) into a Hugging Face
 * folder. The tensors get their Hugging Face names (tools/convert/convert_names.h read the other
 * way), the Q and K rows of llama moved back (convert_permute.h's inverse), every tensor cast or
 * dequantized to --outtype by the streaming writer (ggml blocks through the library's
 * cleave_ggml_dequantize, ckpt_plan.h's CKPT_DEQUANTIZE_GGML), written by the safetensors
 * driver's layout and index, with config.json and generation_config.json made from the metadata
 * (convert_hf_config.h) and committed with them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_by_size.h"
#include "ckpt_cast.h"
#include "ckpt_commands.h"
#include "cli_util.h"
#include "convert_arch.h"
#include "convert_hf_config.h"
#include "convert_names.h"
#include "gguf_driver.h"
#include "gguf_model.h"
#include "gguf_value.h"
#include "st_driver.h"
#include "st_model.h"

/* --outtype's words (convert.c's order): auto, f32, f16, bf16. */
static const struct {
  cleave_dtype lib;
  const char *torch;
} outtypes[] = {{CLEAVE_F32, "float32"},
                {CLEAVE_F32, "float32"},
                {CLEAVE_F16, "float16"},
                {CLEAVE_BF16, "bfloat16"}};

/* --outtype auto: the float type every tensor of two dimensions or more shares when it is F16
 * or BF16 (a model converted unquantized: its own type back, 1-D F32 tensors rounded to it, as
 * they were before the converter widened them); otherwise F32, which holds every dequantized
 * value and every float type exactly. */
static int auto_outtype(const ckpt_model *m) {
  int seen = 0;
  for (size_t f = 0; f < m->file_count; f++) {
    for (size_t k = 0; k < m->files[f].tensor_count; k++) {
      const ckpt_tensor *t = &m->files[f].tensors[k];
      if (t->ndim < 2) {
        continue;
      }
      int type = strcmp(t->dtype->name, "F16") == 0    ? 2
                 : strcmp(t->dtype->name, "BF16") == 0 ? 3
                                                       : 1;
      if (seen != 0 && type != seen) {
        return 1;
      }
      seen = type;
    }
  }
  return seen != 0 ? seen : 1;
}

/* general.architecture, as one the command takes (65 naming it otherwise). */
static int find_arch(const ckpt_model *m, convert_arch *arch, tool_error *err) {
  const ckpt_file *f = &m->files[0];
  const ckpt_meta *a = gguf_meta_lookup(f->meta, f->meta_count, "general.architecture");
  if (a == NULL) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: no general.architecture: cleave convert takes "
                     "llama, qwen2 and qwen3 files",
                     f->path);
  }
  int found = convert_arch_by_name(a->value);
  if (found < 0) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: architecture '%.100s' is not one cleave convert takes (llama, qwen2, "
                     "qwen3)",
                     f->path, a->value);
  }
  *arch = (convert_arch)found;
  return 0;
}

/* An unsigned metadata integer `<arch>.suffix`, 0 when absent or not one. */
static int64_t arch_count(const ckpt_model *m, convert_arch arch, const char *suffix) {
  char key[160];
  snprintf(key, sizeof key, "%s.%s", convert_arch_get(arch)->name, suffix);
  const ckpt_meta *e = gguf_meta_lookup(m->files[0].meta, m->files[0].meta_count, key);
  int neg;
  uint64_t v;
  if (e == NULL || gguf_meta_integer(e, &neg, &v) != 0 || neg || v > INT32_MAX) {
    return 0;
  }
  return (int64_t)v;
}

/* The output tensor of GGUF tensor `t` as `to`: cast, dequantized, or copied. */
static int out_tensor(const ckpt_model *m, const ckpt_tensor *t, const ckpt_dtype *to,
                      ckpt_out_tensor *o, tool_error *err) {
  const ckpt_dtype *in = t->dtype;
  uint64_t out_size = to->block_bits / 8;
  if (in->movable && ckpt_cast_float(in->lib)) {
    if (in->lib != to->lib) {
      o->cast_from = in;
      o->bytes = t->bytes / (in->block_bits / 8) * out_size;
    }
    return 0;
  }
  if (!cleave_ggml_can_dequantize((cleave_ggml_type)in->code)) {
    return tool_fail(err, CLI_EXIT_DATA,
                     "%s: tensor '%s' is %s, which cleave does not dequantize (it dequantizes F32, "
                     "F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K to Q6_K, TQ1_0, TQ2_0, IQ4_NL, "
                     "IQ4_XS, MXFP4 and NVFP4)",
                     m->files[t->file].name, t->name, in->name);
  }
  uint64_t blocks = t->bytes / (in->block_bits / 8);
  if (blocks > UINT64_MAX / in->block_elems / out_size) {
    return tool_fail(err, CLI_EXIT_DATA, "%s: tensor '%s' as %s would take more than 2^64 bytes",
                     m->files[t->file].name, t->name, to->name);
  }
  o->cast_from = in;
  o->dequantize = CKPT_DEQUANTIZE_GGML;
  o->bytes = blocks * in->block_elems * out_size;
  return 0;
}

/* Every tensor into `all`, renamed, with its spans; *tied set when there is no output.weight. */
static int list_tensors(const ckpt_model *m, convert_arch arch, const ckpt_dtype *to,
                        ckpt_out_file *all, int *tied, int64_t *vocab_rows, tool_error *err) {
  int64_t heads = arch_count(m, arch, "attention.head_count");
  int64_t kv = arch_count(m, arch, "attention.head_count_kv");
  int permute = convert_arch_get(arch)->permute_qk;
  *tied = 1;
  for (size_t f = 0; f < m->file_count; f++) {
    for (size_t k = 0; k < m->files[f].tensor_count; k++) {
      const ckpt_tensor *t = &m->files[f].tensors[k];
      char hf[512];
      long bid;
      const convert_name *e = convert_name_to_hf(arch, t->name, hf, sizeof hf, &bid);
      if (e == NULL) {
        return tool_fail(err, CLI_EXIT_DATA, "%s: tensor '%s' has no Hugging Face name for %s",
                         m->files[f].name, t->name, convert_arch_get(arch)->name);
      }
      if (e->role == CONVERT_ROLE_OUTPUT) {
        *tied = 0;
      } else if (e->role == CONVERT_ROLE_TOKEN_EMBD && t->ndim > 0) {
        *vocab_rows = t->shape[0];
      }
      ckpt_out_tensor o = {.name = hf,
                           .dtype = to,
                           .ndim = t->ndim,
                           .shape = t->shape,
                           .bytes = t->bytes,
                           .source = t};
      int rc = out_tensor(m, t, to, &o, err);
      int64_t h = 0;
      if (permute && e->role == CONVERT_ROLE_Q) {
        h = heads;
      } else if (permute && e->role == CONVERT_ROLE_K) {
        h = kv != 0 && kv != heads ? kv : heads;
      }
      if (rc == 0 && (e->role == CONVERT_ROLE_Q || e->role == CONVERT_ROLE_K) && permute &&
          h == 0) {
        rc = tool_fail(err, CLI_EXIT_DATA,
                       "%s: %s.attention.head_count is missing: the rows of '%s' cannot be "
                       "moved back",
                       m->files[0].name, convert_arch_get(arch)->name, t->name);
      }
      ckpt_span *spans = NULL;
      size_t count = 0;
      rc = rc == 0 ? ckpt_convert_row_spans(t, h, 1, &spans, &count, err) : rc;
      if (rc != 0) {
        return rc;
      }
      rc = ckpt_out_file_add(all, &o, spans, count);
      free(spans);
      if (rc != 0) {
        return tool_oom(err, "planning the conversion");
      }
    }
  }
  return 0;
}

int ckpt_convert_to_hf(ckpt_command *c, const char *path) {
  tool_error err = {0};
  ckpt_model *m = NULL;
  ckpt_plan plan;
  memset(&plan, 0, sizeof plan);
  ckpt_out_file all;
  memset(&all, 0, sizeof all);
  st_model empty;
  memset(&empty, 0, sizeof empty);
  ckpt_format format = st_driver.write.format(&empty.ckpt);
  char *config = NULL, *generation = NULL;
  convert_arch arch = CONVERT_ARCH_LLAMA;
  int tied = 1;
  int64_t vocab_rows = 0;
  if (c->args.max_tensors != 0) {
    return cli_error(CLI_EXIT_USAGE,
                     "--max-tensors is GGUF's: '%s' is converted into a Hugging "
                     "Face folder (--max-shard-size shards it)",
                     path);
  }
  int rc = gguf_driver.read.load(path, NULL, &m, &err);
  rc = rc == 0 ? find_arch(m, &arch, &err) : rc;
  int outtype = c->args.convert_outtype;
  if (rc == 0 && outtype == 0) {
    outtype = auto_outtype(m);
  }
  const ckpt_dtype *to = st_driver.write.dtype(outtypes[outtype].lib);
  rc = rc == 0 ? list_tensors(m, arch, to, &all, &tied, &vocab_rows, &err) : rc;
  rc = rc == 0 ? ckpt_plan_by_size(&plan, &all, c->args.max_shard_size, "model", format.suffix,
                                   ".index.json", &err)
               : rc;
  for (size_t i = 0; i < plan.file_count && rc == 0; i++) {
    rc = format.layout(format.ctx, &plan.files[i], &err);
  }
  if (rc == 0 && plan.index_name != NULL) {
    rc = format.index(format.ctx, &plan, &err);
  }
  if (rc == 0) {
    convert_hf_config_input in = {.arch = arch,
                                  .meta = m->files[0].meta,
                                  .meta_count = m->files[0].meta_count,
                                  .path = m->files[0].path,
                                  .torch_dtype = outtypes[outtype].torch,
                                  .tied = tied,
                                  .vocab_rows = vocab_rows};
    rc = convert_hf_config_build(&in, &config, &generation, &err);
  }
  /* config.json and generation_config.json are outputs like the weights: staged, committed
   * with them all or nothing, and in the manifest. */
  rc = rc == 0 ? ckpt_plan_add_made(&plan, "config.json", config, &err) : rc;
  rc = rc == 0 && generation != NULL
           ? ckpt_plan_add_made(&plan, "generation_config.json", generation, &err)
           : rc;
  if (rc != 0) {
    rc = ckpt_command_report(&err);
  }
  if (rc == 0) {
    ckpt_run_options *run = &c->args.run;
    run->no_sidecar = 1;
    run->stale_suffixes = NULL;
    rc = ckpt_run_plan(&plan, m, run, c->name);
  }
  free(config);
  free(generation);
  ckpt_out_file_free(&all);
  ckpt_plan_free(&plan);
  if (m != NULL) {
    gguf_driver.read.free_model(m);
  }
  return rc;
}
