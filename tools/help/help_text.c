/* The help texts of the `st` commands (every other command prints its help from its table of
 * options). Every option is explained here and in docs/cleave.1. */
#include <string.h>

#include "help.h"

static const char st_help[] =
    "usage: cleave st ls MODEL [--glob PAT] [--json] [-q]\n"
    "       cleave st check MODEL [--strict] [--json] [-q]\n"
    "       cleave st split MODEL -o OUTDIR RULE... [--rules FILE] [--max-shard-size SIZE]\n"
    "                       [--dry-run] [-f] [--sync]\n"
    "       cleave st shard MODEL -o OUTDIR -n RANKS --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
    "                       [--replicate GLOB] [--unmatched replicate|error] [--dry-run] [-f]\n"
    "       cleave st merge RANK... -o OUTDIR --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
    "                       [--replicate GLOB] [--max-shard-size SIZE] [--dry-run] [-f]\n"
    "       cleave st reshard RANK... -o OUTDIR -n RANKS --axis GLOB=AXIS...\n"
    "                       [--view GLOB=SHAPE] [--replicate GLOB] [--dry-run] [-f]\n"
    "       cleave st verify OUTDIR [--against MODEL...] [--json] [-q]\n"
    "\n"
    "Checkpoint surgery on safetensors files. MODEL is a .safetensors file, a\n"
    "*.safetensors.index.json with its shards, or a folder holding either; RANK... the files\n"
    "of a tensor-parallel checkpoint in rank order, or one folder of rank<R>.safetensors.\n"
    "Every header is read and checked first (no data is read by ls, check or --dry-run); the\n"
    "writing commands write each output file in one pass, in memory that does not grow with the\n"
    "model, to temporary files in OUTDIR renamed into place only when all are complete (the\n"
    "index last). Outputs are laid out like the reference writer's (tensors by dtype, then\n"
    "name; header padded with spaces).\n"
    "\n"
    "Run 'cleave st SUBCOMMAND --help' for each subcommand; the format rules cleave enforces are\n"
    "in 'man cleave' (stricter than the reference reader: duplicate keys, non-integer numbers,\n"
    "holes and trailing bytes are errors). What the reference reader accepts and leaves the data\n"
    "intact (whitespace before the header, NUL or newline padding, unknown fields of a tensor, a\n"
    "wrong total_size in an index) is accepted with a warning naming the file and the byte;\n"
    "'st check --strict' refuses it.\n"
    "\n"
    "Exit status: 0 success; 64 malformed command line; 65 a file breaks a format rule, the index\n"
    "does not match its shards, or a rule cannot apply; 66 MODEL cannot be opened; 73 an output\n"
    "exists or cannot be created; 74 a read or write failed.\n";

static const char st_ls_help[] =
    "usage: cleave st ls MODEL [--glob PAT] [--json] [-q]\n"
    "\n"
    "Lists every tensor from the headers alone, sorted by name, one per line:\n"
    "NAME<TAB>DTYPE<TAB>[SHAPE]<TAB>BYTES<TAB>FILE (control characters of a name are shown as\n"
    "\\xNN, a backslash as two). The model is fully checked first.\n"
    "\n"
    "  --glob PAT   only tensors matching PAT ('*' any run of characters, '?' one, any other\n"
    "               character itself); no match is an error (status 65)\n"
    "  --json       print {\"tensors\": [{\"name\", \"dtype\", \"shape\", \"bytes\", \"file\"}]}\n"
    "  -q, --quiet  print nothing (the status says whether the model is valid)\n"
    "  -h, --help   print this help\n";

static const char st_check_help[] =
    "usage: cleave st check MODEL [--strict] [--json] [-q]\n"
    "\n"
    "Checks every format rule of every file and, for an index, that each listed tensor is in its\n"
    "shard, none is in two shards, none is unlisted, and metadata.total_size is the sum of the\n"
    "tensors' bytes. Exit 0 (valid) or 65 with the file, byte offset and tensor; 66 when MODEL\n"
    "cannot be opened. Reads headers only. What other readers accept and leaves the data intact\n"
    "(whitespace before the header, NUL or newline padding, unknown fields of a tensor, a wrong\n"
    "total_size) is a warning on stderr, as for every st command.\n"
    "\n"
    "  --strict     make those warnings errors (status 65, the same message)\n"
    "  --json       print {\"ok\": true, \"files\": N, \"tensors\": N, \"bytes\": N, "
    "\"warnings\":\n"
    "               N} (an error goes to stderr as text, as for every command)\n"
    "  -q, --quiet  print nothing on success\n"
    "  -h, --help   print this help\n";

static const char st_verify_help[] =
    "usage: cleave st verify OUTDIR [--against MODEL...] [--json] [-q]\n"
    "\n"
    "Re-reads what a writing command (st or gguf split, shard, merge, reshard) wrote into OUTDIR\n"
    "against OUTDIR/cleave-manifest.json: every file it lists is present with its size and\n"
    "XXH3-64 checksums (the whole file, each tensor), no other file is there (hidden files\n"
    "aside), each .safetensors file passes 'st check --strict' and its header says what the\n"
    "manifest says. With --against, each tensor is also compared byte for byte with the input\n"
    "bytes the manifest says it was copied from; the inputs are found by file name among the\n"
    "MODEL files and folders given.\n"
    "\n"
    "Each difference is a line on stdout naming the file, the tensor and, where known, the\n"
    "first differing byte (in the file and in the tensor; a checksum tells only which tensor\n"
    "differs, --against tells the byte). Exit 0 (no difference), 1 (differences), 65 (the\n"
    "manifest is malformed, or does not match an output whose checksum it matches: the place\n"
    "is named), 66 (no manifest, or an input of --against missing).\n"
    "\n"
    "  --against MODEL...  the inputs of the run (files, or folders holding them)\n"
    "  --json              print {\"command\", \"outdir\", \"ok\", \"files\", \"tensors\",\n"
    "                      \"bytes\", \"against\", \"differences\": [{\"file\", \"tensor\",\n"
    "                      \"file_offset\", \"tensor_offset\", \"problem\"}]}\n"
    "  -q, --quiet         print only the differences\n"
    "  -h, --help          print this help\n";

static const char st_write_options[] =
    "\n"
    "  -o, --output OUTDIR  the output folder (created if missing, its parent must exist;\n"
    "                       removed again on failure)\n"
    "      --dry-run        print the plan (every output file and tensor, its size and source)\n"
    "                       from the headers alone; write nothing\n"
    "  -f, --force          replace existing outputs, inputs included (an input is replaced by\n"
    "                       a rename, never written in place; without -f: status 73)\n"
    "      --sync           fsync the outputs and OUTDIR before finishing\n"
    "      --json           print {\"command\", \"dry_run\", \"outputs\": [{\"path\", "
    "\"tensors\",\n"
    "                       \"bytes\"}]} (with --dry-run each output also has its \"plan\")\n"
    "  -q, --quiet          print nothing on success\n"
    "      --no-progress    no progress line on stderr (shown only on a terminal)\n"
    "      --no-sidecar     do not copy the model folder's other files (config.json,\n"
    "                       tokenizer files...) into OUTDIR\n"
    "      --quant-block B0,B1  the block size of the model's FP8 block scales: B0 rows and\n"
    "                       B1 columns of a weight per scale (e.g. 128,128); default: the\n"
    "                       weight_block_size in config.json (in the MODEL folder, or beside\n"
    "                       the MODEL file or the first RANK)\n"
    "  -h, --help           print this help\n"
    "\n"
    "A weight X stored with a block scale X_scale_inv (FP8 block quantization as DeepSeek-V3\n"
    "and Qwen3 store it: X_scale_inv is [..., ceil(OUT/B0), ceil(IN/B1)]) is cut with its\n"
    "scale: the scale follows its weight's rule, cut in blocks, its parts named after the\n"
    "weight's parts with _scale_inv appended. Cutting such a weight needs the block size (from\n"
    "--quant-block or config.json's quantization_config); a cut inside a block, a scale\n"
    "whose shape does not fit its weight's blocks, and a rule that takes a scale otherwise\n"
    "than its weight are errors (status 65).\n"
    "\n"
    "Beside the outputs, OUTDIR receives the model folder's other files, copied unchanged, and\n"
    "cleave-manifest.json (each output file and tensor with its size, XXH3-64 checksum and the\n"
    "input byte ranges it came from; 'cleave st verify OUTDIR' checks them), all renamed into\n"
    "place with the outputs or not at all.\n"
    "\n"
    "CLEAVE_CHUNK_BYTES (default 1048576) sets the size of the two copy buffers. With two\n"
    "CPUs or more the outputs are written by a second thread while the first reads, gathers\n"
    "and checksums; CLEAVE_WRITE_THREAD=0 keeps all the work on one.\n";

static const char st_split_help[] =
    "usage: cleave st split MODEL -o OUTDIR --tensor GLOB [--view SHAPE] -a AXIS\n"
    "                       (-n N | -l LENGTHS) --into NAME,NAME,... [RULE...] [--rules FILE]\n"
    "       cleave st split MODEL -o OUTDIR --preset NAME|auto [--qkv-layout LAYOUT] [RULE...]\n"
    "\n"
    "Replaces every tensor matching a rule's GLOB by its parts under the new names; every other\n"
    "tensor is copied unchanged, metadata kept. The outputs have the input's file names (and\n"
    "index, with the new weight_map and total_size); each part stays in its tensor's shard.\n"
    "\n"
    "  --tensor GLOB     starts a rule. '*' matches any run of characters and captures it; '?'\n"
    "                    matches one character; every other character, '[' included, matches\n"
    "                    itself\n"
    "  --view SHAPE      reshape the tensor (e.g. 8,18,-1; one -1 allowed) before the split;\n"
    "                    each part is then folded back to the tensor's trailing dimensions\n"
    "                    [elements/(d1*...*dn), d1, ..., dn] when they divide it\n"
    "  -a, --axis AXIS   the axis to split (negative counts from the end)\n"
    "  -n, --num-splits N  N equal parts (Split-1: an uneven split is an error)\n"
    "  -l, --lengths L   parts of these lengths (VariadicSplit-1: one may be -1)\n"
    "  --into NAMES      the parts' names; each '*' takes what the GLOB's '*' captured\n"
    "  --preset NAME|auto  the split rules of an architecture whose tensors are fused (phi3:\n"
    "                    qkv_proj into q_proj, k_proj, v_proj by the heads of config.json,\n"
    "                    gate_up_proj into gate_proj, up_proj; auto: config.json's model_type),\n"
    "                    added to the rules given\n"
    "  --qkv-layout concat|interleaved  the rows of the fused QKV: [q; k; v] (default), or\n"
    "                    Megatron's per KV group: its q heads, its k, its v\n"
    "  --rules FILE      more rules, one per line, written as on the command line: quotes\n"
    "                    and backslashes work as in the shell, '#' starts a comment\n"
    "  --max-shard-size SIZE  lay the outputs out as Hugging Face's writer shards a model:\n"
    "                    model-00001-of-0000N.safetensors of at most SIZE bytes of tensors\n"
    "                    each (a larger tensor gets a file of its own) and\n"
    "                    model.safetensors.index.json, or one model.safetensors when all fit;\n"
    "                    SIZE as for st merge. Without it each part stays in its tensor's file\n"
    "\n"
    "Experts: '{e}' in the one --into name unstacks (one tensor per index of AXIS, the axis\n"
    "removed, '{e}' replaced by the index); '{e}' in the GLOB, matching an expert's number (0,\n"
    "1, ... without a leading zero), stacks the experts 0..E-1 of each name along a new axis\n"
    "AXIS (in [-r-1, r], as numpy.stack) into the one --into name. Neither takes -n, -l or\n"
    "--view; a missing expert and experts of different dtypes or shapes are errors (65).\n"
    "  --tensor '*.experts.{e}.w1.weight' -a 0 --into '*.experts.w1.weight'   (stack)\n"
    "  --tensor '*.experts.w1.weight' -a 0 --into '*.experts.{e}.w1.weight'   (unstack)\n"
    "\n"
    "Rules given on the command line are numbered from 1 in messages (\"rule 2\"), those of a\n"
    "file by FILE:LINE. A rule that matches nothing, a tensor two rules match, two outputs with\n"
    "one name, and a part named like an untouched tensor are errors (status 65). Parts of\n"
    "sub-byte tensors (F4, F6_*) must start and end on byte boundaries.\n"
    "\n"
    "Example (Phi-3 to Llama layout, 32 heads of 96, hidden size 3072):\n"
    "  cleave st split phi3-mini/ -o phi3-llama/ \\\n"
    "    --tensor '*.qkv_proj.weight' -a 0 -n 3 \\\n"
    "    --into '*.q_proj.weight,*.k_proj.weight,*.v_proj.weight'\n";

/* The options of the rank commands' rules that shard, merge and reshard share (--unmatched and
 * the preset's), one text for the three helps. */
#define ST_PRESET_OPTIONS                                                                          \
  "  --unmatched replicate|error  what happens to a tensor no --axis or --replicate rule\n"        \
  "                           matches (default: replicate)\n"                                      \
  "  --preset NAME|auto       the rules of an architecture (llama, mistral, qwen2, qwen3,\n"       \
  "                           mixtral, qwen2_moe, qwen3_moe, phi3; auto: config.json's\n"          \
  "                           model_type), after the command line's;\n"                            \
  "                           config.json (beside MODEL, or of the ranks' folder) gives the\n"     \
  "                           heads, and a cut inside an attention or KV head is an error\n"       \
  "  --replicate-kv           with --preset, when the KV heads are fewer than the ranks (and\n"    \
  "                           the ranks a multiple of them), rank r takes KV head\n"               \
  "                           r * kv_heads / ranks whole (merge: each head once, its copies\n"     \
  "                           compared)\n"                                                         \
  "  --qkv-layout concat|interleaved  the rows of a fused QKV (phi3): [q; k; v] (default),\n"      \
  "                           or Megatron's per KV group: its q heads, its k, its v; each\n"       \
  "                           rank takes [its q; its k; its v], or its whole groups\n"

static const char st_shard_help[] =
    "usage: cleave st shard MODEL -o OUTDIR -n RANKS --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
    "                       [--replicate GLOB] [--unmatched replicate|error]\n"
    "       cleave st shard MODEL -o OUTDIR -n RANKS --preset NAME|auto [--replicate-kv]\n"
    "                       [--qkv-layout concat|interleaved] [RULE...]\n"
    "\n"
    "Writes one checkpoint per tensor-parallel rank, OUTDIR/rank<R>.safetensors (R from 0):\n"
    "every tensor matching an --axis rule is split into RANKS equal parts along AXIS (Split-1:\n"
    "uneven is an error) and rank R gets part R under the same name; other tensors are copied\n"
    "whole to every rank. Metadata is kept (the union of the shards'; a key with two values is\n"
    "an error). The input is read once for all ranks.\n"
    "\n"
    "  -n RANKS                 the number of ranks (1 to 4096)\n"
    "  --axis GLOB=AXIS         split the tensors matching GLOB along AXIS (the first matching\n"
    "                           --axis rule applies)\n"
    "  --view GLOB=SHAPE        reshape matching tensors before their split (as in st split)\n"
    "  --replicate GLOB         copy matching tensors whole to every rank\n" ST_PRESET_OPTIONS "\n"
    "A rule that matches no tensor is an error (status 65), named by its option and its number\n"
    "among them, from 1 (\"--axis rule 2\"). Globs are those of st split: '*' and '?' are the\n"
    "only special characters.\n"
    "\n"
    "Example (Megatron-style tensor parallelism over 4 ranks):\n"
    "  cleave st shard llama/ -o tp4/ -n 4 \\\n"
    "    --axis '*.q_proj.weight=0' --axis '*.k_proj.weight=0' --axis '*.v_proj.weight=0' \\\n"
    "    --axis '*.o_proj.weight=1' --axis '*.gate_proj.weight=0' \\\n"
    "    --axis '*.up_proj.weight=0' --axis '*.down_proj.weight=1' --unmatched replicate\n"
    "The same with the Llama preset, heads kept whole (docs/presets.md):\n"
    "  cleave st shard llama/ -o tp4/ -n 4 --preset auto\n";

static const char st_merge_help[] =
    "usage: cleave st merge RANK... -o OUTDIR --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
    "                       [--replicate GLOB] [--unmatched replicate|error]\n"
    "                       [--preset NAME|auto [--replicate-kv] [--qkv-layout LAYOUT]]\n"
    "                       [--max-shard-size SIZE]\n"
    "\n"
    "Joins the ranks of a tensor-parallel checkpoint into one model: the inverse of 'st shard'\n"
    "with the same rules. RANK... is the rank files in rank order, or one folder holding\n"
    "rank0.safetensors to rank<N-1>.safetensors (other files are ignored). Every tensor must be\n"
    "in every rank. One that an --axis rule takes is concatenated from the ranks' parts in rank\n"
    "order along AXIS (Concat-1: the parts' other dimensions must agree); any other must have\n"
    "the same dtype, shape and bytes in every rank (the bytes are compared before anything is\n"
    "written) and is written once. The metadata is the union of the ranks'.\n"
    "\n"
    "  --axis GLOB=AXIS         concatenate the tensors matching GLOB along AXIS (the first\n"
    "                           matching --axis rule applies)\n"
    "  --view GLOB=SHAPE        join the parts as views of SHAPE, the view of the merged tensor\n"
    "                           (as st shard cut it): each part holds its share of AXIS; the\n"
    "                           merged tensor is folded back to the parts' trailing dimensions\n"
    "                           when they divide it\n"
    "  --replicate GLOB         tensors every rank holds whole (compared, written "
    "once)\n" ST_PRESET_OPTIONS
    "  --max-shard-size SIZE    write model-00001-of-0000N.safetensors of at most SIZE bytes\n"
    "                           of tensors each (a larger tensor gets a file of its own) and\n"
    "                           model.safetensors.index.json, as Hugging Face's writer does\n"
    "                           (tensors in natural name order: layers.2 before layers.10).\n"
    "                           SIZE as Hugging Face reads it: 5GB, 1.5GB, 500MiB (KB MB GB\n"
    "                           TB: powers of 1000; KiB MiB GiB TiB: of 1024; no unit: bytes).\n"
    "                           Without it, or when all fit in one, one model.safetensors\n"
    "\n"
    "A tensor missing from a rank, parts that cannot be joined, a tensor no rule joins that\n"
    "differs between the ranks, and a rule that matches no tensor are errors (status 65, naming\n"
    "the tensor and the first rank at fault; nothing is written).\n"
    "\n"
    "Example (the inverse of the st shard example):\n"
    "  cleave st merge tp4/ -o llama/ --axis '*.q_proj.weight=0' --axis '*.k_proj.weight=0'\n"
    "    --axis '*.v_proj.weight=0' --axis '*.o_proj.weight=1' --axis '*.gate_proj.weight=0'\n"
    "    --axis '*.up_proj.weight=0' --axis '*.down_proj.weight=1' --max-shard-size 5GB\n";

static const char st_reshard_help[] =
    "usage: cleave st reshard RANK... -o OUTDIR -n RANKS --axis GLOB=AXIS...\n"
    "                         [--view GLOB=SHAPE] [--replicate GLOB]\n"
    "                         [--unmatched replicate|error]\n"
    "                         [--preset NAME|auto [--replicate-kv] [--qkv-layout LAYOUT]]\n"
    "\n"
    "Changes the number of ranks of a tensor-parallel checkpoint from N (RANK... as for st\n"
    "merge) to RANKS, for any N and RANKS: OUTDIR/rank<R>.safetensors are byte for byte what\n"
    "'st merge' then 'st shard -n RANKS' with the same rules write, in one pass that never\n"
    "holds a whole tensor: each output byte range is read from the input ranges that hold it.\n"
    "The rules and their errors are those of st merge (joining the parts) and st shard\n"
    "(cutting them again: uneven is an error).\n"
    "\n"
    "  -n RANKS                 the number of output ranks (1 to 4096)\n"
    "  --axis GLOB=AXIS         the tensors matching GLOB are split along AXIS across the ranks\n"
    "  --view GLOB=SHAPE        ... seen as SHAPE, the view of the whole tensor\n"
    "  --replicate GLOB         tensors every rank holds whole (compared, copied to "
    "each)\n" ST_PRESET_OPTIONS "\n"
    "Example (tensor parallelism over 4 ranks to 2):\n"
    "  cleave st reshard tp4/ -o tp2/ -n 2 --axis '*.q_proj.weight=0'\n"
    "    --axis '*.k_proj.weight=0' --axis '*.v_proj.weight=0' --axis '*.o_proj.weight=1'\n"
    "    --axis '*.gate_proj.weight=0' --axis '*.up_proj.weight=0' --axis '*.down_proj.weight=1'\n";

int help_print(const char *command, FILE *out) {
  if (command == NULL) {
    return -1;
  }
  int gguf_options = 0;
  const char *gguf = help_gguf_text(command, &gguf_options);
  if (gguf != NULL) {
    fputs(gguf, out);
    if (gguf_options) {
      fputs(help_gguf_write_options(), out);
    }
    return 0;
  }
  static const struct {
    const char *name;
    const char *text;
    int file_options;
  } texts[] = {
      {"st", st_help, 0},
      {"st ls", st_ls_help, 0},
      {"st check", st_check_help, 0},
      {"st split", st_split_help, 2},
      {"st shard", st_shard_help, 2},
      {"st merge", st_merge_help, 2},
      {"st reshard", st_reshard_help, 2},
      {"st verify", st_verify_help, 0},
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    if (strcmp(texts[i].name, command) == 0) {
      fputs(texts[i].text, out);
      if (texts[i].file_options == 2) {
        fputs(st_write_options, out);
      }
      return 0;
    }
  }
  return -1;
}
