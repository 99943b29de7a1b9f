#!/usr/bin/env bash
# pre_commit_python.sh - the `trainlint` pre-commit hook (`language: python`): pre-commit installs
# trainlint from the hook repository (a clone of this one) into its own environment, where pip
# builds it with CMake (offline: the build's grammar tarballs through TRAINLINT_GRAMMAR_DIR, and an
# npm that fails), and runs it on the staged files: findings fail the commit, a clean file passes.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
command -v pre-commit >/dev/null || { echo "FAIL: pre-commit is not installed (scripts/setup.sh installs it)"; echo "0 passed, 1 failed"; exit 1; }
build=$(cd "$(dirname "$bin")" && pwd)
[ -d "$build/grammars" ] || build=$(cd "$src" && pwd)/build
mkdir -p "$tmp/tarballs" "$tmp/nonet" "$tmp/proj"
find "$build/grammars" -name '*.tgz' -exec cp {} "$tmp/tarballs/" \;
printf '#!/bin/sh\necho "npm: no network here" >&2\nexit 1\n' > "$tmp/nonet/npm" && chmod +x "$tmp/nonet/npm"
export PATH="$tmp/nonet:$PATH" PRE_COMMIT_HOME="$tmp/cache" TRAINLINT_GRAMMAR_DIR="$tmp/tarballs" PIP_NO_INDEX=1 \
  GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
# the hook repository: this checkout as committed (what a `rev` names)
git clone -q "$src" "$tmp/hookrepo" 2> "$tmp/clone.err" && ok || bad "clone: $(cat "$tmp/clone.err")"
cd "$tmp/proj" && git init -q .
cp "$src/examples/train.py" . && git add train.py
out=$(pre-commit try-repo "$tmp/hookrepo" trainlint 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q 'train.py:80:29: TL101' && ok || bad "staged file with findings: exit $rc: $(echo "$out" | tail -20)"
# the hook ran the trainlint pre-commit installed in its environment: there is none on PATH
! command -v trainlint > /dev/null && ok || bad "a trainlint on PATH: $(command -v trainlint)"
printf 'import torch\n\ndef f(x):\n    return x + 1\n' > train.py && git add train.py
out=$(pre-commit try-repo "$tmp/hookrepo" trainlint 2>&1); rc=$?
[ "$rc" = 0 ] && ok || bad "clean staged file: exit $rc: $(echo "$out" | tail -20)"
finish
