#!/usr/bin/env bash
# pip_package.sh - `pip install` of trainlint: the sdist that scripts/pypackage/trainlint_build.py
# makes carries the pinned grammar tarballs, and pip installs it into a fresh virtual environment
# without the network (an npm that fails on PATH, --no-index), building the wheel with CMake; the
# installed `trainlint` is on the environment's PATH, finds what the build finds on examples/,
# and `pip uninstall` removes it.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
build=$(cd "$(dirname "$bin")" && pwd)
[ -d "$build/grammars" ] || build=$(cd "$src" && pwd)/build
mkdir -p "$tmp/tarballs" "$tmp/nonet" "$tmp/dist"
find "$build/grammars" -name '*.tgz' -exec cp {} "$tmp/tarballs/" \;
printf '#!/bin/sh\necho "npm: no network here" >&2\nexit 1\n' > "$tmp/nonet/npm" && chmod +x "$tmp/nonet/npm"

name=$(TRAINLINT_GRAMMAR_DIR="$tmp/tarballs" python3 -c '
import sys
sys.path.insert(0, sys.argv[1] + "/scripts/pypackage")
import trainlint_build
print(trainlint_build.build_sdist(sys.argv[2]))' "$src" "$tmp/dist" 2> "$tmp/sdist.err")
sdist="$tmp/dist/$name"
[ -f "$sdist" ] && ok || bad "no sdist: $(cat "$tmp/sdist.err")"
tar tzf "$sdist" > "$tmp/list" 2>/dev/null
[ "$(grep -c '^trainlint-0.1.0/grammars/dist/.*\.tgz$' "$tmp/list")" = 2 ] && grep -q '^trainlint-0.1.0/PKG-INFO$' "$tmp/list" &&
  grep -q '^trainlint-0.1.0/pyproject.toml$' "$tmp/list" && grep -q '^trainlint-0.1.0/src/main.c$' "$tmp/list" &&
  ! grep -q '^trainlint-0.1.0/build/' "$tmp/list" && ok || bad "sdist contents: $(head -20 "$tmp/list")"

python3 -m venv "$tmp/venv" > "$tmp/venv.out" 2>&1 && ok || bad "venv: $(cat "$tmp/venv.out")"
PATH="$tmp/nonet:$PATH" PIP_DISABLE_PIP_VERSION_CHECK=1 "$tmp/venv/bin/pip" install --no-index "$sdist" > "$tmp/pip.out" 2>&1 &&
  ok || bad "pip install: $(tail -20 "$tmp/pip.out")"
[ -x "$tmp/venv/bin/trainlint" ] && "$tmp/venv/bin/trainlint" --version | grep -q '^trainlint 0.1.0' && ok ||
  bad "no trainlint in the environment's bin: $(ls "$tmp/venv/bin")"
"$tmp/venv/bin/pip" show trainlint 2>/dev/null | grep -q '^License: MIT' && ok || bad "pip show: $("$tmp/venv/bin/pip" show trainlint 2>&1)"
n=$(PATH="$tmp/venv/bin:$PATH" trainlint check --exit-zero --format concise "$src/examples" 2>&1 | grep -c ' TL[0-9]')
want=$("$bin" check --exit-zero --format concise "$src/examples" 2>&1 | grep -c ' TL[0-9]')
[ "$n" -gt 0 ] && [ "$n" = "$want" ] && ok || bad "the installed trainlint found $n findings on examples/, the build $want"
"$tmp/venv/bin/pip" uninstall -y trainlint > /dev/null 2>&1 && [ ! -e "$tmp/venv/bin/trainlint" ] && ok ||
  bad "pip uninstall left $tmp/venv/bin/trainlint"
finish
