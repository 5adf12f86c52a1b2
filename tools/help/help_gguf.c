/* The help texts of `cleave gguf` and its subcommands. */
#include <stdio.h>
#include <string.h>

#include "help.h"

static const char gguf_help[] =
    "usage: cleave gguf ls MODEL [--glob PAT] [--metadata] [--json] [-q]\n"
    "       cleave gguf check MODEL [--json] [-q]\n"
    "       cleave gguf split MODEL -o OUTDIR [RULE...] [--rules FILE] [--max-shard-size SIZE]\n"
    "       cleave gguf shard MODEL -o OUTDIR -n RANKS --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
    "                         [--replicate GLOB] [--unmatched replicate|error]\n"
    "       cleave gguf merge PART... -o OUT.gguf [--max-shard-size SIZE]\n"
    "       cleave gguf merge RANK... -o OUT.gguf --axis GLOB=AXIS... [--max-shard-size SIZE]\n"
    "       cleave gguf reshard RANK... -o OUTDIR -n RANKS --axis GLOB=AXIS...\n"
    "       cleave gguf verify OUTDIR [--against MODEL...] [--json] [-q]\n"
    "\n"
    "Tensor surgery on GGUF files (llama.cpp's format, versions 2 and 3) without re-quantizing.\n"
    "MODEL is a .gguf file or the first file of a split set (NAME-00001-of-0000N.gguf, as\n"
    "gguf-split writes them; the others are found by name). Every header is read and checked\n"
    "first (no data is read by ls, check or --dry-run); outputs are written in one pass each, in\n"
    "memory that does not grow with the model, to temporary files renamed into place only when\n"
    "all are complete, with cleave-manifest.json (each output tensor's checksum and input byte\n"
    "ranges; 'cleave gguf verify OUTDIR' checks them). An input is never written over.\n"
    "\n"
    "Shapes and axes are in NumPy order: the reverse of GGUF's ne[] (a tensor of ne [4096, 11008]\n"
    "is [11008,4096], and axis -1 is ne[0], the innermost). Quantized tensors (Q4_0 ... Q8_K,\n"
    "IQ*, TQ*, MXFP4, ...) are opaque blocks of 32 to 256 elements along the innermost axis: any\n"
    "other axis splits anywhere (byte-exact rows), the innermost only at multiples of the block\n"
    "size. F32, F16, BF16, F64 and I8 to I64 split anywhere.\n"
    "\n"
    "Run 'cleave gguf SUBCOMMAND --help' for each subcommand; the format rules cleave enforces\n"
    "are in 'man cleave'.\n"
    "\n"
    "Exit status: 0 success; 64 malformed command line; 65 a file breaks a format rule, a split\n"
    "set does not match, or a rule cannot apply; 66 MODEL cannot be opened; 73 an output exists\n"
    "or cannot be created; 74 a read or write failed.\n";

static const char gguf_ls_help[] =
    "usage: cleave gguf ls MODEL [--glob PAT] [--metadata] [--json] [-q]\n"
    "\n"
    "Lists every tensor from the headers alone, sorted by name, one per line:\n"
    "NAME<TAB>TYPE<TAB>[SHAPE]<TAB>BYTES<TAB>FILE, the shape in NumPy order (the reverse of ne[];\n"
    "control characters of a name shown as \\xNN, a backslash as two). The model is fully\n"
    "checked first.\n"
    "\n"
    "  --glob PAT   only tensors matching PAT ('*' any run of characters, '?' one); no match\n"
    "               is an error (status 65)\n"
    "  --metadata   first list the metadata in header order: KEY<TAB>TYPE<TAB>VALUE<TAB>FILE\n"
    "               (TYPE u8 ... f64, str, arr[TYPE,COUNT]; arrays show 8 elements)\n"
    "  --json       print {\"metadata\": [{\"key\", \"type\", \"value\", \"file\"}] (with\n"
    "               --metadata; floats as strings), \"tensors\": [{\"name\", \"dtype\", "
    "\"shape\",\n"
    "               \"bytes\", \"offset\", \"file\"}]}\n"
    "  -q, --quiet  print nothing (the status says whether the model is valid)\n"
    "  -h, --help   print this help\n";

static const char gguf_check_help[] =
    "usage: cleave gguf check MODEL [--json] [-q]\n"
    "\n"
    "Checks every format rule of every file and, for a split set, that each file is where its\n"
    "split.no says, split.count and split.tensors.count agree, and no tensor is in two files.\n"
    "Exit 0 (valid) or 65 with the file, the byte offset and the field; 66 when MODEL cannot be\n"
    "opened. Reads headers only.\n"
    "\n"
    "  --json       print {\"ok\": true, \"files\", \"tensors\", \"bytes\", \"metadata\", "
    "\"version\",\n"
    "               \"alignment\"} (an error goes to stderr as text, as for every command)\n"
    "  -q, --quiet  print nothing on success\n"
    "  -h, --help   print this help\n";

static const char gguf_write_options[] =
    "\n"
    "  -o, --output OUTDIR  the output folder (created if missing, its parent must exist;\n"
    "                       removed again on failure); for merge, the output file\n"
    "      --dry-run        print the plan (every output file and tensor, its size and source)\n"
    "                       from the headers alone; write nothing\n"
    "  -f, --force          replace existing outputs, inputs included (an input is replaced by\n"
    "                       a rename once the output is complete, never written in place;\n"
    "                       without -f: status 73)\n"
    "      --sync           fsync the outputs and their folder before finishing\n"
    "      --json           print {\"command\", \"dry_run\", \"outputs\": [{\"path\", "
    "\"tensors\",\n"
    "                       \"bytes\"}]} (with --dry-run each output also has its \"plan\")\n"
    "  -q, --quiet          print nothing on success\n"
    "      --no-progress    no progress line on stderr (shown only on a terminal)\n"
    "  -h, --help           print this help\n"
    "\n"
    "CLEAVE_CHUNK_BYTES (default 1048576) sets the size of the two copy buffers. With two\n"
    "CPUs or more the outputs are written by a second thread while the first reads, gathers\n"
    "and checksums; CLEAVE_WRITE_THREAD=0 keeps all the work on one.\n";

static const char gguf_split_help[] =
    "usage: cleave gguf split MODEL -o OUTDIR [--tensor GLOB [--view SHAPE] -a AXIS\n"
    "                         (-n N | -l LENGTHS) --into NAME,NAME,...]... [--rules FILE]\n"
    "                         [--max-shard-size SIZE]\n"
    "\n"
    "Replaces every tensor matching a rule's GLOB by its parts under the new names, in its place;\n"
    "every other tensor is copied unchanged, the metadata kept in order. The outputs have the\n"
    "input's file names (a split set stays a set, its split.tensors.count updated); the parts of "
    "a\n"
    "tensor stay in its file.\n"
    "\n"
    "  --tensor GLOB     starts a rule. '*' matches any run of characters and captures it; '?'\n"
    "                    matches one character; every other character, '[' included, matches\n"
    "                    itself\n"
    "  --view SHAPE      reshape the tensor (NumPy order, e.g. 8,18,-1; one -1 allowed) before\n"
    "                    the split; its innermost dimension must stay whole blocks\n"
    "  -a, --axis AXIS   the axis to split, in NumPy order (negative counts from the end: -1 is\n"
    "                    ne[0])\n"
    "  -n, --num-splits N  N equal parts (Split-1: an uneven split is an error)\n"
    "  -l, --lengths L   parts of these lengths (VariadicSplit-1: one may be -1)\n"
    "  --into NAMES      the parts' names (at most 63 bytes); each '*' takes what the GLOB's '*'\n"
    "                    captured\n"
    "  --rules FILE      more rules, one per line, written as on the command line: quotes\n"
    "                    and backslashes work as in the shell, '#' starts a comment\n"
    "  --max-shard-size SIZE  write the result as a split set, BASE-00001-of-0000N.gguf ...,\n"
    "                    each file holding at most SIZE bytes of tensor data (a larger tensor\n"
    "                    gets a file of its own), as gguf-split --split-max-size does; SIZE as\n"
    "                    4G, 500M (powers of 1000), 2GiB, 512MiB or bytes. No rule is needed\n"
    "                    then\n"
    "\n"
    "Rules given on the command line are numbered from 1 in messages (\"rule 2\"), those of a\n"
    "file by FILE:LINE. A rule that matches nothing, a tensor two rules match, two outputs with\n"
    "one name, a part named like an untouched tensor, and a cut of a quantized tensor's\n"
    "innermost axis off its block boundaries are errors (status 65). When the *_exps tensors\n"
    "all hold another number of experts on axis 0, ARCH.expert_count is updated.\n"
    "\n"
    "Example (unfuse llama.cpp's fused gate/up experts, [E, 2*FF, D] into two [E, FF, D]):\n"
    "  cleave gguf split model.gguf -o out/ \\\n"
    "    --tensor 'blk.*.ffn_gate_up_exps.weight' -a 1 -n 2 \\\n"
    "    --into 'blk.*.ffn_gate_exps.weight,blk.*.ffn_up_exps.weight'\n";

static const char gguf_shard_help[] =
    "usage: cleave gguf shard MODEL -o OUTDIR -n RANKS --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
    "                         [--replicate GLOB] [--unmatched replicate|error]\n"
    "\n"
    "Writes one GGUF file per tensor-parallel rank, OUTDIR/rank<R>.gguf (R from 0): every tensor\n"
    "matching an --axis rule is split into RANKS equal parts along AXIS (NumPy order; Split-1:\n"
    "uneven is an error; a quantized tensor's innermost axis only at block boundaries) and rank R\n"
    "gets part R under the same name; other tensors are copied whole to every rank. Each rank\n"
    "has the input's metadata (in order, a split set's split.* keys dropped) and alignment; when\n"
    "a rank's *_exps tensors hold fewer experts, its ARCH.expert_count says how many. The input\n"
    "is read once for all ranks.\n"
    "\n"
    "  -n RANKS                 the number of ranks (1 to 4096)\n"
    "  --axis GLOB=AXIS         split the tensors matching GLOB along AXIS (the first matching\n"
    "                           --axis rule applies)\n"
    "  --view GLOB=SHAPE        reshape matching tensors before their split (as in gguf split)\n"
    "  --replicate GLOB         copy matching tensors whole to every rank\n"
    "  --unmatched replicate|error  what happens to a tensor no --axis or --replicate rule\n"
    "                           matches (default: replicate)\n"
    "\n"
    "A rule that matches no tensor is an error (status 65), named by its option and its number\n"
    "among them, from 1 (\"--axis rule 2\").\n"
    "\n"
    "Example (2 ranks: rows of the projections in, columns of the outputs):\n"
    "  cleave gguf shard model.gguf -o tp2/ -n 2 --axis 'blk.*.attn_q.weight=0' \\\n"
    "    --axis 'blk.*.attn_k.weight=0' --axis 'blk.*.attn_v.weight=0' \\\n"
    "    --axis 'blk.*.attn_output.weight=1' --axis 'blk.*.ffn_up.weight=0' \\\n"
    "    --axis 'blk.*.ffn_gate.weight=0' --axis 'blk.*.ffn_down.weight=1'\n";

static const char gguf_merge_help[] =
    "usage: cleave gguf merge PART... -o OUT.gguf [--max-shard-size SIZE] [OPTIONS]\n"
    "       cleave gguf merge RANK... -o OUT.gguf --axis GLOB=AXIS... [--view GLOB=SHAPE]\n"
    "                         [--replicate GLOB] [--unmatched replicate|error]\n"
    "                         [--max-shard-size SIZE] [OPTIONS]\n"
    "\n"
    "Reads a split set (written by gguf-split or by cleave) back into one file, OUT.gguf: the\n"
    "tensors of every part in order, the first part's metadata without split.no, split.count and\n"
    "split.tensors.count. PART... is every file of the set in any order, or only the first (the\n"
    "others are found by name). The set is checked first: each file's split.no, the same\n"
    "split.count and split.tensors.count in all, every part present, no tensor twice. With\n"
    "--max-shard-size the result is a set of that size instead, OUT-00001-of-0000N.gguf ....\n"
    "OUT.gguf may not be one of the parts unless -f is given (then it replaces that part by a\n"
    "rename once complete, never by writing into it).\n"
    "\n"
    "With --axis rules, the inputs are the ranks of a tensor-parallel checkpoint instead (the\n"
    "inverse of 'gguf shard' with the same rules): RANK... is the rank files in rank order, or\n"
    "one folder holding rank0.gguf, rank1.gguf, ... as gguf shard writes them. Each tensor an\n"
    "--axis rule matches is joined from the ranks' parts along AXIS in rank order (Concat-1: the\n"
    "other dims must agree; a quantized tensor's innermost axis in whole blocks); every other\n"
    "tensor must be the same in every rank (type, shape and bytes, compared before anything is\n"
    "written) and is written once; the ranks' metadata must agree, an expert count the rules\n"
    "changed becomes the model's again. A tensor missing from a rank, or differing, is an error\n"
    "(65) naming the tensor and the rank.\n";

static const char gguf_reshard_help[] =
    "usage: cleave gguf reshard RANK... -o OUTDIR -n RANKS --axis GLOB=AXIS... [--view "
    "GLOB=SHAPE]\n"
    "                           [--replicate GLOB] [--unmatched replicate|error] [OPTIONS]\n"
    "\n"
    "The ranks of a tensor-parallel GGUF checkpoint (as 'gguf merge' takes them with --axis\n"
    "rules) into RANKS ranks, OUTDIR/rank<R>.gguf, in one pass that never holds a whole tensor:\n"
    "each output range is read from the input ranges that hold it. The result is, byte for byte,\n"
    "what 'gguf merge' then 'gguf shard -n RANKS' give with the same rules, and the errors are\n"
    "theirs (a cut off the quantization blocks is 65 naming the tensor and its block size).\n"
    "\n"
    "Example (2 ranks to 4):\n"
    "  cleave gguf reshard tp2/ -o tp4/ -n 4 --axis 'blk.*.ffn_up.weight=0' \\\n"
    "    --axis 'blk.*.ffn_down.weight=1'\n";

static const char gguf_verify_help[] =
    "usage: cleave gguf verify OUTDIR [--against MODEL...] [--json] [-q]\n"
    "\n"
    "Re-reads what gguf split, shard, merge or reshard wrote into OUTDIR against\n"
    "OUTDIR/cleave-manifest.json, as 'cleave st verify' does (see its help: sizes, XXH3-64\n"
    "checksums of each file and tensor, no file missing or extra, the same report and exit\n"
    "statuses), each .gguf output read back by 'gguf check''s rules with its tensors as the\n"
    "manifest says. With --against, each tensor is also compared byte for byte with the input\n"
    "bytes it was copied from (MODEL: the input files, or folders holding them).\n"
    "\n"
    "  --against MODEL...  the inputs of the run (files, or folders holding them)\n"
    "  --json              print the report as one JSON object (as st verify's)\n"
    "  -q, --quiet         print only the differences\n"
    "  -h, --help          print this help\n";

const char *help_gguf_text(const char *command, int *write_options) {
  static const struct {
    const char *name;
    const char *text;
    int write_options;
  } texts[] = {
      {"gguf", gguf_help, 0},
      {"gguf ls", gguf_ls_help, 0},
      {"gguf check", gguf_check_help, 0},
      {"gguf split", gguf_split_help, 1},
      {"gguf shard", gguf_shard_help, 1},
      {"gguf merge", gguf_merge_help, 1},
      {"gguf reshard", gguf_reshard_help, 1},
      {"gguf verify", gguf_verify_help, 0},
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    if (strcmp(texts[i].name, command) == 0) {
      *write_options = texts[i].write_options;
      return texts[i].text;
    }
  }
  return NULL;
}

const char *help_gguf_write_options(void) {
  return gguf_write_options;
}
