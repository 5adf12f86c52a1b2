/* convert: a Hugging Face model folder (safetensors, config.json) into one GGUF file as
 * llama.cpp's convert_hf_to_gguf.py writes it: the tensors renamed (tools/convert/
 * convert_names.h), Q and K permuted where the converter permutes them (convert_permute.h), each
 * of the type the converter chooses for --outtype, and the converter's metadata
 * (convert_meta.h). The model is read by the safetensors driver and written by the GGUF driver's
 * layout and finish (a split set with --max-shard-size), all-or-nothing as every verb writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_cast.h"
#include "ckpt_commands.h"
#include "ckpt_config.h"
#include "ckpt_manifest.h"
#include "cli_util.h"
#include "convert_arch.h"
#include "convert_meta.h"
#include "convert_names.h"
#include "convert_permute.h"
#ifdef CLEAVE_HAVE_CONVERT_VOCAB
#include "convert_vocab.h"
#endif
#include "gguf_driver.h"
#include "gguf_meta_build.h"
#include "gguf_model.h"
#include "gguf_types.h"
#include "st_driver.h"

/* --outtype's words, in CLI_CHOICE's order (0, the default, is auto as the converter's). The
 * converter's q8_0 waits for the library's Q8_0 quantizer in the writer. */
enum { OUT_AUTO, OUT_F32, OUT_F16, OUT_BF16 };
#define OUTTYPE_WORDS "auto|f32|f16|bf16"

/* ggml's type numbers and llama.cpp's file types (LlamaFileType) of each --outtype. */
static const struct {
  unsigned ggml;
  uint32_t file_type;
} outtypes[] = {
    [OUT_F32] = {0, 0},
    [OUT_F16] = {1, 1},
    [OUT_BF16] = {30, 32},
};

/* One tensor of the output, before it is planned. */
typedef struct convert_item {
  const ckpt_tensor *in;
  char gguf[GGUF_MAX_NAME + 1];
  const convert_name *entry;
  /* Its copy in the target model's file (make_target). */
  const ckpt_tensor *target;
} convert_item;

static int by_name(const void *a, const void *b) {
  const ckpt_tensor *x = *(const ckpt_tensor *const *)a, *y = *(const ckpt_tensor *const *)b;
  if (x->file != y->file) {
    return x->file < y->file ? -1 : 1;
  }
  return strcmp(x->name, y->name);
}

/* The converter leaves these out (ModelBase.prepare_tensors). */
static int skipped(const char *name) {
  static const char *const endings[] = {".attention.masked_bias", ".attention.bias",
                                        ".rotary_emb.inv_freq"};
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof endings / sizeof *endings; i++) {
    size_t k = strlen(endings[i]);
    if (n >= k && strcmp(name + n - k, endings[i]) == 0) {
      return 1;
    }
  }
  return 0;
}

/* --outtype auto as the converter guesses it: the type of the first tensor of two dimensions or
 * more that is BF16 or F16 (in its order: files, then names), else F16. */
static int guess_outtype(convert_item *items, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const ckpt_tensor *t = items[i].in;
    if (t->ndim >= 2 && strcmp(t->dtype->name, "BF16") == 0) {
      return OUT_BF16;
    }
    if (t->ndim >= 2 && strcmp(t->dtype->name, "F16") == 0) {
      return OUT_F16;
    }
  }
  return OUT_F16;
}

/* The type the converter writes tensor `it` as for `outtype` (prepare_tensors): F32 for 1-D
 * tensors, norms and anything but a .weight. */
static const ckpt_dtype *type_of(const convert_item *it, int outtype) {
  const char *name = it->gguf;
  size_t n = strlen(name);
  int ndim = it->in->ndim;
  int is_norm = n >= 12 && strcmp(name + n - 12, "_norm.weight") == 0;
  int is_weight = n >= 7 && strcmp(name + n - 7, ".weight") == 0;
  unsigned code = outtypes[outtype].ggml;
  if (ndim <= 1 || is_norm || !is_weight) {
    code = outtypes[OUT_F32].ggml;
  }
  return gguf_type_find(code);
}

/* The folder's name (general.name, as the converter falls back to it): the last name of its
 * real path. malloc'd, or NULL. */
static char *folder_name(const char *folder) {
  char *real = realpath(folder, NULL);
  if (real == NULL) {
    return NULL;
  }
  const char *slash = strrchr(real, '/');
  char *name = strdup(slash != NULL && slash[1] != '\0' ? slash + 1 : real);
  free(real);
  return name;
}

/* What a run holds, freed by run_free. */
typedef struct convert_run {
  ckpt_model *m;
  convert_item *items;
  size_t item_count;
  ckpt_meta *meta;
  size_t meta_count;
  /* The output model the GGUF layout orders by: the input's files, each with its tensors in the
   * converter's order (by name); file 0 holds the metadata in its order. */
  gguf_model target;
  ckpt_plan plan;
  void *store;
  char *dir, *file, *base, *manifest, *name;
} convert_run;

static void run_free(convert_run *r) {
  ckpt_plan_free(&r->plan);
  if (r->store != NULL) {
    gguf_driver.write.free_store(r->store);
  }
  for (size_t f = 0; f < r->target.ckpt.file_count; f++) {
    free(r->target.ckpt.files[f].tensors);
    if (r->target.info != NULL) {
      free(r->target.info[f].pos);
    }
  }
  free(r->target.ckpt.files);
  free(r->target.info);
  gguf_meta_free_all(r->meta, r->meta_count);
  free(r->items);
  if (r->m != NULL) {
    st_driver.read.free_model(r->m);
  }
  free(r->dir);
  free(r->file);
  free(r->base);
  free(r->manifest);
  free(r->name);
}

static int by_key(const void *a, const void *b) {
  return strcmp(((const ckpt_meta *)a)->key, ((const ckpt_meta *)b)->key);
}

/* The target model: the input's files, tensors in the converter's order (each a copy of its
 * input tensor, so that reports name it), and the metadata sorted by key with its places. */
static int make_target(convert_run *r, tool_error *err) {
  const ckpt_model *m = r->m;
  gguf_model *g = &r->target;
  g->ckpt.files = calloc(m->file_count + 1, sizeof *g->ckpt.files);
  g->info = calloc(m->file_count + 1, sizeof *g->info);
  if (g->ckpt.files == NULL || g->info == NULL) {
    return tool_oom(err, "planning the conversion");
  }
  g->ckpt.file_count = m->file_count;
  for (size_t f = 0; f < m->file_count; f++) {
    g->ckpt.files[f].tensors = calloc(r->item_count + 1, sizeof(ckpt_tensor));
    g->info[f].version = 3;
    g->info[f].alignment = 32;
    if (g->ckpt.files[f].tensors == NULL) {
      return tool_oom(err, "planning the conversion");
    }
  }
  for (size_t i = 0; i < r->item_count; i++) {
    ckpt_file *f = &g->ckpt.files[r->items[i].in->file];
    f->tensors[f->tensor_count] = *r->items[i].in;
    r->items[i].target = &f->tensors[f->tensor_count++];
  }
  /* The metadata sorted by key, each entry's place its position in the converter's order. */
  ckpt_meta *sorted = calloc(r->meta_count + 1, sizeof *sorted);
  size_t *pos = calloc(r->meta_count + 1, sizeof *pos);
  if (sorted == NULL || pos == NULL) {
    free(sorted);
    free(pos);
    return tool_oom(err, "planning the conversion");
  }
  if (r->meta_count > 0) {
    memcpy(sorted, r->meta, r->meta_count * sizeof *sorted);
  }
  qsort(sorted, r->meta_count, sizeof *sorted, by_key);
  for (size_t k = 0; k < r->meta_count; k++) {
    for (size_t i = 0; i < r->meta_count; i++) {
      if (strcmp(r->meta[i].key, sorted[k].key) == 0) {
        pos[k] = i;
        break;
      }
    }
  }
  /* r->meta keeps owning the keys and values; the sorted array only points at them. */
  memcpy(r->meta, sorted, r->meta_count * sizeof *sorted);
  free(sorted);
  g->ckpt.files[0].meta = r->meta;
  g->ckpt.files[0].meta_count = r->meta_count;
  g->ckpt.files[0].has_meta = 1;
  g->info[0].pos = pos;
  return 0;
}

/* The plan: one output file, the converter's tensors in its order with their spans. */
static int make_plan(convert_run *r, int outtype, int64_t heads, int64_t kv_heads, int permute,
                     tool_error *err) {
  int rc = ckpt_plan_files(&r->plan, 1, err);
  ckpt_out_file *out = rc == 0 ? &r->plan.files[0] : NULL;
  if (rc == 0) {
    out->name = strdup(r->file);
    out->meta = r->meta;
    out->meta_count = r->meta_count;
    out->has_meta = 1;
    rc = out->name == NULL ? tool_oom(err, "planning the conversion") : 0;
  }
  for (size_t i = 0; i < r->item_count && rc == 0; i++) {
    const convert_item *it = &r->items[i];
    const ckpt_tensor *in = it->in;
    const ckpt_dtype *dtype = type_of(it, outtype);
    const ckpt_dtype *cast_from = NULL;
    uint64_t bytes = in->bytes;
    if (strcmp(dtype->name, in->dtype->name) != 0) {
      /* The converter reads every tensor as F16 or F32 (others as F32) and writes it as the
       * type: the library's casts do it in one rounding (a BF16 read as F32 is exact). */
      if (!in->dtype->movable || !ckpt_cast_float(in->dtype->lib) || !dtype->movable) {
        rc = tool_fail(err, CLI_EXIT_DATA,
                       "%s: tensor '%s' is %s: cleave converts F32, F16, BF16 and F64 tensors to "
                       "%s, not this type",
                       r->m->files[in->file].name, in->name, in->dtype->name, dtype->name);
        break;
      }
      cast_from = in->dtype;
      bytes = in->bytes / (in->dtype->block_bits / 8) * (dtype->block_bits / 8);
    }
    int64_t h = 0;
    if (permute && it->entry->role == CONVERT_ROLE_Q) {
      h = heads;
    } else if (permute && it->entry->role == CONVERT_ROLE_K) {
      h = kv_heads != 0 && kv_heads != heads ? kv_heads : heads;
    }
    ckpt_span *spans = NULL;
    size_t count = 0;
    rc = ckpt_convert_row_spans(in, h, 0, &spans, &count, err);
    if (rc != 0) {
      tool_prefix(err, "%s: tensor '%s'", r->m->files[in->file].name, in->name);
      break;
    }
    ckpt_out_tensor t = {.name = (char *)it->gguf,
                         .dtype = dtype,
                         .ndim = in->ndim,
                         .shape = in->shape,
                         .bytes = bytes,
                         .source = it->target,
                         .cast_from = cast_from};
    if (ckpt_out_file_add(out, &t, spans, count) != 0) {
      rc = tool_oom(err, "planning the conversion");
    }
    free(spans);
  }
  return rc;
}

/* config.json's architecture, as one the command takes (65 naming it otherwise). */
static int find_arch(const ckpt_config *cfg, const char *path, convert_arch *arch,
                     tool_error *err) {
  const convert_hf_class *cls = convert_hf_class_find(cfg->architecture);
  if (cls != NULL) {
    *arch = cls->arch;
    return 0;
  }
  char list[256] = "";
  unsigned n;
  const convert_hf_class *all = convert_hf_classes(&n);
  for (unsigned i = 0; i < n; i++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i > 0 ? ", " : "", all[i].hf_class);
  }
  if (cfg->architecture[0] == '\0') {
    return tool_fail(err, CLI_EXIT_DATA, "%s: no architectures: cleave convert takes %s", path,
                     list);
  }
  return tool_fail(err, CLI_EXIT_DATA, "%s: architecture '%s' is not one cleave convert takes (%s)",
                   path, cfg->architecture, list);
}

/* The tensors in the converter's order (files in the model's order, names sorted in each),
 * renamed; a tensor without a GGUF name is 65. */
static int list_items(convert_run *r, convert_arch arch, tool_error *err) {
  const ckpt_model *m = r->m;
  size_t total = 0;
  for (size_t f = 0; f < m->file_count; f++) {
    total += m->files[f].tensor_count;
  }
  const ckpt_tensor **all = calloc(total + 1, sizeof *all);
  r->items = calloc(total + 1, sizeof *r->items);
  if (all == NULL || r->items == NULL) {
    free(all);
    return tool_oom(err, "planning the conversion");
  }
  size_t n = 0;
  for (size_t f = 0; f < m->file_count; f++) {
    for (size_t k = 0; k < m->files[f].tensor_count; k++) {
      all[n++] = &m->files[f].tensors[k];
    }
  }
  qsort(all, n, sizeof *all, by_name);
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (skipped(all[i]->name)) {
      continue;
    }
    convert_item *it = &r->items[r->item_count];
    long bid;
    it->in = all[i];
    it->entry = convert_name_to_gguf(arch, all[i]->name, it->gguf, sizeof it->gguf, &bid);
    if (it->entry == NULL) {
      rc = tool_fail(err, CLI_EXIT_DATA, "%s: tensor '%s' has no GGUF name for %s",
                     m->files[all[i]->file].name, all[i]->name, convert_arch_get(arch)->name);
      break;
    }
    r->item_count++;
  }
  free(all);
  return rc;
}

/* -o OUT: its folder, its name, the name without .gguf (a set's base) and the manifest's. */
static int output_file(ckpt_command *c, convert_run *r) {
  const char *output = c->args.run.outdir;
  const char *slash = strrchr(output, '/');
  const char *file = slash != NULL ? slash + 1 : output;
  r->dir = slash == output ? strdup("/")
           : slash != NULL ? strndup(output, (size_t)(slash - output))
                           : strdup(".");
  r->file = strdup(file);
  size_t n = strlen(file);
  r->base = strndup(file, n > 5 && strcmp(file + n - 5, ".gguf") == 0 ? n - 5 : n);
  if (r->dir == NULL || r->file == NULL || r->base == NULL ||
      asprintf(&r->manifest, "%s%s", file, CKPT_MANIFEST_SUFFIX) < 0) {
    r->manifest = NULL;
    return cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  if (file[0] == '\0' || strcmp(file, ".") == 0 || strcmp(file, "..") == 0) {
    return cli_error(CLI_EXIT_USAGE, "-o '%s' does not name a file", output);
  }
  c->args.run.outdir = r->dir;
  c->args.run.manifest_name = r->manifest;
  c->args.run.stale_suffixes = NULL;
  c->args.run.no_sidecar = 1;
  return 0;
}

static int check_command_line(const ckpt_command *c) {
  const cli_args *p = &c->parsed;
  if (p->positional_count > 1) {
    return cli_error(CLI_EXIT_USAGE, "unexpected argument '%s'", p->positional[1]);
  }
  if (p->positional_count == 0) {
    return cli_error(CLI_EXIT_USAGE, "the HF_FOLDER is missing");
  }
  if (c->args.run.outdir == NULL || c->args.run.outdir[0] == '\0') {
    return cli_error(CLI_EXIT_USAGE, "-o OUT.gguf (or -o HF_FOLDER from a GGUF file) is missing");
  }
  return 0;
}

int ckpt_run_convert(ckpt_command *c) {
  convert_run r;
  memset(&r, 0, sizeof r);
  tool_error err = {0};
  int rc = check_command_line(c);
  const char *folder = rc == 0 ? c->parsed.positional[0] : NULL;
  struct stat st;
  if (rc == 0 && stat(folder, &st) == 0 && S_ISREG(st.st_mode) && gguf_driver.read.probe(folder)) {
    return ckpt_convert_to_hf(c, folder); /* the way back: GGUF to a Hugging Face folder */
  }
  if (rc == 0 && (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))) {
    rc = cli_error(CLI_EXIT_NOINPUT, "'%s' is not a folder (a Hugging Face model's)", folder);
  }
  char *config_path = NULL, *generation_path = NULL;
  if (rc == 0 && (asprintf(&config_path, "%s/config.json", folder) < 0 ||
                  asprintf(&generation_path, "%s/generation_config.json", folder) < 0)) {
    rc = cli_error(CLI_EXIT_SOFTWARE, "out of memory");
  }
  rc = rc == 0 ? output_file(c, &r) : rc;
  ckpt_config cfg;
  ckpt_generation gen;
  convert_arch arch = CONVERT_ARCH_LLAMA;
  if (rc == 0) {
    rc = ckpt_config_read(config_path, &cfg, &err);
    rc = rc == 0 ? find_arch(&cfg, config_path, &arch, &err) : rc;
    rc = rc == 0 ? ckpt_generation_read(generation_path, &gen, &err) : rc;
    rc = rc == 0 ? st_driver.read.load(folder, NULL, &r.m, &err) : rc;
    rc = rc == 0 ? list_items(&r, arch, &err) : rc;
    if (rc != 0) {
      ckpt_command_report(&err);
    }
  }
  int outtype = c->args.convert_outtype;
  if (rc == 0 && outtype == OUT_AUTO) {
    outtype = guess_outtype(r.items, r.item_count);
  }
  if (rc == 0) {
    r.name = folder_name(folder);
    convert_meta_input in = {.arch = arch,
                             .config = &cfg,
                             .config_path = config_path,
                             .generation = gen.absent ? NULL : &gen,
                             .name = r.name != NULL ? r.name : "",
                             .file_type = outtypes[outtype].file_type};
    rc = convert_meta_build(&in, &r.meta, &r.meta_count, &err);
#ifdef CLEAVE_HAVE_CONVERT_VOCAB
    /* The vocabulary, after every other key, as the converter writes it last. */
    rc = rc == 0
             ? convert_vocab_add(folder, convert_arch_get(arch)->name, &r.meta, &r.meta_count, &err)
             : rc;
#else
    if (rc == 0) {
      cli_warning("this build has no vocabulary support (protobuf-c): '%s' gets no "
                  "tokenizer.* keys, and llama.cpp will not load it",
                  r.file);
    }
#endif
    rc = rc == 0 ? make_target(&r, &err) : rc;
    rc = rc == 0 ? make_plan(&r, outtype, cfg.heads, cfg.kv_heads,
                             convert_arch_get(arch)->permute_qk, &err)
                 : rc;
    if (rc == 0) {
      r.target.base = r.base;
      ckpt_finish_options finish = {.max_shard_bytes = c->args.max_shard_size,
                                    .set_base = r.base,
                                    .max_tensors = c->args.max_tensors};
      rc = gguf_driver.write.finish(&r.target.ckpt, &r.plan, &finish, &r.store, &err);
    }
    if (rc != 0) {
      ckpt_command_report(&err);
    }
  }
  if (rc == 0) {
    rc = ckpt_run_plan(&r.plan, r.m, &c->args.run, c->name);
  }
  r.target.base = NULL;
  run_free(&r);
  free(config_path);
  free(generation_path);
  return rc;
}

static const cli_opt convert_options[] = {
    CLI_CHOICE(0, "outtype", OUTTYPE_WORDS, ckpt_args, convert_outtype,
               "the type of the weights, as convert_hf_to_gguf.py's --outtype: auto (the "
               "default: BF16 or F16 as the model's first 2-D tensor of either type, else F16), "
               "f32, f16 or bf16 (rounded to nearest even); 1-D tensors, norms and biases are "
               "F32 whatever the type. From GGUF: the type of every tensor written (auto: the "
               "type all 2-D tensors share when it is F16 or BF16, else F32)"),
    CLI_GROUP("Output options"),
    CLI_STRING('o', "output", "OUT.gguf", ckpt_args, run.outdir,
               "the GGUF file to write (its folder must exist); with --max-shard-size the set "
               "OUT-00001-of-0000N.gguf beside it. From GGUF: the Hugging Face folder to write "
               "(created if missing)"),
    CLI_INCLUDE_SAME(ckpt_run_flags),
    CLI_INCLUDE_SAME(ckpt_size_option),
    CLI_END,
};

const cli_spec ckpt_convert_spec = {
    .usage = "cleave {cmd} HF_FOLDER -o OUT.gguf [--outtype auto|f32|f16|bf16]\n"
             "       cleave {cmd} MODEL.gguf -o HF_FOLDER [--outtype auto|f32|f16|bf16]",
    .about = "Converts a Hugging Face model folder (config.json, safetensors) into GGUF as "
             "llama.cpp's\n"
             "convert_hf_to_gguf.py does: its tensor names, the Q and K rows of llama and "
             "mistral\n"
             "permuted, its types and its metadata. Architectures: LlamaForCausalLM,\n"
             "MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM (docs/convert.md).\n"
             "Given a GGUF file (or a split set's first file), the way back: a Hugging Face\n"
             "folder of safetensors (model-0000N-of-0000M with its index under\n"
             "--max-shard-size), every tensor cast or dequantized (ggml's blocks, as gguf-py)\n"
             "to --outtype, the Q and K rows moved back, config.json and generation_config.json\n"
             "from the metadata (no tokenizer files yet).\n",
    .options = convert_options,
    .notes = "An architecture cleave does not convert, a tensor without a GGUF name, a key of "
             "config.json\n"
             "the converter needs that is missing or malformed, and a Q or K tensor whose rows "
             "are not\n"
             "whole heads are errors (status 65), with nothing written. From GGUF, the same for "
             "an\n"
             "architecture, a tensor without a Hugging Face name, and a type cleave does not\n"
             "dequantize (IQ2_XXS, ...).\n"
             "\n" CKPT_WRITE_NOTES,
};
