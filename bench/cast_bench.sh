#!/usr/bin/env bash
# Benchmarks --outtype: a safetensors checkpoint converted by `cleave st split --max-shard-size
# 1T --outtype TYPE` (one output file, every tensor converted in the writer's pass) against `cp`
# of the same input file on the same disk, in interleaved runs: F32 -> BF16, F32 -> F16 (a model
# of F32 tensors) and BF16 -> F32 (a model of BF16 tensors, whose output is twice its input).
# Reports each command's median wall time, its ratio to cp's median in the same runs, its CPU
# time and its peak RSS (GNU time).
#
# usage: bench/cast_bench.sh [-c CLEAVE] [-d DIR] [-m MIB] [-r RUNS]
#   -c  the cleave executable (default: build/tools/cleave)
#   -d  where to put the files (default: /tmp); they are deleted at the end
#   -m  size of the F32 model in MiB (default: 1024; the BF16 model is half of it)
#   -r  runs of each command (default: 5); medians are reported
#
# Inputs are read once before the runs and stay in the page cache (warm); every output is
# deleted after its command, with `sync` (not timed) before each command so that none pays for
# another's write-back. Before measuring, the script checks one output against NumPy.
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
py=/usr/bin/python3
cleave=$(realpath "$cleave")
[ -x "$cleave" ] || { echo "cast_bench.sh: $cleave is not executable (use -c)" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "cast_bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }

work=$(mktemp -d "$dir/cleave-cast-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
cd "$work"
mkdir f32 bf16
# Tensors of 4096 x 4096 (64 MiB as F32) and one remainder, random normal values.
"$py" - "$mib" <<'PY'
import json, struct, sys
import numpy as np
mib = int(sys.argv[1])
rng = np.random.default_rng(0)
def write(path, dtype_name, arrays):
    header, off = {}, 0
    for name, a in arrays:
        header[name] = {"dtype": dtype_name, "shape": list(a.shape), "data_offsets": [off, off + a.nbytes]}
        off += a.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for _, a in arrays:
            f.write(a.tobytes())
total = mib << 20
rows = total // (4096 * 4)
arrays = []
block = rng.standard_normal((256, 4096)).astype(np.float32)
i = 0
while rows > 0:
    n = min(rows, 4096)
    arrays.append((f"layers.{i}.weight", np.tile(block, (-(-n // 256), 1))[:n] * (1 + i / 7)))
    rows -= n
    i += 1
write("f32/model.safetensors", "F32", arrays)
bf = [(k, (a.view(np.uint32) >> 16).astype(np.uint16)) for k, a in arrays]
write("bf16/model.safetensors", "BF16", bf)
PY
cat f32/model.safetensors bf16/model.safetensors > /dev/null

# The check: F32 -> F16 of the first tensor equals NumPy's astype.
"$cleave" st split f32 -o check --max-shard-size 1T --outtype f16 -q --no-progress
"$py" - <<'PY'
import json, struct
import numpy as np
def first(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    name = sorted(h)[0]
    s, e = h[name]["data_offsets"]
    return h[name]["dtype"], b[8 + n + s:8 + n + e]
d, a = first("f32/model.safetensors")
d2, b = first("check/model.safetensors")
assert d2 == "F16" and np.frombuffer(a, np.float32).astype(np.float16).tobytes() == b, "f16 differs"
print("check: F32 -> F16 equals numpy's astype")
PY
rm -rf check

names=(cp f32-bf16 f32-f16 bf16-f32)
command_of() {
  case $1 in
    cp) echo "cp f32/model.safetensors out.safetensors" ;;
    f32-bf16) echo "$cleave st split f32 -o out --max-shard-size 1T --outtype bf16 -q --no-progress" ;;
    f32-f16) echo "$cleave st split f32 -o out --max-shard-size 1T --outtype f16 -q --no-progress" ;;
    bf16-f32) echo "$cleave st split bf16 -o out --max-shard-size 1T --outtype f32 -q --no-progress" ;;
  esac
}
declare -A wall cpu rss
for ((r = 0; r < runs; r++)); do
  for name in $(printf '%s\n' "${names[@]}" | shuf); do
    sync
    # shellcheck disable=SC2046
    /usr/bin/time -f "%e %U %S %M" -o time.txt $(command_of "$name")
    read -r e u s m < time.txt
    wall[$name]+="$e "
    cpu[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}') "
    rss[$name]+="$m "
    rm -rf out out.safetensors
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
maxof() { tr ' ' '\n' | grep -v '^$' | sort -g | tail -n 1; }
base=$(echo "${wall[cp]}" | median)
printf "%-9s %9s %7s %9s %10s   (F32 model %d MiB, %d runs)\n" command "wall(s)" "x cp" "cpu(s)" "rss(KiB)" "$mib" "$runs"
for name in "${names[@]}"; do
  w=$(echo "${wall[$name]}" | median)
  printf "%-9s %9.3f %7.2f %9.3f %10s\n" "$name" "$w" "$(awk -v w="$w" -v b="$base" 'BEGIN {print w / b}')" \
    "$(echo "${cpu[$name]}" | median)" "$(echo "${rss[$name]}" | maxof)"
done
