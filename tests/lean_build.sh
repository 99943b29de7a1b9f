#!/usr/bin/env bash
# lean_build.sh - the lean build path of the README: configure with -DTRAINLINT_TESTS=OFF (and
# the grammar tarballs of this build, offline), build, `cmake --install` into a prefix, and run the
# installed binary on examples/. Only the executable is built: no tests, benchmarks, sanitizer
# copy or fuzz harnesses.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
build=$(cd "$(dirname "$bin")" && pwd)
[ -d "$build/grammars" ] || build=$(cd "$src" && pwd)/build
mkdir -p "$tmp/tarballs"
find "$build/grammars" -name '*.tgz' -exec cp {} "$tmp/tarballs/" \;
cmake -S "$src" -B "$tmp/b" -DTRAINLINT_TESTS=OFF -DTRAINLINT_GRAMMAR_DIR="$tmp/tarballs" > "$tmp/c.out" 2>&1 &&
  ok || bad "configure: $(tail -5 "$tmp/c.out")"
cmake --build "$tmp/b" -j2 > "$tmp/m.out" 2>&1 && ok || bad "build: $(tail -5 "$tmp/m.out")"
# nothing but the analyzer: no test programs, no ASan copy, no CTest file
[ ! -e "$tmp/b/trainlint_asan" ] && [ ! -e "$tmp/b/CTestTestfile.cmake" ] && [ ! -d "$tmp/b/tests" ] &&
  ok || bad "a lean build made test artefacts: $(ls "$tmp/b")"
cmake --install "$tmp/b" --prefix "$tmp/prefix" > "$tmp/i.out" 2>&1 && [ -x "$tmp/prefix/bin/trainlint" ] &&
  [ -f "$tmp/prefix/share/doc/trainlint/LICENSE" ] && ok || bad "install: $(tail -5 "$tmp/i.out")"
"$tmp/prefix/bin/trainlint" --version | grep -q '^trainlint ' && ok || bad "the installed binary has no version"
"$tmp/prefix/bin/trainlint" check --exit-zero --format concise "$src/examples" > "$tmp/out" 2>&1
n=$(grep -c ' TL[0-9]' "$tmp/out")
want=$("$bin" check --exit-zero --format concise "$src/examples" 2>&1 | grep -c ' TL[0-9]')
[ "$n" -gt 0 ] && [ "$n" = "$want" ] && ok || bad "the installed binary found $n findings on examples/, the build $want"
finish
