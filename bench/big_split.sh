#!/usr/bin/env bash
# Measures the cleave command on a big .npy file: peak resident memory, and wall time against
# `cp` of the same file measured in the same run (input in the page cache, outputs on the same
# file system, `sync` before every measurement so no run pays for another's write-back).
#
# usage: bench/big_split.sh [-c CLEAVE] [-d DIR] [-m MIB] [-r RUNS]
#   -c  the cleave executable (default: build/tools/cleave)
#   -d  where to put the files (default: /tmp); they are deleted at the end
#   -m  input size in MiB (default: 4096, i.e. 4 GiB; a multiple of 4)
#   -r  runs per command (default: 5); the medians are reported
#
# The input is float32 data of shape [MiB*256, 1024] (4 KiB rows). Two splits are measured:
#   axis 0 into 4  - four contiguous quarters (copied inside the kernel where possible)
#   axis 1 into 2  - every row cut into two 2 KiB halves (batched reads, gathered writes)
# Needs GNU time (/usr/bin/time, Debian package "time") for the peak RSS.
set -euo pipefail

cleave=build/tools/cleave
dir=/tmp
mib=4096
runs=5
while getopts "c:d:m:r:h" opt; do
  case $opt in
    c) cleave=$OPTARG ;;
    d) dir=$OPTARG ;;
    m) mib=$OPTARG ;;
    r) runs=$OPTARG ;;
    *) sed -n '2,18p' "$0"; exit 64 ;;
  esac
done
[ -x "$cleave" ] || { echo "big_split.sh: $cleave is not executable (use -c)" >&2; exit 66; }
[ -x /usr/bin/time ] || { echo "big_split.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }
[ $((mib % 4)) -eq 0 ] || { echo "big_split.sh: -m must be a multiple of 4" >&2; exit 64; }

work=$(mktemp -d "$dir/cleave-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
input=$work/big.npy
rows=$((mib * 256))
bytes=$((mib * 1024 * 1024))

# The .npy header (version 1.0, padded with spaces and a newline to 64 bytes), then the data.
dict="{'descr': '<f4', 'fortran_order': False, 'shape': ($rows, 1024), }"
pad=$(( (64 - (10 + ${#dict} + 1) % 64) % 64 ))
hlen=$(( ${#dict} + pad + 1 ))
{
  printf '\223NUMPY\001\000'
  printf "\\$(printf %03o $((hlen & 255)))\\$(printf %03o $((hlen >> 8)))"
  printf '%s%*s\n' "$dict" "$pad" ''
  { yes 'cleave benchmark data, not zeros so that nothing is sparse' || true; } | head -c "$bytes"
} > "$input"
cat "$input" > /dev/null   # into the page cache

# measure LABEL COMMAND...: prints "seconds peak_rss_kib" and removes what the command wrote.
measure() {
  sync
  /usr/bin/time -f '%e %M' -o "$work/time" "$@"
  cat "$work/time"
  rm -f "$work"/out_* "$work/copy.npy"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "input: $input, $mib MiB, shape [$rows,1024] float32; $runs runs each; $(nproc) cores"
echo "cleave: $("$cleave" --version); file system: $(df -T "$work" | awk 'NR==2 {print $2}')"
for case in "split -a 0 -n 4" "split -a 1 -n 2"; do
  : > "$work/cp.txt"
  : > "$work/cleave.txt"
  for run in $(seq "$runs"); do
    # Alternate which command goes first, so that neither always follows the other's clean-up.
    if [ $((run % 2)) -eq 1 ]; then
      measure cp "$input" "$work/copy.npy" >> "$work/cp.txt"
    fi
    # shellcheck disable=SC2086 # the case is a list of words
    measure "$cleave" $case -q --no-progress -o "$work/out" "$input" >> "$work/cleave.txt"
    if [ $((run % 2)) -eq 0 ]; then
      measure cp "$input" "$work/copy.npy" >> "$work/cp.txt"
    fi
  done
  cp_s=$(cut -d' ' -f1 "$work/cp.txt" | median)
  cl_s=$(cut -d' ' -f1 "$work/cleave.txt" | median)
  rss=$(cut -d' ' -f2 "$work/cleave.txt" | sort -n | tail -1)
  printf '%-16s cp %6.2f s   cleave %6.2f s   ratio %.2f   cleave peak RSS %d KiB (%.1f MiB)\n' \
    "$case" "$cp_s" "$cl_s" "$(echo "$cl_s $cp_s" | awk '{print ($2 > 0) ? $1 / $2 : 0}')" \
    "$rss" "$(echo "$rss" | awk '{print $1 / 1024}')"
  echo "  cp runs (s):     $(cut -d' ' -f1 "$work/cp.txt" | tr '\n' ' ')"
  echo "  cleave runs (s): $(cut -d' ' -f1 "$work/cleave.txt" | tr '\n' ' ')"
done
