#!/usr/bin/env bash
# Benchmarks the writing `cleave st` commands on a generated Llama-like BF16 checkpoint with
# fused Phi-3-style tensors, each against `cp -r` of the same input folder on the same disk, in
# interleaved runs: split and shard -n 4 against cp -r of the model's folder, merge and reshard
# (4 -> 2, 4 -> 8) of the four ranks against cp -r of the ranks' folder. Optionally (-N) also
# the NumPy script users write today (bench/st_numpy_baseline.py), and `st ls` / `st check` of a
# header of 200,000 tensors. Optionally (-B) split and merge against the same commands of another
# cleave (one built without the manifest, to measure its checksums), and (-V) `st verify` of a
# merged model, without and with --against, against `cat` of the same bytes to /dev/null.
# Reports medians, ratios and peak RSS (GNU time).
#
# usage: bench/st_bench.sh [-c CLEAVE] [-d DIR] [-m MIB] [-r RUNS] [-C] [-N] [-H] [-B CLEAVE] [-V]
#   -c  the cleave executable (default: build/tools/cleave)
#   -d  where to put the files (default: /tmp); they are deleted at the end
#   -m  checkpoint size in MiB (default: 2300)
#   -r  runs of each command (default: 5); medians are reported
#   -C  cold: drop the page cache (root) before every command, so that every input is read
#       from the disk; default: warm, every input read once before and kept in the page cache
#   -N  also time the NumPy baselines (slow, and they need memory for a whole output file)
#   -H  also time st ls / st check of a header of 200,000 tensors
#   -B  also time split and merge with this cleave (e.g. one built from before the manifest)
#   -V  also time st verify of a merged model (its 1 file), and with --against the 4 ranks,
#       against cat of the same files (the outputs; the outputs and the ranks) to /dev/null
#
# Every command's outputs go to the input's file system and are deleted after it, with `sync`
# (not timed) before each command so that none pays for another's write-back. The commands of a
# run go in a random order, each run a new one. On a virtual machine shared with other work,
# single runs vary by up to 5x: compare the medians, and the ratio of each command to its
# baseline in the same run (median_x), and the CPU times. Before measuring, the script checks
# that the commands are right: the merge of the shards is the model, reshard 4 -> 2 equals
# shard -n 2 of the model, and (-N) cleave's shards equal the NumPy script's byte for byte.
set -euo pipefail

cleave=build/tools/cleave
dir=/tmp
mib=2300
runs=5
cold=0
numpy=0
headers=0
base=""
verify=0
while getopts "c:d:m:r:CNHB:Vh" opt; do
  case $opt in
    c) cleave=$OPTARG ;;
    d) dir=$OPTARG ;;
    m) mib=$OPTARG ;;
    r) runs=$OPTARG ;;
    C) cold=1 ;;
    N) numpy=1 ;;
    H) headers=1 ;;
    B) base=$(realpath "$OPTARG") ;;
    V) verify=1 ;;
    *) sed -n '2,31p' "$0"; exit 64 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
cleave=$(realpath "$cleave")
[ -x "$cleave" ] || { echo "st_bench.sh: $cleave is not executable (use -c)" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "st_bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }
if [ "$cold" = 1 ] && ! { sync && echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; then
  echo "st_bench.sh: -C needs to write /proc/sys/vm/drop_caches (root)" >&2
  exit 77
fi

work=$(mktemp -d "$dir/cleave-st-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cd "$work"
mkdir model
model=model/model.safetensors
info=$("$py" "$here/st_make_checkpoint.py" "$model" "$mib")
h=$(echo "$info" | sed -n 's/.*H=\([0-9]*\).*/\1/p')

rules=(--view "*.qkv_proj.weight=3,-1,$h" --axis "*.qkv_proj.weight=1"
  --view "*.gate_up_proj.weight=2,-1,$h" --axis "*.gate_up_proj.weight=1"
  --axis "*.o_proj.weight=1" --axis "*.down_proj.weight=1"
  --axis "*embed_tokens*=0" --axis "lm_head.weight=0")
quiet=(-q --no-progress)
split_args=(st split "$model" "${quiet[@]}"
  --tensor "*.qkv_proj.weight" -a 0 -n 3 --into "*.q_proj.weight,*.k_proj.weight,*.v_proj.weight"
  --tensor "*.gate_up_proj.weight" -a 0 -n 2 --into "*.gate_proj.weight,*.up_proj.weight")

# The command line of each command, by name, into `cmdline`: each writes `out`.
command_of() {
  case $1 in
    cp_model) cmdline=(cp -r model out) ;;
    cp_ranks) cmdline=(cp -r tp4 out) ;;
    split) cmdline=("$cleave" "${split_args[@]}" -o out) ;;
    shard) cmdline=("$cleave" st shard "$model" -n 4 "${quiet[@]}" "${rules[@]}" -o out) ;;
    merge) cmdline=("$cleave" st merge tp4 "${quiet[@]}" "${rules[@]}" -o out) ;;
    reshard2) cmdline=("$cleave" st reshard tp4 -n 2 "${quiet[@]}" "${rules[@]}" -o out) ;;
    reshard8) cmdline=("$cleave" st reshard tp4 -n 8 "${quiet[@]}" "${rules[@]}" -o out) ;;
    np_shard) cmdline=("$py" "$here/st_numpy_baseline.py" shard "$model" out 4) ;;
    np_split) cmdline=("$py" "$here/st_numpy_baseline.py" split "$model" out) ;;
    split_base) cmdline=("$base" "${split_args[@]}" -o out) ;;
    merge_base) cmdline=("$base" st merge tp4 "${quiet[@]}" "${rules[@]}" -o out) ;;
    verify) cmdline=("$cleave" st verify merged -q) ;;
    cat_merged) cmdline=(sh -c 'cat merged/* > /dev/null') ;;
    verify_against) cmdline=("$cleave" st verify merged -q --against tp4) ;;
    cat_against) cmdline=(sh -c 'cat merged/* tp4/* > /dev/null') ;;
  esac
}

# Correctness first.
"$cleave" st shard "$model" -n 4 "${quiet[@]}" "${rules[@]}" -o tp4
"$cleave" st merge tp4 "${quiet[@]}" "${rules[@]}" -o check-merge
cmp "$model" check-merge/model.safetensors
"$cleave" st reshard tp4 -n 2 "${quiet[@]}" "${rules[@]}" -o check-reshard
"$cleave" st shard "$model" -n 2 "${quiet[@]}" "${rules[@]}" -o check-shard
for r in 0 1; do cmp check-reshard/rank$r.safetensors check-shard/rank$r.safetensors; done
if [ "$numpy" = 1 ]; then
  "$py" "$here/st_numpy_baseline.py" shard "$model" check-numpy 4
  for r in 0 1 2 3; do cmp tp4/rank$r.safetensors check-numpy/rank$r.safetensors; done
fi
rm -rf check-*

names=(cp_model split shard cp_ranks merge reshard2 reshard8)
[ "$numpy" = 1 ] && names+=(np_shard np_split)
[ -n "$base" ] && names+=(split_base merge_base)
if [ "$verify" = 1 ]; then
  names+=(verify cat_merged verify_against cat_against)
  "$cleave" st merge tp4 "${quiet[@]}" "${rules[@]}" -o merged
  "$cleave" st verify merged -q --against tp4
fi
for name in "${names[@]}"; do : > "$name.txt"; done
[ "$cold" = 1 ] || cat "$model" tp4/* > /dev/null
[ "$cold" = 1 ] || [ "$verify" = 0 ] || cat merged/* > /dev/null
echo "checkpoint: $info ($mib MiB requested); $runs runs; $(nproc) cores; page cache:" \
  "$([ "$cold" = 1 ] && echo "dropped before each command" || echo "inputs warm")"
echo "cleave: $("$cleave" --version); file system: $(df -T . | awk 'NR==2 {print $2}')"
for run in $(seq "$runs"); do
  for name in $(printf '%s\n' "${names[@]}" | shuf); do
    sync
    [ "$cold" = 1 ] && echo 3 > /proc/sys/vm/drop_caches
    command_of "$name"
    /usr/bin/time -f '%e %M %U %S' -o time.txt "${cmdline[@]}"
    read -r wall rss user system < time.txt
    echo "$wall $rss $run $(awk -v u="$user" -v s="$system" 'BEGIN {print u + s}')" >> "$name.txt"
    rm -rf out
  done
done

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
col() { cut -d' ' -f"$2" "$1.txt"; }
# The command's time over its baseline's in the same run, one line per run.
ratios() { join -1 3 -2 3 <(sort -k3 "$1.txt") <(sort -k3 "$2.txt") | awk '{print $2 / $5}'; }
printf '%-9s %-9s %9s %9s %10s %9s %9s %9s %7s %9s\n' command baseline median base x_medians \
  median_x cpu cpu_base cpu_x peak_RSS
for pair in "split cp_model" "shard cp_model" "merge cp_ranks" "reshard2 cp_ranks" \
  "reshard8 cp_ranks" "np_shard cp_model" "np_split cp_model" "split split_base" \
  "merge merge_base" "split_base cp_model" "merge_base cp_ranks" "verify cat_merged" \
  "verify_against cat_against"; do
  set -- $pair
  [ -s "$1.txt" ] && [ -s "$2.txt" ] || continue
  t=$(col "$1" 1 | median)
  b=$(col "$2" 1 | median)
  c=$(col "$1" 4 | median)
  cb=$(col "$2" 4 | median)
  printf '%-9s %-9s %8.2fs %8.2fs %9.2fx %8.2fx %8.2fs %8.2fs %6.2fx %5.1f MiB\n' "$1" "$2" "$t" \
    "$b" "$(awk -v a="$t" -v b="$b" 'BEGIN {print a / b}')" "$(ratios "$1" "$2" | median)" "$c" \
    "$cb" "$(awk -v a="$c" -v b="$cb" 'BEGIN {print a / b}')" \
    "$(awk -v k="$(col "$1" 2 | sort -n | tail -1)" 'BEGIN {print k / 1024}')"
done
for name in "${names[@]}"; do
  echo "  runs (s) $name: $(sort -k3n "$name.txt" | cut -d' ' -f1 | tr '\n' ' ')"
done

[ "$headers" = 1 ] || exit 0
# A header of 200,000 tensors (one byte each): ls and check read the header only.
"$py" - many.safetensors <<'PY'
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
  : > "$cmd.txt"
  for run in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o time.txt "$cleave" st "$cmd" many.safetensors > /dev/null
    echo "$(cat time.txt) $run" >> "$cmd.txt"
  done
  printf 'st %-5s of 200,000 tensors: %.2f s (median; runs %s), peak RSS %.1f MiB\n' "$cmd" \
    "$(col "$cmd" 1 | median)" "$(col "$cmd" 1 | tr '\n' ' ')" \
    "$(awk -v k="$(col "$cmd" 2 | sort -n | tail -1)" 'BEGIN {print k / 1024}')"
done
