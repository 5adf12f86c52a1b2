/* The safetensors format as a checkpoint driver (st_driver.h, ckpt_driver.h). */
#include "st_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_ranks.h"
#include "st_dtype.h"
#include "st_model.h"
#include "st_read.h"
#include "st_write.h"

/* A safetensors checkpoint's files; also those of an earlier run in a folder of outputs that this
 * one did not replace are named after the commit, as a loader of the folder would read them with
 * the new ones. */
static const char *const st_names[] = {".safetensors", ".safetensors.index.json", NULL};

/* A folder holding a .safetensors file or index; a file so named, or whose first bytes are a
 * little-endian header size and then a JSON object (a safetensors file has no magic). */
static int probe(const char *path) {
  int folder = ckpt_folder_holds(path, st_names);
  if (folder >= 0) {
    return folder;
  }
  size_t n = strlen(path);
  for (size_t i = 0; st_names[i] != NULL; i++) {
    size_t k = strlen(st_names[i]);
    if (n >= k && strcmp(path + n - k, st_names[i]) == 0) {
      return 1;
    }
  }
  unsigned char head[16];
  size_t got = ckpt_file_head(path, head, sizeof head);
  /* The reference reader allows whitespace before the header's '{'. */
  for (size_t i = 8; i < got; i++) {
    if (head[i] == '{') {
      return 1;
    }
    if (head[i] != ' ' && head[i] != '\t' && head[i] != '\n' && head[i] != '\r') {
      return 0;
    }
  }
  return 0;
}

static int load(const char *path, ckpt_load_options *o, ckpt_model **out, tool_error *err) {
  st_model *m = calloc(1, sizeof *m);
  *out = m != NULL ? &m->ckpt : NULL;
  if (m == NULL) {
    return tool_oom(err, "loading the model");
  }
  st_leniency lenient = {o != NULL && o->strict, 0, 0};
  int rc = st_model_load_with(path, &lenient, m, err);
  if (o != NULL) {
    o->accepted = lenient.accepted;
  }
  return rc;
}

static int read_rank(void *ctx, size_t r, const char *path, ckpt_file *out, tool_error *err) {
  (void)ctx;
  (void)r;
  return st_read_file(path, out, err);
}

static int load_ranks(char *const *paths, size_t count, ckpt_model **out, tool_error *err) {
  st_model *m = calloc(1, sizeof *m);
  *out = m != NULL ? &m->ckpt : NULL;
  if (m == NULL) {
    return tool_oom(err, "loading the ranks");
  }
  ckpt_rank_source source = {".safetensors", "st shard", read_rank, NULL};
  int rc = ckpt_ranks_load(paths, count, &source, &m->ckpt, err);
  /* A folder of ranks has sidecars (the files shard copied beside the ranks); ranks named one
   * by one have none. */
  if (rc == 0 && m->ckpt.dir[0] != '\0') {
    static const char *const skip[] = {".safetensors", ".safetensors.index.json"};
    rc = ckpt_model_list_sidecars(&m->ckpt, skip, 2, err);
  }
  return rc;
}

static void free_model(ckpt_model *m) {
  if (m != NULL) {
    st_model_free((st_model *)m);
    free(m);
  }
}

/* An output must pass `check --strict`: cleave writes its files canonical. */
static int read_header(const char *path, ckpt_file *out, tool_error *err) {
  st_leniency strict = {1, 0, 0};
  return st_read_file_with(path, &strict, out, err);
}

static void check_text(const ckpt_model *m, const char *path, const char *common, size_t accepted) {
  (void)m;
  printf("%s: ok: %s", path, common);
  if (accepted > 0) {
    printf("; %zu %s from the canonical form accepted (the warnings above; --strict refuses "
           "them)",
           accepted, tool_plural(accepted, "departure", "departures"));
  }
  putchar('\n');
}

static void check_json(const ckpt_model *m, json_out *j, size_t accepted) {
  (void)m;
  json_out_uint(j, "warnings", accepted);
}

static ckpt_format writer(const ckpt_model *m) {
  return st_format((const st_model *)m);
}

static const char *base_name(const ckpt_model *m) {
  (void)m;
  return "model";
}

static int is_set(const ckpt_model *m) {
  (void)m;
  return 0;
}

/* The table's type of library type `lib` (the --outtype types are all there). */
static const ckpt_dtype *dtype_of(cleave_dtype lib) {
  for (unsigned i = 0; i < st_dtype_count(); i++) {
    const ckpt_dtype *d = st_dtype_at(i);
    if (d->movable && d->lib == lib) {
      return d;
    }
  }
  return NULL;
}

/* What the commands' help says of safetensors models. */
#define SCALES                                                                                     \
  "A weight X stored with a block scale X_scale_inv (FP8 block quantization as DeepSeek-V3\n"      \
  "and Qwen3 store it: X_scale_inv is [..., ceil(OUT/B0), ceil(IN/B1)]) is cut with its\n"         \
  "scale: the scale follows its weight's rule, cut in blocks, its parts named after the\n"         \
  "weight's parts with _scale_inv appended. Cutting such a weight needs the block size (from\n"    \
  "--quant-block or config.json's quantization_config); a cut inside a block, a scale\n"           \
  "whose shape does not fit its weight's blocks, and a rule that takes a scale otherwise\n"        \
  "than its weight are errors (status 65).\n"                                                      \
  "\n"                                                                                             \
  "Beside the outputs, OUTDIR receives the model folder's other files (config.json, tokenizer\n"   \
  "files...), copied unchanged, and cleave-manifest.json (each output file and tensor with its\n"  \
  "size, XXH3-64 checksum and the input byte ranges it came from; 'cleave st verify OUTDIR'\n"     \
  "checks them), all renamed into place with the outputs or not at all.\n"

static const ckpt_driver_help help = {
    .family =
        "Checkpoint surgery on safetensors files. MODEL is a .safetensors file, a\n"
        "*.safetensors.index.json with its shards, or a folder holding either; RANK... the files\n"
        "of a tensor-parallel checkpoint in rank order, or one folder of rank<R>.safetensors.\n"
        "Every header is read and checked first (no data is read by ls, check or --dry-run); the\n"
        "writing commands write each output file in one pass, in memory that does not grow with "
        "the\n"
        "model, to temporary files in OUTDIR renamed into place only when all are complete (the\n"
        "index last). Outputs are laid out like the reference writer's (tensors by dtype, then\n"
        "name; header padded with spaces).\n"
        "\n"
        "cleave is stricter than the reference reader: duplicate keys, non-integer numbers, holes\n"
        "and trailing bytes are errors. What the reference reader accepts and leaves the data\n"
        "intact (whitespace before the header, NUL or newline padding, unknown fields of a "
        "tensor,\n"
        "a wrong total_size in an index) is accepted with a warning naming the file and the byte;\n"
        "'st check --strict' refuses it.\n",
    .check.usage = "       cleave {cmd} MODEL --strict [--json] [-q]",
    .check.notes =
        "For an index: each listed tensor is in its shard, none is in two shards, none is\n"
        "unlisted, and metadata.total_size is the sum of the tensors' bytes. What other "
        "readers\n"
        "accept and leaves the data intact (whitespace before the header, NUL or newline "
        "padding,\n"
        "unknown fields of a tensor, a wrong total_size) is a warning on stderr, as for every "
        "st\n"
        "command; --strict makes it an error.\n",
    .split.usage = "       cleave {cmd} MODEL -o OUTDIR --preset NAME|auto [--qkv-layout LAYOUT] "
                   "[RULE...]",
    .split.notes =
        "Experts: '{e}' in the one --into name unstacks (one tensor per index of AXIS, the "
        "axis\n"
        "removed, '{e}' replaced by the index); '{e}' in the GLOB, matching an expert's "
        "number (0,\n"
        "1, ... without a leading zero), stacks the experts 0..E-1 of each name along a new "
        "axis\n"
        "AXIS (in [-r-1, r], as numpy.stack) into the one --into name. Neither takes -n, -l "
        "or\n"
        "--view; a missing expert and experts of different dtypes or shapes are errors (65).\n"
        "  --tensor '*.experts.{e}.w1.weight' -a 0 --into '*.experts.w1.weight'   (stack)\n"
        "  --tensor '*.experts.w1.weight' -a 0 --into '*.experts.{e}.w1.weight'   (unstack)\n"
        "\n" SCALES "\n"
        "Example (Phi-3 to Llama layout, 32 heads of 96, hidden size 3072):\n"
        "  cleave st split phi3-mini/ -o phi3-llama/ \\\n"
        "    --tensor '*.qkv_proj.weight' -a 0 -n 3 \\\n"
        "    --into '*.q_proj.weight,*.k_proj.weight,*.v_proj.weight'\n",
    .shard.usage = "       cleave {cmd} MODEL -o OUTDIR -n RANKS --preset NAME|auto "
                   "[--replicate-kv]\n"
                   "           [--qkv-layout concat|interleaved] [RULE...] [OPTIONS]",
    .shard.notes =
        SCALES "\n"
               "Example (Megatron-style tensor parallelism over 4 ranks):\n"
               "  cleave st shard llama/ -o tp4/ -n 4 \\\n"
               "    --axis '*.q_proj.weight=0' --axis '*.k_proj.weight=0' --axis "
               "'*.v_proj.weight=0' \\\n"
               "    --axis '*.o_proj.weight=1' --axis '*.gate_proj.weight=0' \\\n"
               "    --axis '*.up_proj.weight=0' --axis '*.down_proj.weight=1' --unmatched "
               "replicate\n"
               "The same with the Llama preset, heads kept whole (docs/presets.md):\n"
               "  cleave st shard llama/ -o tp4/ -n 4 --preset auto\n",
    .merge.usage = "       cleave {cmd} RANK... -o OUTDIR --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
                   "           [--replicate GLOB] [--unmatched replicate|error]\n"
                   "           [--max-shard-size SIZE] [OPTIONS]\n"
                   "       cleave {cmd} RANK... -o OUTDIR --preset NAME|auto [--replicate-kv]\n"
                   "           [--qkv-layout concat|interleaved] [RULE...] [OPTIONS]",
    .merge.notes = SCALES "\n"
                          "Example (the inverse of the st shard example):\n"
                          "  cleave st merge tp4/ -o llama/ --axis '*.q_proj.weight=0' \\\n"
                          "    --axis '*.k_proj.weight=0' --axis '*.v_proj.weight=0' --axis "
                          "'*.o_proj.weight=1' \\\n"
                          "    --axis '*.gate_proj.weight=0' --axis '*.up_proj.weight=0' \\\n"
                          "    --axis '*.down_proj.weight=1' --max-shard-size 5GB\n",
    .reshard.usage = "       cleave {cmd} RANK... -o OUTDIR -n RANKS --preset NAME|auto "
                     "[--replicate-kv]\n"
                     "           [--qkv-layout concat|interleaved] [RULE...] [OPTIONS]",
    .reshard.notes = SCALES "\n"
                            "Example (tensor parallelism over 4 ranks to 2):\n"
                            "  cleave st reshard tp4/ -o tp2/ -n 2 --axis '*.q_proj.weight=0' \\\n"
                            "    --axis '*.k_proj.weight=0' --axis '*.v_proj.weight=0' --axis "
                            "'*.o_proj.weight=1' \\\n"
                            "    --axis '*.gate_proj.weight=0' --axis '*.up_proj.weight=0' \\\n"
                            "    --axis '*.down_proj.weight=1'\n",
};

const ckpt_driver st_driver = {
    .name = "safetensors",
    .word = "st",
    .tag = CKPT_FORMAT_ST,
    .suffix = ".safetensors",
    .model_noun = "a .safetensors file, an index or a folder",
    .stale_suffixes = st_names,
    .traits = CKPT_SIZED_BY_PLANNER | CKPT_SPLITS_EXPERTS | CKPT_HF_CONFIG,
    .text_kind = CKPT_META_TEXT,
    .help = &help,
    .read = {probe, load, NULL, load_ranks, free_model, read_header, NULL},
    .report = {check_text, check_json, NULL},
    .write = {writer, NULL, NULL, base_name, is_set, dtype_of},
};
