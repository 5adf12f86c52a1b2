#!/bin/sh
# Installs the real llama.cpp the gguf.llama test (tests/gguf/test_gguf_llama.py) runs, into a
# cache folder outside the repository, once: node-llama-cpp at one pinned version, whose
# optional package @node-llama-cpp/linux-x64 holds llama.cpp built for linux-x64 (CPU) as
# shared libraries and a Node addon, so that it loads and runs GGUF models offline; and
# llama-gguf-split, built from the llama.cpp source the package ships (llama/gitRelease.bundle,
# the commit of those libraries) against those libraries (CMakeLists.txt beside this file).
#
#   sh tests/gguf/llama/setup.sh        (.ci/deps runs it, and so does the test)
#
# It prints the folder on stdout when the client is there.
# The folder: $CLEAVE_LLAMA_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/cleave/node-llama-cpp-VERSION.
# It holds npm/ (the packages), llama.cpp/ (the source files gguf-split needs, and llama.cpp's
# converter convert_hf_to_gguf.py with its conversion/ and gguf-py/ packages, which the convert tests run), build/
# (llama-gguf-split) and `ready`, written last: when it is there, nothing is done (about 40 s
# and 90 MB from the npm registry otherwise). Needs node >= 20 and npm, git, cmake and g++.
#
# npm installs with --ignore-scripts and --omit=optional, the linux-x64 package named as a
# dependency of its own: node-llama-cpp's postinstall would otherwise look for binaries to
# download or build, and npm would fetch every other linux-x64 build (CUDA, Vulkan) as optional
# dependencies. The test loads the package with getLlama({gpu: false, build: "never"}), which
# takes the prebuilt libraries and never downloads or builds anything.
set -eu
version=3.21.1
here=$(cd "$(dirname "$0")" && pwd)
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
dir=${CLEAVE_LLAMA_DIR:-${XDG_CACHE_HOME:-$home/.cache}/cleave/node-llama-cpp-$version}
# The converter and gguf-py, taken from the clone of the bundle (a folder made before they were
# part of it gets them here, without installing anything again).
converter_files="convert_hf_to_gguf.py conversion gguf-py"
add_converter() {
  # shellcheck disable=SC2086
  git -C "$dir/llama.cpp" -c advice.detachedHead=false checkout --quiet HEAD -- $converter_files
}
if [ -f "$dir/ready" ]; then
  [ -d "$dir/llama.cpp/conversion" ] || add_converter
  echo "$dir"
  exit 0
fi

for tool in node npm git cmake c++; do
  command -v "$tool" >/dev/null || {
    echo "setup.sh: $tool is missing (node >= 20 with npm, git, cmake and g++ are needed)" >&2
    exit 1
  }
done
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || {
  echo "setup.sh: node-llama-cpp $version needs node >= 20; this is $(node --version)" >&2
  exit 1
}

mkdir -p "$dir"
# One install at a time (two test runs, or .ci/deps and a test).
exec 9>"$dir/.lock"
flock 9
if [ -f "$dir/ready" ]; then
  [ -d "$dir/llama.cpp/conversion" ] || add_converter
  echo "$dir"
  exit 0
fi
rm -rf "$dir/npm" "$dir/llama.cpp" "$dir/build"
mkdir -p "$dir/npm"
cat >"$dir/npm/package.json" <<JSON
{
  "private": true,
  "description": "the llama.cpp of cleave's gguf.llama test (tests/gguf/llama/setup.sh)",
  "dependencies": {
    "node-llama-cpp": "$version",
    "@node-llama-cpp/linux-x64": "$version"
  }
}
JSON
echo "setup.sh: installing node-llama-cpp $version into $dir/npm" >&2
(cd "$dir/npm" && npm install --ignore-scripts --omit=optional --no-audit --no-fund \
  --no-update-notifier --loglevel=error >&2)
package="$dir/npm/node_modules/node-llama-cpp"
bins="$dir/npm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64"
[ -f "$package/llama/gitRelease.bundle" ] && [ -d "$bins" ] || {
  echo "setup.sh: the packages lack llama/gitRelease.bundle or bins/linux-x64" >&2
  exit 1
}

echo "setup.sh: building llama-gguf-split from the package's llama.cpp source" >&2
git clone --quiet --no-checkout "$package/llama/gitRelease.bundle" "$dir/llama.cpp"
git -C "$dir/llama.cpp" -c advice.detachedHead=false checkout --quiet HEAD -- \
  include ggml/include common tools/gguf-split
add_converter
cmake -S "$here" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release \
  -DLLAMA_SOURCE="$dir/llama.cpp" -DLLAMA_LIBRARIES="$bins" >/dev/null
cmake --build "$dir/build" >/dev/null
"$dir/build/llama-gguf-split" --version >/dev/null 2>&1 || {
  echo "setup.sh: $dir/build/llama-gguf-split does not run" >&2
  exit 1
}
git -C "$dir/llama.cpp" rev-parse HEAD >"$dir/ready"
echo "setup.sh: ready in $dir" >&2
echo "$dir"
