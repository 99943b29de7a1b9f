#!/usr/bin/env bash
# add_noqa.sh - `check --add-noqa` writes suppressions that work: merged into the line's comment,
# not fooled by `#` in a string; the file checks clean afterwards.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
cd "$tmp" || exit 1
cat > train.py <<'PY'
import torch


def train(model, loader, opt):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        opt.step()
        a = loss.item()  # trainlint: ignore[TL204]
        b = loss.item()  # noqa: TL204 the loss is tiny
        c = loss.item(); print("# noqa")
        d = loss.item(); print("# noqa: TL204")
        e = loss.item()   
PY
"$bin" check --select TL101 --format concise . 2>/dev/null | grep -c ': TL101' > before
[ "$(cat before)" = 5 ] && ok || bad "expected 5 TL101 findings before, got $(cat before)"
"$bin" check --select TL101 --add-noqa . > out 2>&1; rc=$?
[ "$rc" = 0 ] && ok || bad "--add-noqa exit $rc: $(cat out)"
grep -q '^Added 5 noqa comments\.$' out && ok || bad "wrong count: $(cat out)"
want() { grep -qxF "$1" train.py && ok || bad "want line: $1"; }
want '        a = loss.item()  # trainlint: ignore[TL204, TL101]'
want '        b = loss.item()  # noqa: TL204, TL101 the loss is tiny'
want '        c = loss.item(); print("# noqa")  # noqa: TL101'
want '        d = loss.item(); print("# noqa: TL204")  # noqa: TL101'
want '        e = loss.item()  # noqa: TL101'
out=$("$bin" check --select TL101 --format concise . 2>&1); rc=$?
[ "$rc" = 0 ] && ok || bad "findings remain after --add-noqa (exit $rc): $out"
# a second run has nothing to add
"$bin" check --select TL101 --add-noqa . > out 2>&1
grep -q '^Added 0 noqa comments\.$' out && ok || bad "second run: $(cat out)"
finish
