#!/usr/bin/env bash
# subbuild.sh SRC PARENT-BUILD DIR - configures and builds the clang sanitizer build (fuzz harnesses, trainlint_tsan) in DIR; exit 77 when clang cannot build them here.
set -u
src=$1 parent=$2 dir=$3
cc=${TRAINLINT_FUZZ_CC:-clang}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "SKIP: $cc not found: the fuzz and TSan tests need clang (scripts/setup.sh installs clang and libclang-rt-dev)"
  exit 77
fi
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n; }\n' > "$tmp/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" 2>"$tmp/err"; then
  echo "SKIP: $cc cannot link libFuzzer here (Debian: apt-get install libclang-rt-dev):"
  cat "$tmp/err"
  exit 77
fi
# The grammars the parent build fetched (npm pack, checked against their pins): no network needed.
mkdir -p "$dir/grammars"
[ -d "$parent/grammars" ] && cp -a "$parent/grammars/." "$dir/grammars/"
CC="$cc" cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINLINT_FUZZ=ON -DTRAINLINT_TSAN=ON \
  -DTRAINLINT_SANITIZERS=OFF -DTRAINLINT_CUDA=OFF >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; echo "FAIL: configuring $dir"; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$dir" -j"$jobs" --target fuzzers trainlint_tsan >"$tmp/build.log" 2>&1 ||
  { tail -60 "$tmp/build.log"; echo "FAIL: building $dir"; exit 1; }
echo "built: $(cd "$dir/tests/fuzz" && ls fuzz_* trainlint_tsan | tr '\n' ' ')"
