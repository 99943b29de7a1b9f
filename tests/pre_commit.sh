#!/usr/bin/env bash
# pre_commit.sh - the pre-commit hook runs trainlint on staged Python files, fails on findings,
# and does not run (nor crash) when no Python file is staged (TorchFix #63); staged files are
# analysed with the rest of their project as context, and only they are reported.
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
out=$(pre-commit try-repo "$tmp/hookrepo" trainlint-system 2>&1); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q 'no files to check' && ok || bad "no Python file staged: exit $rc: $out"
cp "$src/examples/train.py" . && git add train.py
out=$(pre-commit try-repo "$tmp/hookrepo" trainlint-system 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q 'train.py:80:29: TL101' && ok || bad "staged file with findings: exit $rc: $out"
printf 'import torch\n\ndef f(x):\n    return x + 1\n' > train.py && git add train.py
out=$(pre-commit try-repo "$tmp/hookrepo" trainlint-system 2>&1); rc=$?
[ "$rc" = 0 ] && ok || bad "clean staged file: exit $rc: $out"

# Staged files only: the rest of their project is the context, not reported. A train.py that uses
# autocast (not staged) means no TL601 on a staged loop of its program (loop.py imports its helpers); a staged helper is hot through its caller
# in train.py; --fix writes only the staged file; a broken unstaged file is not the user's error.
mkdir -p "$tmp/ctx" && cd "$tmp/ctx" && git init -q .
cat > train.py <<'PY'
import torch
from helpers import log_stats

model = torch.nn.Linear(4, 4).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
    loss.backward()
    opt.step()
    opt.zero_grad()
    log_stats(loss)
    total += loss
PY
printf 'def log_stats(loss):\n    print(loss.item())\n' > helpers.py
printf 'import torch\nfrom helpers import log_stats\ntotal = 0\nfor x in loader:\n    out = model(x.cuda()).sum()\n    out.backward()\n    opt.step()\n    total += out\n' > loop.py
printf 'x = (\n' > broken.py
cp train.py train.orig
"$bin" check --format concise --no-source helpers.py > out 2>err; rc=$?
[ "$rc" = 1 ] && [ "$(cat out)" = "helpers.py:2:11: TL101 warning: \`loss.item()\` copies a device value to the host and waits for the GPU to finish all queued work" ] && [ ! -s err ] &&
  ok || bad "staged helper, hot through train.py: exit $rc: $(cat out err)"
"$bin" check --format concise --no-source loop.py > out 2>err; rc=$?
! grep -q TL601 out && grep -q '^loop.py:8:5: TL701' out && [ ! -s err ] && ok || bad "staged loop beside an autocast train.py: exit $rc: $(cat out err)"
"$bin" check --fix --unsafe-fixes --exit-zero loop.py > out 2>&1; rc=$?
cmp -s train.py train.orig && grep -q 'total += out.detach()' loop.py && ok || bad "--fix on a staged file touched its context: $(cat out)"
# a staged helper in a package, imported by its module name from an unstaged train.py: the context's
# paths are spelled from the current directory like the staged file's, so the import finds it
mkdir -p "$tmp/pkgctx/pkg" && cd "$tmp/pkgctx" && git init -q .
printf 'from pkg.util import log_stats
for x in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    opt.step()
    log_stats(loss)
' > train.py
: > pkg/__init__.py && cp "$tmp/ctx/helpers.py" pkg/util.py
"$bin" check --format text --no-cache pkg/util.py > out 2>err; rc=$?
[ "$rc" = 1 ] && grep -q '^pkg/util.py:2:11: TL101' out && grep -q 'called from the step loop at train.py:2' out && ok ||
  bad "staged helper in a package, hot through train.py: exit $rc: $(cat out err)"
# a "project" of more than 20,000 Python files (a home directory under git) is no context
mkdir -p "$tmp/home/many" && cd "$tmp/home" && git init -q .
python3 -c "
import os
for i in range(20001): open(os.path.join('many', 'm%d.py' % i), 'w').close()"
cp "$tmp/ctx/helpers.py" h.py && printf 'for x in loader:\n    print(model(x.cuda()).sum().item())\n' > t.py
"$bin" check --format concise --no-source t.py > out 2>err; rc=$?
[ "$rc" = 1 ] && grep -q '^t.py:2:11: TL101' out && grep -q 'holds 20003 Python files (over 20000): analysed without it' err && ok ||
  bad "a huge project around a given file: exit $rc: $(cat out err)"
finish
