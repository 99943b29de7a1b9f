#!/usr/bin/env bash
# unused_suppressions.sh - TL001 (unused-suppression, ruff's RUF100) from the command line: opt-in,
# enabled by --select/--extend-select TL001 or the --report-unused-suppressions shortcut, ignored
# like any code, in the JSON report with its fix, and what --diff and --fix make of each form:
# a bare `# noqa`, a list with one unused code, `# trainlint: ignore[...]`, `ignore-file[...]`,
# a comment on a line of its own, one with another comment after it, and a used one (untouched).
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
mkdir -p "$tmp/p"
cat > "$tmp/p/train.py" <<'PY'
import torch


def train(model, loader, opt):
    step = 0
    for batch in loader:
        loss = model(batch.cuda())
        loss.backward()
        opt.step()
        a = loss.item()  # noqa
        step += 1  # noqa
        c = loss.item()  # noqa: TL101, TL205
        d = step + 1  # noqa: TL101  # type: ignore
        e = step + 2  # trainlint: ignore[TL101]
        # noqa: TL205
        f = loss.item()  # noqa: TL101
    return a, c, d, e, f


SCALER = torch.cuda.amp.GradScaler()
PY
cat > "$tmp/p/other.py" <<'PY'
# trainlint: ignore-file[TL201]
import torch
x = torch.ones(3)
PY
cp "$tmp/p/train.py" "$tmp/train.orig"
run() { (cd "$tmp/p" && "$bin" check -n --no-source --format concise "$@" . 2>&1); }

# off by default: no TL001, and the used suppressions still hold
out=$(run); rc=$?
[ "$rc" = 0 ] && [ -z "$(echo "$out" | grep TL001)" ] && ok || bad "TL001 is on by default (exit $rc): $out"

# the shortcut, --select and --extend-select report the same five comments
want='train.py:11:22: TL001 [*] warning: unused suppression: no finding here
train.py:12:28: TL001 [*] warning: unused suppression: no TL205 finding here
train.py:13:25: TL001 [*] warning: unused suppression: no TL101 finding here
train.py:14:25: TL001 [*] warning: unused suppression: no TL101 finding here
train.py:15:11: TL001 [*] warning: unused suppression: no TL205 finding here
other.py:1:3: TL001 [*] warning: unused suppression: no TL201 finding in this file'
for opt in --report-unused-suppressions "--extend-select TL001" "--extend-select=tl001"; do
  # shellcheck disable=SC2086
  out=$(run $opt); rc=$?
  got=$(echo "$out" | grep ': TL001 ' | sort)
  [ "$rc" = 1 ] && [ "$got" = "$(echo "$want" | sort)" ] && ok || bad "$opt (exit $rc): $out"
done
# a prefix does not select an opt-in rule; ALL does
out=$(run --extend-select TL0)
echo "$out" | grep -q TL001 && bad "--extend-select TL0 enabled the opt-in TL001" || ok
out=$(run --select ALL)
[ "$(echo "$out" | grep -c ': TL001 ')" = 6 ] && ok || bad "--select ALL: $out"
# ignored like any code, also with the shortcut
out=$(run --report-unused-suppressions --ignore TL001); rc=$?
[ "$rc" = 0 ] && ! echo "$out" | grep -q TL001 && ok || bad "--ignore TL001 (exit $rc): $out"
# and by a comment naming it, or per file in the configuration
sed 's/step += 1  # noqa$/step += 1  # noqa: TL001/' "$tmp/p/train.py" > "$tmp/p/t2.py"
out=$(cd "$tmp/p" && "$bin" check -n --format concise --report-unused-suppressions t2.py 2>&1)
echo "$out" | grep -q 't2.py:11:' && bad "a comment naming TL001 is reported" || ok
rm "$tmp/p/t2.py"

# JSON: the code, the rule's name, the fix with its safety
json=$(cd "$tmp/p" && "$bin" check -n --format json --report-unused-suppressions . 2>/dev/null)
echo "$json" | python3 -c '
import json, sys
tl001 = [f for f in json.load(sys.stdin)["findings"] if f["code"] == "TL001"]
assert len(tl001) == 6, len(tl001)
f = [f for f in tl001 if f["path"] == "train.py" and f["line"] == 12][0]
assert f["name"] == "unused-suppression" and f["severity"] == "warning", f
assert f["message"] == "unused suppression: no TL205 finding here", f
assert (f["column"], f["end_line"], f["end_column"]) == (28, 12, 46), f
assert f["fix"]["applicability"] == "safe" and len(f["fix"]["edits"]) == 1, f
assert f["fix"]["edits"][0]["content"] == " TL101", f
' && ok || bad "JSON report of TL001: $(echo "$json" | head -c 600)"

# --diff shows the fixes and changes nothing; --fix applies them, only to the comments
diff=$(cd "$tmp/p" && "$bin" check -n --diff --report-unused-suppressions . 2>/dev/null)
cmp -s "$tmp/p/train.py" "$tmp/train.orig" && ok || bad "--diff changed train.py"
echo "$diff" | grep -qx -- '-        c = loss.item()  # noqa: TL101, TL205' && echo "$diff" | grep -qx -- '+        c = loss.item()  # noqa: TL101' && ok || bad "--diff: $diff"
(cd "$tmp/p" && "$bin" check -n --fix --report-unused-suppressions . >/dev/null 2>&1)
cat > "$tmp/want.py" <<'PY'
import torch


def train(model, loader, opt):
    step = 0
    for batch in loader:
        loss = model(batch.cuda())
        loss.backward()
        opt.step()
        a = loss.item()  # noqa
        step += 1
        c = loss.item()  # noqa: TL101
        d = step + 1  # type: ignore
        e = step + 2
        f = loss.item()  # noqa: TL101
    return a, c, d, e, f


SCALER = torch.cuda.amp.GradScaler()
PY
diff -u "$tmp/want.py" "$tmp/p/train.py" && ok || bad "--fix made the diff above"
printf 'import torch\nx = torch.ones(3)\n' | diff -u - "$tmp/p/other.py" && ok || bad "--fix on ignore-file"
out=$(run --report-unused-suppressions); rc=$?
[ "$rc" = 0 ] && ok || bad "findings after --fix (exit $rc): $out"

# listed and explained like the other rules, without a measured cost
"$bin" rules --all | grep -Eq '^TL001 +unused-suppression +warning +fix +off \(opt-in\)' && ok || bad "rules --all: $("$bin" rules --all | grep TL001)"
out=$("$bin" explain TL001); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q '^## What it does' && ! echo "$out" | grep -q 'Measured cost\|## Query' && ok || bad "explain TL001 (exit $rc): $out"
# a rule file names an engine check the engine has, and then has no query block
mkdir -p "$tmp/r1" "$tmp/r2"
printf -- '---\ncode: TL901\nname: x\nmessage: m\ncheck: unused-suppressions\n---\n# TL901: x\n```query\n(call) @finding\n```\n' > "$tmp/r1/TL901-x.md"
out=$("$bin" rules --rules "$tmp/r1" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q 'TL901-x.md:8:1: error: a rule with a `check` of the engine has no ```query block' && ok || bad "check with a query (exit $rc): $out"
printf -- '---\ncode: TL902\nname: y\nmessage: m\ncheck: typos\n---\n# TL902: y\n' > "$tmp/r2/TL902-y.md"
out=$("$bin" rules --rules "$tmp/r2" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q 'TL902-y.md:5:8: error: check must be query or unused-suppressions' && ok || bad "unknown check (exit $rc): $out"
finish
