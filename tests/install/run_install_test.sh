#!/bin/sh
# Install test: installs the build tree BUILD_DIR into a temporary prefix, then, against that
# prefix only,
#   1. builds and runs the consumer with CMake (find_package(cleave), cleave::cleave and
#      cleave::cleave_static),
#   2. builds and runs the consumer with `pkg-config --cflags --libs cleave`,
#   3. checks that the installed libcleave.so exports only cleave_ symbols, that its SONAME is
#      SONAME (libcleave.so.0.2 for 0.2.x), that the static library defines only cleave_ globals,
#      and that only the public header is installed.
# Usage: run_install_test.sh BUILD_DIR CONSUMER_SOURCE_DIR CMAKE C_COMPILER SONAME
set -eu

build_dir=$1
consumer_dir=$2
cmake=$3
cc=$4
expected_soname=$5

work=$(mktemp -d "${TMPDIR:-/tmp}/cleave-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

echo "== cmake --install $build_dir --prefix $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 || {
  cat "$work/install.log" >&2
  echo "FAIL: cmake --install failed" >&2
  exit 1
}

# The library directory is whatever CMAKE_INSTALL_LIBDIR was at configure time: find it.
so=$(find "$prefix" -name 'libcleave.so' | head -n 1)
pc=$(find "$prefix" -name 'cleave.pc' | head -n 1)
config=$(find "$prefix" -name 'cleaveConfig.cmake' | head -n 1)
[ -n "$so" ] || { echo "FAIL: no libcleave.so installed" >&2; find "$prefix" >&2; exit 1; }
libdir=$(dirname "$so")
[ -f "$libdir/libcleave.a" ] || fail "no libcleave.a beside $so"
[ -n "$pc" ] || fail "no cleave.pc installed"
[ -n "$config" ] || fail "no cleaveConfig.cmake installed"

# Only the public header is installed.
[ -f "$prefix/include/cleave.h" ] || fail "include/cleave.h is not installed"
extra_headers=$(find "$prefix" -name '*.h' ! -path "$prefix/include/cleave.h")
[ -z "$extra_headers" ] || fail "headers other than cleave.h are installed: $extra_headers"

# 1. CMake consumer.
echo "== CMake consumer (find_package)"
if "$cmake" -S "$consumer_dir" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release >"$work/cmake-config.log" 2>&1 &&
  "$cmake" --build "$work/cmake-build" >"$work/cmake-build.log" 2>&1; then
  for exe in consumer_shared consumer_static; do
    if out=$(LD_LIBRARY_PATH="$libdir" "$work/cmake-build/$exe"); then
      echo "$exe: $out"
      case $out in
      "cleave consumer OK "*) ;;
      *) fail "$exe printed '$out'" ;;
      esac
    else
      fail "$exe exited with an error"
    fi
  done
  # The shared consumer must really use the installed shared library.
  if ! LD_LIBRARY_PATH="$libdir" ldd "$work/cmake-build/consumer_shared" |
    grep -q "$expected_soname => $libdir/"; then
    fail "consumer_shared does not load $expected_soname from $libdir"
    LD_LIBRARY_PATH="$libdir" ldd "$work/cmake-build/consumer_shared" >&2 || true
  fi
  if ldd "$work/cmake-build/consumer_static" | grep -q libcleave; then
    fail "consumer_static depends on the shared libcleave"
  fi
else
  cat "$work/cmake-config.log" "$work/cmake-build.log" >&2 2>/dev/null || true
  fail "the CMake consumer did not configure or build"
fi

# 2. pkg-config consumer.
echo "== pkg-config consumer"
if [ -n "$pc" ]; then
  pcdir=$(dirname "$pc")
  if flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs cleave); then
    echo "pkg-config --cflags --libs cleave: $flags"
    # shellcheck disable=SC2086 # the flags are meant to be split into words
    if "$cc" -o "$work/pc-consumer" "$consumer_dir/consumer.c" $flags \
      >"$work/pc-build.log" 2>&1; then
      if out=$(LD_LIBRARY_PATH="$libdir" "$work/pc-consumer"); then
        echo "pc-consumer: $out"
        case $out in
        "cleave consumer OK "*) ;;
        *) fail "pc-consumer printed '$out'" ;;
        esac
      else
        fail "pc-consumer exited with an error"
      fi
    else
      cat "$work/pc-build.log" >&2
      fail "the pkg-config consumer did not build with: $flags"
    fi
    version=$(PKG_CONFIG_PATH="$pcdir" pkg-config --modversion cleave)
    header_version=$(sed -n 's/^#define CLEAVE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
      "$prefix/include/cleave.h" | paste -sd. -)
    [ "$version" = "$header_version" ] ||
      fail "cleave.pc says version $version, cleave.h says $header_version"
  else
    fail "pkg-config does not find cleave in $pcdir"
  fi
fi

# 3. Exports and SONAME of the installed shared library.
echo "== exported symbols of $so"
nm -D --defined-only "$so" >"$work/exports.txt"
# Columns: address, type, name (the address is absent for some absolute symbols).
awk '{ print $NF }' "$work/exports.txt" | sort >"$work/names.txt"
count=$(grep -c '^cleave_' "$work/names.txt" || true)
others=$(grep -v '^cleave_' "$work/names.txt" || true)
echo "$count cleave_ symbols exported"
if [ -n "$others" ]; then
  fail "exported symbols without the cleave_ prefix: $(echo "$others" | tr '\n' ' ')"
fi
[ "$count" -gt 0 ] || fail "no cleave_ symbol is exported"
for sym in cleave_run cleave_infer cleave_plan_create cleave_split cleave_status_name; do
  grep -qx "$sym" "$work/names.txt" || fail "$sym is not exported"
done

soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
echo "SONAME: $soname"
[ "$soname" = "$expected_soname" ] || fail "SONAME is '$soname', expected $expected_soname"
[ -e "$libdir/$expected_soname" ] || fail "$libdir/$expected_soname (the SONAME link) is missing"

# The static library must not put unprefixed global names into its users' programs.
echo "== global symbols defined by libcleave.a"
nm --defined-only -g "$libdir/libcleave.a" | awk 'NF == 3 { print $3 }' | sort -u \
  >"$work/static-names.txt"
static_others=$(grep -v '^cleave_' "$work/static-names.txt" || true)
if [ -n "$static_others" ]; then
  fail "libcleave.a defines globals without the cleave_ prefix: $(echo "$static_others" |
    tr '\n' ' ')"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "install test passed"
