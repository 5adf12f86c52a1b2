#!/usr/bin/env bash
# Builds the fuzz targets with clang, ASan and UBSan, and runs each for SECONDS (default 60) on
# a copy of its committed seed corpus. Fails on any finding; the crashing input is kept in
# build-fuzz/findings/ (turn it into a regression seed under fuzz/corpus/ once fixed).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=build-fuzz
CC=clang cmake -S . -B "$build" -DCLEAVE_BUILD_FUZZ=ON -DBUILD_TESTING=OFF \
  -DCLEAVE_BUILD_TOOLS=OFF -DCLEAVE_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link" \
  >/dev/null
cmake --build "$build" -j2 >/dev/null
mkdir -p "$build/findings"
status=0
for dir in fuzz/corpus/*/; do
  target=$(basename "$dir")
  exe=$(find "$build" -name "fuzz_$target" -type f -perm -u+x | head -n 1)
  if [ -z "$exe" ]; then
    echo "fuzz: no executable for the corpus $dir" >&2
    status=1
    continue
  fi
  work="$build/corpus-$target"
  rm -rf "$work" && mkdir -p "$work" && cp "$dir"/* "$work"/
  echo "fuzz: $target for ${seconds}s"
  if ! "$exe" -max_total_time="$seconds" -print_final_stats=0 \
      -artifact_prefix="$build/findings/$target-" "$work" >"$build/fuzz-$target.log" 2>&1; then
    echo "fuzz: $target FOUND A PROBLEM; log tail:" >&2
    tail -n 40 "$build/fuzz-$target.log" >&2
    status=1
  else
    grep -E '^Done|#[0-9]+.*DONE' "$build/fuzz-$target.log" | tail -n 1 || true
  fi
done
exit $status
