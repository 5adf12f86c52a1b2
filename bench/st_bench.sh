#!/usr/bin/env bash
# Benchmarks `cleave st shard` and `cleave st split` on a generated Llama-like BF16 checkpoint
# with fused Phi-3-style tensors, against `cp` of the same file and against the NumPy script
# users write today (bench/st_numpy_baseline.py), all in the same run; and `st ls` / `st check`
# of a header of 200,000 tensors. Reports medians, ratios and peak RSS (GNU time).
#
# usage: bench/st_bench.sh [-c CLEAVE] [-d DIR] [-m MIB] [-r RUNS]
#   -c  the cleave executable (default: build/tools/cleave)
#   -d  where to put the files (default: /tmp); they are deleted at the end
#   -m  checkpoint size in MiB (default: 4096)
#   -r  runs per command (default: 3); the medians are reported
#
# The input is in the page cache (read once before), the outputs go to the same file system,
# and `sync` runs before every measurement so that no run pays for another's write-back. The
# cleave and NumPy shard outputs are compared byte for byte once (they must be identical).
set -euo pipefail

cleave=build/tools/cleave
dir=/tmp
mib=4096
runs=3
while getopts "c:d:m:r:h" opt; do
  case $opt in
    c) cleave=$OPTARG ;;
    d) dir=$OPTARG ;;
    m) mib=$OPTARG ;;
    r) runs=$OPTARG ;;
    *) sed -n '2,16p' "$0"; exit 64 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
[ -x "$cleave" ] || { echo "st_bench.sh: $cleave is not executable (use -c)" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "st_bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }

work=$(mktemp -d "$dir/cleave-st-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
model=$work/model.safetensors
info=$("$py" "$here/st_make_checkpoint.py" "$model" "$mib")
h=$(echo "$info" | sed -n 's/.*H=\([0-9]*\).*/\1/p')
cat "$model" > /dev/null

shard_args=(st shard "$model" -n 4 -q --no-progress
  --view "*.qkv_proj.weight=3,-1,$h" --axis "*.qkv_proj.weight=1"
  --view "*.gate_up_proj.weight=2,-1,$h" --axis "*.gate_up_proj.weight=1"
  --axis "*.o_proj.weight=1" --axis "*.down_proj.weight=1"
  --axis "*embed_tokens*=0" --axis "lm_head.weight=0")
split_args=(st split "$model" -q --no-progress
  --tensor "*.qkv_proj.weight" -a 0 -n 3 --into "*.q_proj.weight,*.k_proj.weight,*.v_proj.weight"
  --tensor "*.gate_up_proj.weight" -a 0 -n 2 --into "*.gate_proj.weight,*.up_proj.weight")

# measure FILE COMMAND...: appends "seconds peak_rss_kib" to FILE, removes what was written.
measure() {
  local file=$1
  shift
  sync
  /usr/bin/time -f '%e %M' -o "$work/time" "$@"
  cat "$work/time" >> "$file"
  rm -rf "$work/out" "$work/copy.safetensors"
}
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
col() { cut -d' ' -f"$2" "$work/$1.txt"; }

# Correctness first: cleave's shards equal the NumPy script's byte for byte.
"$cleave" "${shard_args[@]}" -o "$work/check-cleave"
"$py" "$here/st_numpy_baseline.py" shard "$model" "$work/check-numpy" 4
for r in 0 1 2 3; do
  cmp "$work/check-cleave/rank$r.safetensors" "$work/check-numpy/rank$r.safetensors"
done
rm -rf "$work/check-cleave" "$work/check-numpy"

echo "checkpoint: $info ($mib MiB requested); $runs runs each; $(nproc) cores"
echo "cleave: $("$cleave" --version); file system: $(df -T "$work" | awk 'NR==2 {print $2}')"
for name in cp shard np_shard split np_split; do : > "$work/$name.txt"; done
for run in $(seq "$runs"); do
  measure "$work/cp.txt" cp "$model" "$work/copy.safetensors"
  measure "$work/shard.txt" "$cleave" "${shard_args[@]}" -o "$work/out"
  measure "$work/np_shard.txt" "$py" "$here/st_numpy_baseline.py" shard "$model" "$work/out" 4
  measure "$work/split.txt" "$cleave" "${split_args[@]}" -o "$work/out"
  measure "$work/np_split.txt" "$py" "$here/st_numpy_baseline.py" split "$model" "$work/out"
done
cp_s=$(col cp 1 | median)
for pair in "shard np_shard" "split np_split"; do
  set -- $pair
  cl_s=$(col "$1" 1 | median)
  np_s=$(col "$2" 1 | median)
  cl_rss=$(col "$1" 2 | sort -n | tail -1)
  np_rss=$(col "$2" 2 | sort -n | tail -1)
  printf '%-6s cp %6.2f s  cleave %6.2f s (%.2fx cp)  NumPy %6.2f s (cleave %.2fx faster)  peak RSS cleave %.1f MiB, NumPy %.1f MiB\n' \
    "$1" "$cp_s" "$cl_s" "$(awk -v a="$cl_s" -v b="$cp_s" 'BEGIN {print a / b}')" "$np_s" \
    "$(awk -v a="$np_s" -v b="$cl_s" 'BEGIN {print a / b}')" \
    "$(awk -v k="$cl_rss" 'BEGIN {print k / 1024}')" "$(awk -v k="$np_rss" 'BEGIN {print k / 1024}')"
  echo "  runs (s): cp $(col cp 1 | tr '\n' ' ')| cleave $(col "$1" 1 | tr '\n' ' ')| NumPy $(col "$2" 1 | tr '\n' ' ')"
done

# A header of 200,000 tensors (one byte each): ls and check read the header only.
"$py" - "$work/many.safetensors" <<'PY'
import json, struct, sys
n = 200_000
head = {f"model.layers.{i // 8}.block.{i % 8}.weight": {"dtype": "U8", "shape": [1],
        "data_offsets": [i, i + 1]} for i in range(n)}
text = json.dumps(head, separators=(",", ":")).encode()
text += b" " * ((8 - len(text) % 8) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + bytes(n))
print(f"200,000-tensor header: {len(text)} bytes")
PY
for cmd in ls check; do
  : > "$work/$cmd.txt"
  for run in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$cleave" st "$cmd" "$work/many.safetensors" > /dev/null
    cat "$work/time" >> "$work/$cmd.txt"
  done
  printf 'st %-5s of 200,000 tensors: %.2f s (median; runs %s), peak RSS %.1f MiB\n' "$cmd" \
    "$(col "$cmd" 1 | median)" "$(col "$cmd" 1 | tr '\n' ' ')" \
    "$(awk -v k="$(col "$cmd" 2 | sort -n | tail -1)" 'BEGIN {print k / 1024}')"
done
