#!/bin/sh
# The two install routes of the Python package, from outside the source tree:
#   cmake <build-dir> <work-dir> <python>: `cmake --install` into a fresh prefix, then import from
#       the package folder the build chose (CLEAVE_PYTHON_INSTALL_DIR under the prefix);
#   pip <source-dir> <work-dir> <python>: the README's pip route in a venv made with
#       --system-site-packages, from a copy of the files a source checkout has.
# Each ends by running the README's one-line check and comparing its output.
set -eu
route=$1 from=$2 work=$3 python=$4
expected='(array([0, 1]), array([2, 3]), array([4, 5]))'
rm -rf "$work"
mkdir -p "$work"
check() { # $1: the interpreter, with the environment set by the caller
  out=$(cd "$work" && "$@" -c "import cleave; print(cleave.split(__import__('numpy').arange(6), 3))")
  [ "$out" = "$expected" ] || { echo "unexpected output: $out" >&2; exit 1; }
  where=$(cd "$work" && "$@" -c "import cleave; print(cleave.__file__)")
  case "$where" in "$work"/*) ;; *) echo "cleave imported from $where, not the install" >&2; exit 1;; esac
  echo "ok: $where"
}
case "$route" in
cmake)
  cmake --install "$from" --prefix "$work/prefix" >/dev/null
  dir=$(sed -n 's/^CLEAVE_PYTHON_INSTALL_DIR:PATH=//p' "$from/CMakeCache.txt")
  PYTHONPATH="$work/prefix/$dir" check "$python"
  ;;
pip)
  mkdir "$work/src"
  for f in CMakeLists.txt README.md pyproject.toml setup.py src include cmake python; do
    cp -R "$from/$f" "$work/src/"
  done
  rm -rf "$work/src/python/cleave.egg-info"
  "$python" -m venv --system-site-packages "$work/venv"
  "$work/venv/bin/python" -m pip install --no-build-isolation --no-index "$work/src" >"$work/pip.log" 2>&1 ||
    { cat "$work/pip.log" >&2; exit 1; }
  check "$work/venv/bin/python"
  ;;
*)
  echo "usage: $0 cmake|pip FROM WORK PYTHON" >&2
  exit 2
  ;;
esac
