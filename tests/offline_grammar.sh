#!/usr/bin/env bash
# offline_grammar.sh - configuring a fresh build directory without the network: with
# -DTRAINLINT_GRAMMAR_DIR=DIR holding the grammar tarballs downloaded before, cmake takes them
# (checked against grammars/*.pin) and never runs npm; a tarball that is not the pinned one is
# refused with the integrity it has.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
build=$(cd "$(dirname "$bin")" && pwd)
# the build directory of a sanitizer copy holds no grammars of its own: the main build's do
[ -d "$build/grammars" ] || build=$(cd "$src" && pwd)/build
mkdir -p "$tmp/tarballs" "$tmp/nonet"
find "$build/grammars" -name '*.tgz' -exec cp {} "$tmp/tarballs/" \;
[ "$(ls "$tmp/tarballs" | wc -l)" = 2 ] && ok || bad "expected the two grammar tarballs in $build/grammars"
# an npm that fails: the configure must not need it
printf '#!/bin/sh\necho "npm: no network here" >&2\nexit 1\n' > "$tmp/nonet/npm" && chmod +x "$tmp/nonet/npm"
PATH="$tmp/nonet:$PATH" cmake -S "$src" -B "$tmp/b1" -DTRAINLINT_GRAMMAR_DIR="$tmp/tarballs" -DTRAINLINT_SANITIZERS=OFF \
  -DTRAINLINT_CUDA=OFF > "$tmp/c1.out" 2>&1; rc=$?
[ "$rc" = 0 ] && [ "$(grep -c '^-- Using tree-sitter' "$tmp/c1.out")" -ge 1 ] && grep -q 'Using @tree-sitter-grammars/tree-sitter-toml' "$tmp/c1.out" &&
  ! grep -q 'Fetching' "$tmp/c1.out" && ok || bad "offline configure: exit $rc: $(tail -5 "$tmp/c1.out")"
# a tarball that is not the pinned one
py=$(ls "$tmp/tarballs" | grep python)
printf 'not the grammar' >> "$tmp/tarballs/$py"
PATH="$tmp/nonet:$PATH" cmake -S "$src" -B "$tmp/b2" -DTRAINLINT_GRAMMAR_DIR="$tmp/tarballs" -DTRAINLINT_SANITIZERS=OFF \
  -DTRAINLINT_CUDA=OFF > "$tmp/c2.out" 2>&1; rc=$?
# (cmake wraps its messages: the name and the words may fall on two lines)
[ "$rc" != 0 ] && grep -q "$py" "$tmp/c2.out" && grep -q "integrity" "$tmp/c2.out" && grep -q "mismatch" "$tmp/c2.out" && ! grep -q 'Fetching' "$tmp/c2.out" &&
  ok || bad "altered tarball: exit $rc: $(tail -5 "$tmp/c2.out")"
finish
