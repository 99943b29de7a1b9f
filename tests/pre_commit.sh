#!/usr/bin/env bash
# pre_commit.sh - the pre-commit hook runs trainlint on staged Python files, fails on findings,
# and does not run (nor crash) when no Python file is staged (TorchFix #63).
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
command -v pre-commit >/dev/null || { echo "FAIL: pre-commit is not installed (scripts/setup.sh installs it)"; echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$tmp/bin" "$tmp/hookrepo" "$tmp/proj"
ln -s "$bin" "$tmp/bin/trainlint"
export PATH="$tmp/bin:$PATH" PRE_COMMIT_HOME="$tmp/cache" GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
# a repository holding just the hook definition
cp "$src/.pre-commit-hooks.yaml" "$tmp/hookrepo/" && ( cd "$tmp/hookrepo" && git init -q . && git add . && git commit -qm hooks )
cd "$tmp/proj" && git init -q .
echo "# notes" > README.md && git add README.md
out=$(pre-commit try-repo "$tmp/hookrepo" trainlint 2>&1); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q 'no files to check' && ok || bad "no Python file staged: exit $rc: $out"
cp "$src/examples/train.py" . && git add train.py
out=$(pre-commit try-repo "$tmp/hookrepo" trainlint 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q 'train.py:80:29: TL101' && ok || bad "staged file with findings: exit $rc: $out"
printf 'import torch\n\ndef f(x):\n    return x + 1\n' > train.py && git add train.py
out=$(pre-commit try-repo "$tmp/hookrepo" trainlint 2>&1); rc=$?
[ "$rc" = 0 ] && ok || bad "clean staged file: exit $rc: $out"
finish
