#!/usr/bin/env bash
# Benchmarks `cleave gguf` on a generated Llama-like quantized GGUF model (bench/gguf_make_model.py:
# Q8_0 attention, a fused Q4_K ffn_gate_up, Q6_K ffn_down) against `cp` of the same file, in
# interleaved runs: `gguf shard -n 2` (Q8_0 and Q4_K rows, Q6_K and Q8_0 block columns), `gguf
# split` (the fused gate/up unfused by rows), `gguf split --max-shard-size` (a gguf-split set) and
# `gguf merge` of that set. Reports medians, ratios to cp and peak RSS (GNU time).
#
# usage: bench/gguf_bench.sh [-c CLEAVE] [-d DIR] [-m MIB] [-r RUNS]
#   -c  the cleave executable (default: build/tools/cleave)
#   -d  where to put the files (default: /tmp); they are deleted at the end
#   -m  model size in MiB (default: 1024)
#   -r  runs per command (default: 5); the medians are reported
#
# The input is in the page cache (read once before), the outputs go to the same file system, and
# `sync` runs before every measurement so that no run pays for another's write-back. The merged
# set is compared with the input byte for byte once.
set -euo pipefail

cleave=build/tools/cleave
dir=/tmp
mib=1024
runs=5
while getopts "c:d:m:r:h" opt; do
  case $opt in
    c) cleave=$OPTARG ;;
    d) dir=$OPTARG ;;
    m) mib=$OPTARG ;;
    r) runs=$OPTARG ;;
    *) sed -n '2,17p' "$0"; exit 64 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$cleave" ] || { echo "gguf_bench.sh: $cleave is not executable (use -c)" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "gguf_bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }

work=$(mktemp -d "$dir/cleave-gguf-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
model=$work/model.gguf
info=$("$py" "$here/gguf_make_model.py" "$model" "$mib")
cat "$model" > /dev/null

shard_args=(gguf shard "$model" -n 2 -q --no-progress
  --axis "*.attn_q.weight=0" --axis "*.attn_k.weight=0" --axis "*.attn_v.weight=0"
  --axis "*.attn_output.weight=1" --axis "*.ffn_gate_up.weight=0" --axis "*.ffn_down.weight=1")
split_args=(gguf split "$model" -q --no-progress
  --tensor "*.ffn_gate_up.weight" -a 0 -n 2 --into "*.ffn_gate.weight,*.ffn_up.weight")
set_args=(gguf split "$model" -q --no-progress --max-shard-size 300M)

# Correctness first: the set merges back to the input.
"$cleave" "${set_args[@]}" -o "$work/set"
first=$(ls "$work/set" | grep "[.]gguf$" | head -n 1)  # not the manifest
"$cleave" gguf merge "$work/set/$first" -o "$work/back.gguf" -q --no-progress
cmp "$model" "$work/back.gguf"
rm -f "$work/back.gguf"

# measure FILE COMMAND...: appends "seconds peak_rss_kib" to FILE, removes what was written.
measure() {
  local file=$1
  shift
  sync
  /usr/bin/time -f '%e %M' -o "$work/time" "$@"
  cat "$work/time" >> "$file"
  rm -rf "$work/out" "$work/copy.gguf" "$work/merged.gguf"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
col() { cut -d' ' -f"$2" "$work/$1.txt"; }

echo "model: $info ($mib MiB requested); $runs runs each; $(nproc) cores"
echo "cleave: $("$cleave" --version); file system: $(df -T "$work" | awk 'NR==2 {print $2}')"
for name in cp shard split set merge; do : > "$work/$name.txt"; done
for run in $(seq "$runs"); do
  measure "$work/cp.txt" cp "$model" "$work/copy.gguf"
  measure "$work/shard.txt" "$cleave" "${shard_args[@]}" -o "$work/out"
  measure "$work/cp.txt" cp "$model" "$work/copy.gguf"
  measure "$work/split.txt" "$cleave" "${split_args[@]}" -o "$work/out"
  measure "$work/cp.txt" cp "$model" "$work/copy.gguf"
  measure "$work/set.txt" "$cleave" "${set_args[@]}" -o "$work/out"
  measure "$work/cp.txt" cp "$model" "$work/copy.gguf"
  measure "$work/merge.txt" "$cleave" gguf merge "$work/set/$first" -o "$work/merged.gguf" -q \
    --no-progress
done
cp_s=$(col cp 1 | median)
for name in shard split set merge; do
  s=$(col "$name" 1 | median)
  rss=$(col "$name" 2 | sort -n | tail -1)
  printf '%-6s cp %6.2f s  cleave %6.2f s (%.2fx cp)  peak RSS %.1f MiB\n' "$name" "$cp_s" "$s" \
    "$(awk -v a="$s" -v b="$cp_s" 'BEGIN {print a / b}')" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
  echo "  runs (s): $(col "$name" 1 | tr '\n' ' ')"
done
echo "  cp runs (s): $(col cp 1 | tr '\n' ' ')"
