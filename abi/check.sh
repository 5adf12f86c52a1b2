#!/bin/sh
# ABI check: compares the public ABI of a built shared library with the committed baseline of
# the last release (abi/libcleave-<version>.abi, written by abidw from the release's library).
# Both sides are reduced to the types the public header defines (--headers-dir include
# --drop-private-types), so opaque types such as cleave_plan are compared as declarations only
# and internal changes never count. Any difference fails: functions or variables added, removed
# or changed, a struct or enum changed, the SONAME changed. A deliberate ABI change updates the
# baseline in the same commit (`abi/check.sh LIB --update`) and says so in the changelog.
#
# Usage: abi/check.sh path/to/libcleave.so [--update]
# Needs Debian's abigail-tools (abidw, abidiff); the library must carry DWARF (-g, as the
# default RelWithDebInfo build does).
set -eu
cd "$(dirname "$0")/.."
lib=${1:?usage: abi/check.sh path/to/libcleave.so [--update]}
baseline=$(ls abi/libcleave-*.abi | sort -V | tail -n 1)
abidw_flags="--headers-dir include --drop-private-types --no-corpus-path --no-comp-dir-path --no-show-locs"
if [ "${2:-}" = "--update" ]; then
  # shellcheck disable=SC2086
  abidw $abidw_flags --out-file "$baseline" "$lib"
  echo "abi: wrote $baseline from $lib"
  exit 0
fi
current=$(mktemp "${TMPDIR:-/tmp}/cleave-abi.XXXXXX")
trap 'rm -f "$current"' EXIT INT TERM
# shellcheck disable=SC2086
abidw $abidw_flags --out-file "$current" "$lib"
status=0
abidiff "$baseline" "$current" || status=$?
if [ "$status" -ne 0 ]; then
  echo "abi: $lib differs from $baseline (abidiff status $status: 4 = changed, 8 = incompatible)." >&2
  echo "abi: if the change is deliberate, run 'abi/check.sh $lib --update' and list it in the changelog." >&2
  exit 1
fi
echo "abi: $lib matches $baseline"
