/* The GGUF format as a checkpoint driver (gguf_driver.h, ckpt_driver.h). */
#include "gguf_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_ranks.h"
#include "ckpt_report.h"
#include "gguf_model.h"
#include "gguf_outputs.h"
#include "gguf_print.h"
#include "gguf_read.h"
#include "gguf_types.h"
#include "gguf_value.h"
#include "gguf_write.h"

/* A file that starts with the magic "GGUF"; a folder holding a .gguf file. */
static int probe(const char *path) {
  static const char *const suffixes[] = {".gguf", NULL};
  int folder = ckpt_folder_holds(path, suffixes);
  unsigned char magic[4];
  return folder >= 0
             ? folder
             : ckpt_file_head(path, magic, sizeof magic) == 4 && memcmp(magic, "GGUF", 4) == 0;
}

/* A new, zeroed model for the loaders below. */
static gguf_model *new_model(ckpt_model **out, tool_error *err) {
  gguf_model *m = calloc(1, sizeof *m);
  *out = m != NULL ? &m->ckpt : NULL;
  if (m == NULL) {
    tool_oom(err, "loading the model");
  }
  return m;
}

static int load(const char *path, ckpt_load_options *o, ckpt_model **out, tool_error *err) {
  /* The reader has no lenient mode (what it accepts is canonical): only any_part applies. */
  gguf_model *m = new_model(out, err);
  static const char *const none[] = {NULL};
  if (m != NULL && ckpt_folder_holds(path, none) >= 0) {
    return tool_fail(err, CLI_EXIT_NOINPUT,
                     "'%s' is a folder: a GGUF model is a .gguf file, or the first file of a "
                     "split set",
                     path);
  }
  return m == NULL ? err->status : gguf_model_load(path, o != NULL && o->any_part, m, err);
}

static int load_parts(char *const *paths, size_t count, ckpt_model **out, tool_error *err) {
  gguf_model *m = new_model(out, err);
  return m == NULL ? err->status : gguf_model_load_parts(paths, count, m, err);
}

/* Reads rank r, growing the model's info array by one first so that gguf_model_free always
 * finds an entry for every file counted, also after a failure. */
static int read_rank(void *ctx, size_t r, const char *path, ckpt_file *out, tool_error *err) {
  gguf_model *m = ctx;
  gguf_info *grown = realloc(m->info, (r + 1) * sizeof *grown);
  if (grown == NULL) {
    return tool_oom(err, "loading the ranks");
  }
  m->info = grown;
  memset(&m->info[r], 0, sizeof m->info[r]);
  int rc = gguf_read_file(path, out, &m->info[r], err);
  gguf_split s;
  if (rc == 0) {
    rc = gguf_split_keys(out, &m->info[r], &s, err);
  }
  if (rc == 0 && s.count > 0) {
    rc = tool_fail(err, CLI_EXIT_DATA,
                   "rank %zu, '%s', is a file of a split set (file %llu of %llu): merge the set "
                   "into one file first (gguf merge PART... -o FILE)",
                   r, path, (unsigned long long)s.no + 1, (unsigned long long)s.count);
  }
  /* A rank whose split.count is 0 is a whole model (gguf-split --merge's output). */
  if (rc == 0 && s.keyed) {
    gguf_strip_split_keys(out, &m->info[r]);
  }
  return rc;
}

static int load_ranks(char *const *paths, size_t count, ckpt_model **out, tool_error *err) {
  gguf_model *m = new_model(out, err);
  if (m == NULL) {
    return err->status;
  }
  m->base = strdup("model");
  if (m->base == NULL) {
    return tool_oom(err, "loading the ranks");
  }
  ckpt_rank_source source = {".gguf", "gguf shard", read_rank, m};
  return ckpt_ranks_load(paths, count, &source, &m->ckpt, err);
}

static void free_model(ckpt_model *m) {
  if (m != NULL) {
    gguf_model_free((gguf_model *)m);
    free(m);
  }
}

static void forget(ckpt_model *m, size_t file, size_t index) {
  gguf_forget_meta((gguf_model *)m, file, index);
}

static int read_header(const char *path, ckpt_file *out, tool_error *err) {
  gguf_info info = {0};
  int rc = gguf_read_file(path, out, &info, err);
  gguf_info_free(&info);
  return rc;
}

static size_t meta_entries(const ckpt_model *m) {
  size_t meta = 0;
  for (size_t i = 0; i < m->file_count; i++) {
    meta += m->files[i].meta_count;
  }
  return meta;
}

static void check_text(const ckpt_model *m, const char *path, const char *common, size_t accepted) {
  (void)accepted;
  size_t meta = meta_entries(m);
  printf("%s: ok: GGUF v%u, %s, %zu metadata %s\n", path,
         (unsigned)((const gguf_model *)m)->info[0].version, common, meta,
         tool_plural(meta, "entry", "entries"));
}

static void check_json(const ckpt_model *m, json_out *j, size_t accepted) {
  (void)accepted;
  const gguf_model *g = (const gguf_model *)m;
  json_out_uint(j, "metadata", meta_entries(m));
  json_out_uint(j, "version", g->info[0].version);
  json_out_uint(j, "alignment", g->info[0].alignment);
}

/* The metadata of every file, in header order. */
static void list_metadata(const ckpt_model *m, json_out *j) {
  const gguf_model *g = (const gguf_model *)m;
  for (size_t f = 0; f < m->file_count; f++) {
    const ckpt_file *file = &m->files[f];
    for (size_t k = 0; k < file->meta_count; k++) {
      const ckpt_meta *e = &file->meta[g->info[f].order[k]];
      char type[64];
      gguf_print_type(e, type, sizeof type);
      if (j != NULL) {
        json_out_object(j, NULL);
        json_out_string(j, "key", e->key);
        json_out_string(j, "type", type);
        gguf_json_value(j, "value", e);
        json_out_string(j, "file", file->name);
        json_out_end_object(j);
      } else {
        ckpt_print_text(e->key);
        printf("\t%s\t", type);
        gguf_print_value(e);
        printf("\t%s\n", file->name);
      }
    }
  }
}

static ckpt_format writer(const ckpt_model *m) {
  return gguf_format((const gguf_model *)m);
}

static int finish(const ckpt_model *m, ckpt_plan *plan, const ckpt_finish_options *o, void **store,
                  tool_error *err) {
  gguf_outputs *outputs = calloc(1, sizeof *outputs);
  *store = outputs;
  if (outputs == NULL) {
    return tool_oom(err, "finishing the plan");
  }
  gguf_output_options out = {o->max_shard_bytes, o->max_tensors, o->set_base, o->mirror_set};
  return gguf_finish_plan((const gguf_model *)m, plan, &out, outputs, err);
}

static void free_store(void *store) {
  if (store != NULL) {
    gguf_outputs_free(store);
    free(store);
  }
}

static const char *base_name(const ckpt_model *m) {
  return ((const gguf_model *)m)->base;
}

static int is_set(const ckpt_model *m) {
  return ((const gguf_model *)m)->is_set;
}

/* ggml's plain type of library type `lib` (F32 0, F16 1, BF16 30, F64 28...). */
static const ckpt_dtype *dtype_of(cleave_dtype lib) {
  for (int64_t code = 0; code <= gguf_type_max(); code++) {
    const ckpt_dtype *d = gguf_type_find(code);
    if (d != NULL && d->movable && d->block_elems == 1 && d->lib == lib) {
      return d;
    }
  }
  return NULL;
}

/* What the commands' help says of GGUF models. */
static const ckpt_driver_help help = {
    .family =
        "Tensor surgery on GGUF files (llama.cpp's format, versions 2 and 3) without "
        "re-quantizing.\n"
        "MODEL is a .gguf file or the first file of a split set (NAME-00001-of-0000N.gguf, as\n"
        "gguf-split writes them; the others are found by name; ls and check take any file of "
        "a set).\n"
        "A file whose split.count is 0 (gguf-split --merge's output) is a whole model. Every "
        "header is\n"
        "read and checked\n"
        "first (no data is read by ls, check or --dry-run); outputs are written in one pass "
        "each, in\n"
        "memory that does not grow with the model, to temporary files renamed into place only "
        "when\n"
        "all are complete, with cleave-manifest.json (each output tensor's checksum and input "
        "byte\n"
        "ranges; 'cleave gguf verify OUTDIR' checks them). An input is never written over.\n"
        "\n"
        "Shapes and axes are in NumPy order: the reverse of GGUF's ne[] (a tensor of ne [4096, "
        "11008]\n"
        "is [11008,4096], and axis -1 is ne[0], the innermost). Quantized tensors (Q4_0 ... "
        "Q8_K,\n"
        "IQ*, TQ*, MXFP4, ...) are opaque blocks of 32 to 256 elements along the innermost axis: "
        "any\n"
        "other axis splits anywhere (byte-exact rows), the innermost only at multiples of the "
        "block\n"
        "size. F32, F16, BF16, F64 and I8 to I64 split anywhere.\n",
    .ls.usage = "       cleave {cmd} MODEL --metadata [--glob PAT] [--json] [-q]",
    .ls.notes =
        "Shapes are in NumPy order (the reverse of ne[]); each tensor's data offset is in the\n"
        "JSON listing. --metadata lists the metadata first, in header order. MODEL may be "
        "any file\n"
        "of a split set, as for check.\n",
    .check.notes =
        "For a split set: each file is where its split.no says, split.count and\n"
        "split.tensors.count agree, and no tensor is in two files. MODEL may be any file of "
        "the set:\n"
        "the whole set is read from its first file, found by gguf-split's name on the same "
        "prefix;\n"
        "when that file cannot be opened, or the name is not gguf-split's, the file is checked "
        "alone\n"
        "after a warning saying why.\n",
    .split.usage = "       cleave {cmd} MODEL -o OUTDIR --max-tensors N [--max-shard-size SIZE] "
                   "[RULE...]",
    .split.notes =
        "Axes are in NumPy order (-1 is ne[0]); a --view keeps the innermost dimension "
        "whole\n"
        "blocks; a part's name is at most 63 bytes. A split set stays a set (its\n"
        "split.tensors.count updated). When the *_exps tensors all hold another number of "
        "experts\n"
        "on axis 0, ARCH.expert_count is updated. --max-shard-size and --max-tensors cut as\n"
        "gguf-split's --split-max-size and --split-max-tensors, and the files are gguf-split's "
        "bytes\n"
        "for a version 3 model of the default alignment (32) without trailing ne of 1.\n"
        "\n"
        "Example (unfuse llama.cpp's fused gate/up experts, [E, 2*FF, D] into two [E, FF, "
        "D]):\n"
        "  cleave gguf split model.gguf -o out/ \\\n"
        "    --tensor 'blk.*.ffn_gate_up_exps.weight' -a 1 -n 2 \\\n"
        "    --into 'blk.*.ffn_gate_exps.weight,blk.*.ffn_up_exps.weight'\n",
    .shard.notes =
        "Each rank has the input's metadata (in order, a split set's split.* keys dropped) "
        "and\n"
        "alignment; when a rank's *_exps tensors hold fewer experts, its ARCH.expert_count "
        "says how\n"
        "many. A quantized tensor's innermost axis is cut only at block boundaries.\n"
        "\n"
        "Example (2 ranks: rows of the projections in, columns of the outputs):\n"
        "  cleave gguf shard model.gguf -o tp2/ -n 2 --axis 'blk.*.attn_q.weight=0' \\\n"
        "    --axis 'blk.*.attn_k.weight=0' --axis 'blk.*.attn_v.weight=0' \\\n"
        "    --axis 'blk.*.attn_output.weight=1' --axis 'blk.*.ffn_up.weight=0' \\\n"
        "    --axis 'blk.*.ffn_gate.weight=0' --axis 'blk.*.ffn_down.weight=1'\n",
    .merge.usage = "       cleave {cmd} PART... -o OUT.gguf [--max-shard-size SIZE] [--max-tensors "
                   "N]\n"
                   "           [OPTIONS]\n"
                   "       cleave {cmd} RANK... -o OUT.gguf --axis GLOB=AXIS... [--view "
                   "GLOB=SHAPE]\n"
                   "           [--replicate GLOB] [--unmatched replicate|error]\n"
                   "           [--max-shard-size SIZE] [OPTIONS]",
    .merge.notes =
        "-o names the output file, OUT.gguf. Without --axis rules the inputs are a split "
        "set\n"
        "(written by gguf-split or by cleave), read back into one file: the tensors of every "
        "part in\n"
        "order, the first part's metadata without split.no, split.count and "
        "split.tensors.count.\n"
        "PART... is every file of the set in any order, or only the first (the others are "
        "found by\n"
        "name). The set is checked first: each file's split.no, the same split.count and\n"
        "split.tensors.count in all, every part present, no tensor twice. With "
        "--max-shard-size or\n"
        "--max-tensors the result is a set of that size instead, OUT-00001-of-0000N.gguf .... "
        "OUT.gguf\n"
        "may not be one\n"
        "of the parts unless -f is given (then it replaces that part by a rename once "
        "complete,\n"
        "never by writing into it). With --axis rules, an expert count the rules changed "
        "becomes the\n"
        "model's again.\n",
    .reshard.notes =
        "A cut off the quantization blocks is 65 naming the tensor and its block size.\n"
        "\n"
        "Example (2 ranks to 4):\n"
        "  cleave gguf reshard tp2/ -o tp4/ -n 4 --axis 'blk.*.ffn_up.weight=0' \\\n"
        "    --axis 'blk.*.ffn_down.weight=1'\n",
};

/* A GGUF folder's files: an earlier run's that this one did not replace (rank2.gguf and rank3.gguf
 * after a shard -n 2 where a shard -n 4 wrote) are named after the commit, as a reader of the
 * folder's ranks or of a set would take them for the new ones'. */
static const char *const gguf_files[] = {".gguf", NULL};

const ckpt_driver gguf_driver = {
    .name = "GGUF",
    .word = "gguf",
    .tag = CKPT_FORMAT_GGUF,
    .suffix = ".gguf",
    .model_noun = "a .gguf file, or the first of a split set",
    .stale_suffixes = gguf_files,
    .traits = CKPT_MERGES_TO_FILE | CKPT_LISTS_OFFSETS,
    .text_kind = GGUF_META_KIND(GGUF_STRING),
    .help = &help,
    .read = {probe, load, load_parts, load_ranks, free_model, read_header, forget},
    .report = {check_text, check_json, list_metadata},
    .write = {writer, finish, free_store, base_name, is_set, dtype_of},
};
