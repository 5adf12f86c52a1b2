#!/usr/bin/env bash
# Benchmarks `cleave convert` against llama.cpp's convert_hf_to_gguf.py and `cp` on the same
# generated Hugging Face Llama model (BF16 safetensors, config.json, a SentencePiece vocabulary:
# tests/convert/models.py), in interleaved runs of the same session: `--outtype bf16` (the
# weights as they are, norms cast to F32) and `--outtype f16` (every weight cast). Reports
# medians, ratios to cp and to the converter, and peak RSS (GNU time). The outputs of cleave and
# of the converter are compared byte for byte once, but for the authorship keys (the converter's
# general.name guesses differ; tests/convert/test_convert.py compares keys).
#
# usage: bench/convert_bench.sh [-c CLEAVE] [-d DIR] [-l LAYERS] [-r RUNS]
#   -c  the cleave executable (default: build/tools/cleave)
#   -d  where to put the files (default: /tmp); they are deleted at the end
#   -l  the model's layers (default: 12: about 270 MB of BF16)
#   -r  runs per command (default: 5); the medians are reported
#
# The converter comes from node-llama-cpp's llama.cpp (tests/gguf/llama/setup.sh), run by
# /usr/bin/python3 with gguf-py and the tests' stand-ins (tests/convert/stub) on PYTHONPATH.
# The input is in the page cache (read once before); `sync` runs before every measurement.
set -euo pipefail

cleave=build/tools/cleave
dir=/tmp
layers=12
runs=5
while getopts "c:d:l:r:h" opt; do
  case $opt in
    c) cleave=$OPTARG ;;
    d) dir=$OPTARG ;;
    l) layers=$OPTARG ;;
    r) runs=$OPTARG ;;
    *) sed -n '2,18p' "$0"; exit 64 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
py=/usr/bin/python3
[ -x "$cleave" ] || { echo "convert_bench.sh: $cleave is not executable (use -c)" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "convert_bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }
llama=$(sh "$root/tests/gguf/llama/setup.sh" | tail -n 1)
converter=$llama/llama.cpp/convert_hf_to_gguf.py
[ -f "$converter" ] || { echo "convert_bench.sh: no converter in '$llama'" >&2; exit 69; }
export PYTHONPATH=$llama/llama.cpp/gguf-py:$root/tests/convert/stub

work=$(mktemp -d "$dir/cleave-convert-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
model=$work/Bench-llama
"$py" - "$root/tests/convert" "$model" "$work" "$layers" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import models
models.make_model(sys.argv[2], "llama", sys.argv[3], dtype="bf16", hidden=1024, ff=2816,
                  config_extra={"num_hidden_layers": int(sys.argv[4]),
                                "num_attention_heads": 16, "num_key_value_heads": 4})
PY
cat "$model"/* > /dev/null
bytes=$(stat -c %s "$model/model.safetensors")

# Correctness first: the same tensors and keys as the converter's (authorship keys aside).
"$py" "$converter" "$model" --outfile "$work/theirs.gguf" --outtype bf16 > /dev/null 2>&1
"$cleave" convert "$model" -o "$work/ours.gguf" --outtype bf16 -q --no-progress
"$py" - "$work/ours.gguf" "$work/theirs.gguf" <<'PY'
import sys
from gguf import GGUFReader
skip = {"general.name", "general.basename", "general.finetune", "general.size_label"}
a, b = (GGUFReader(p) for p in sys.argv[1:3])
ka = {k: f.contents() for k, f in a.fields.items() if k not in skip and not k.startswith("GGUF.")}
kb = {k: f.contents() for k, f in b.fields.items() if k not in skip and not k.startswith("GGUF.")}
assert ka == kb, "metadata differs"
ta = [(t.name, t.tensor_type, t.data.tobytes()) for t in a.tensors]
tb = [(t.name, t.tensor_type, t.data.tobytes()) for t in b.tensors]
assert ta == tb, "tensors differ"
PY
rm -f "$work/ours.gguf" "$work/theirs.gguf" "$work/ours.gguf.cleave-manifest.json"

measure() {
  local file=$1
  shift
  sync
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" > /dev/null 2>&1
  cat "$work/time" >> "$file"
  rm -f "$work/out.gguf" "$work/out.gguf.cleave-manifest.json" "$work/copy"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
col() { cut -d' ' -f"$2" "$work/$1.txt"; }

echo "model: llama, $layers layers, hidden 1024, BF16, $bytes bytes of safetensors; $runs runs each; $(nproc) cores"
echo "cleave: $("$cleave" --version); file system: $(df -T "$work" | awk 'NR==2 {print $2}')"
names="cp cleave_bf16 conv_bf16 cleave_f16 conv_f16"
for name in $names; do : > "$work/$name.txt"; done
for run in $(seq "$runs"); do
  measure "$work/cp.txt" cp "$model/model.safetensors" "$work/copy"
  measure "$work/cleave_bf16.txt" "$cleave" convert "$model" -o "$work/out.gguf" --outtype bf16 -q --no-progress
  measure "$work/conv_bf16.txt" "$py" "$converter" "$model" --outfile "$work/out.gguf" --outtype bf16
  measure "$work/cp.txt" cp "$model/model.safetensors" "$work/copy"
  measure "$work/cleave_f16.txt" "$cleave" convert "$model" -o "$work/out.gguf" --outtype f16 -q --no-progress
  measure "$work/conv_f16.txt" "$py" "$converter" "$model" --outfile "$work/out.gguf" --outtype f16
done
cp_s=$(col cp 1 | median)
echo "cp: $cp_s s (runs: $(col cp 1 | tr '\n' ' '))"
for t in bf16 f16; do
  c=$(col "cleave_$t" 1 | median)
  p=$(col "conv_$t" 1 | median)
  crss=$(col "cleave_$t" 2 | sort -n | tail -1)
  prss=$(col "conv_$t" 2 | sort -n | tail -1)
  printf -- '--outtype %-4s cleave %6.2f s (%.2fx cp, peak RSS %.1f MiB)  converter %6.2f s (peak RSS %.1f MiB)  %.1fx faster\n' \
    "$t" "$c" "$(awk -v a="$c" -v b="$cp_s" 'BEGIN {print a / b}')" \
    "$(awk -v k="$crss" 'BEGIN {print k / 1024}')" "$p" "$(awk -v k="$prss" 'BEGIN {print k / 1024}')" \
    "$(awk -v a="$p" -v b="$c" 'BEGIN {print a / b}')"
  echo "  cleave runs (s): $(col "cleave_$t" 1 | tr '\n' ' ')"
  echo "  converter runs (s): $(col "conv_$t" 1 | tr '\n' ' ')"
done
