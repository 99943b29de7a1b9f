#!/usr/bin/env bash
# config.sh - pyproject.toml [tool.trainlint]: found by walking up (nearest wins), every key,
# command-line flags over the file, `trainlint config`, and located errors with exit 2.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
codes() { "$bin" check --format concise --no-source "$@" 2>/dev/null | sed -E 's/^([^:]+):([0-9]+):[0-9]+: (TL[0-9]+).*/\1:\2:\3/' | sort | tr '\n' ' '; }

mkdir -p "$tmp/p/sub" "$tmp/p/gen" "$tmp/p/tests"
cp "$src/examples/"*.py "$tmp/p/"
cp "$src/examples/model.py" "$tmp/p/sub/model.py"
cp "$src/examples/model.py" "$tmp/p/gen/model.py"
cp "$src/examples/model.py" "$tmp/p/tests/test_model.py"
cd "$tmp/p"
base=$(codes .)
echo "$base" | grep -q 'sub/model.py:17:TL102' && echo "$base" | grep -q 'gen/model.py' && ok || bad "baseline run: $base"

cat > pyproject.toml <<'TOML'
[project]
name = "demo"

[tool.trainlint]
ignore = ["TL2"]             # no input-pipeline rules
extend-exclude = ["gen"]
per-file-ignores = { "tests/*" = ["TL301"] }

[tool.trainlint.severity]
TL102 = "error"
TOML
out=$(codes .)
echo "$out" | grep -q 'TL2' && bad "ignore TL2 not applied: $out" || ok
echo "$out" | grep -q 'gen/' && bad "extend-exclude not applied" || ok
echo "$out" | grep -q 'tests/test_model.py:20:TL301' && bad "per-file-ignores not applied" || ok
echo "$out" | grep -q 'tests/test_model.py:17:TL102' && ok || bad "per-file-ignores removed too much: $out"
"$bin" check --format json . 2>/dev/null | grep -A3 '"TL102"' | grep -q '"severity":.*"error"' && ok || bad "severity override"
# per-file-ignores keys are gitignore-style, as exclude's: a directory by name, with or without the
# slash, a file name glob, an anchored glob; a name that matches nothing leaves the finding
cp pyproject.toml pyproject.keep
for key in tests tests/ 'test_*.py' '/tests/*' 'tests/**' nothing/ 'model.py'; do
  sed -i "s|^per-file-ignores = .*|per-file-ignores = { \"$key\" = [\"TL301\"] }|" pyproject.toml
  out=$(codes .)
  case $key in
    nothing/|model.py) echo "$out" | grep -q 'tests/test_model.py:20:TL301' && ok || bad "per-file-ignores \"$key\" hid tests/test_model.py: $out" ;;
    *) echo "$out" | grep -q 'tests/test_model.py:20:TL301' && bad "per-file-ignores \"$key\" not applied: $out" || ok ;;
  esac
done
sed -i "s|^per-file-ignores = .*|per-file-ignores = { \"model.py\" = [\"TL301\"] }|" pyproject.toml
codes . | grep -q ' model.py:[0-9]*:TL301\|^model.py:[0-9]*:TL301\|sub/model.py:[0-9]*:TL301' && bad "per-file-ignores model.py not applied to model.py by name" || ok
mv pyproject.keep pyproject.toml
# the command line wins: --select replaces select, --ignore adds
out=$(codes --select TL204 .)
[ "$out" = "data.py:38:TL204 data.py:40:TL204 " ] && ok || bad "--select over the file: $out"
# the nearest configuration wins
printf '[tool.trainlint]\nselect = ["TL301"]\n' > sub/pyproject.toml
out=$(codes sub/model.py)
[ "$out" = "sub/model.py:20:TL301 " ] && ok || bad "nearest config: $out"
out=$(codes model.py)
echo "$out" | grep -q 'TL102' && ok || bad "the parent config still governs the parent: $out"
# a pyproject.toml without [tool.trainlint] is skipped on the way up
printf '[project]\nname = "x"\n' > sub/pyproject.toml
out=$(codes sub/model.py)
echo "$out" | grep -q 'TL102' && echo "$out" | grep -q 'TL301' && ok || bad "config without the table: $out"
rm sub/pyproject.toml
# hot-functions and step-loop-iterables
cat > hooks.py <<'PY'
def on_batch_end(stats, loss):
    stats.append(loss.item())

def run(model, batches, opt):
    for b in batches:
        out = b.cuda().sum()
        print(out.item())
PY
[ -z "$(codes hooks.py)" ] && ok || bad "hooks.py hot without configuration"
cat >> pyproject.toml <<'TOML'

[tool.trainlint.extra]
TOML
sed -i '/\[tool.trainlint.extra\]/d' pyproject.toml
sed -i 's/^ignore = \["TL2"\].*/ignore = ["TL2"]\nhot-functions = ["on_batch_end"]\nstep-loop-iterables = ["batches"]\nframeworks = ["torch", "paddle"]/' pyproject.toml
out=$(codes hooks.py)
[ "$out" = "hooks.py:2:TL101 hooks.py:7:TL101 " ] && ok || bad "hot-functions / step-loop-iterables: $out"
"$bin" check hooks.py 2>/dev/null | grep -q 'configured as per-step code (hot-functions)' && ok || bad "hot-functions reason"
# frameworks: only the listed frameworks' APIs are recognised
mkdir -p "$tmp/fw" && printf 'import paddle\nloader = paddle.io.DataLoader(ds, num_workers=0)\n' > "$tmp/fw/p.py"
( cd "$tmp/fw" && "$bin" check --format concise . 2>/dev/null ) | grep -q 'TL201' && ok || bad "paddle DataLoader not found by default"
printf '[tool.trainlint]\nframeworks = ["torch"]\n' > "$tmp/fw/pyproject.toml"
( cd "$tmp/fw" && "$bin" check --format concise . 2>/dev/null ) | grep -q 'TL201' && bad "frameworks = [torch] still matched paddle" || ok
printf '[tool.trainlint]\nframeworks = ["paddle"]\n' > "$tmp/fw/pyproject.toml"
( cd "$tmp/fw" && "$bin" check --format concise . 2>/dev/null ) | grep -q 'TL201' && ok || bad "frameworks = [paddle] lost the paddle finding"
# --config FILE for everything
printf '[tool.trainlint]\nselect = ["TL301"]\n' > "$tmp/other.toml"
out=$(codes --config "$tmp/other.toml" .)
echo "$out" | grep -v -q 'TL301' && bad "--config: $out" || ok
# trainlint config
cfg=$("$bin" config tests/test_model.py)
echo "$cfg" | grep -q "config = \"$tmp/p/pyproject.toml\"" && echo "$cfg" | grep -q '^TL301 .* off$' && echo "$cfg" | grep -q '^TL102 .*error .* on$' && ok || bad "trainlint config: $cfg"
# errors: invalid TOML, unknown key, wrong type -> file:line:col, exit 2
printf '[tool.trainlint]\nselect = ["TL1"\n' > pyproject.toml
"$bin" check . >/dev/null 2>"$tmp/e1"; rc=$?
[ "$rc" = 2 ] && grep -qE 'pyproject.toml:[0-9]+:[0-9]+: error: invalid TOML' "$tmp/e1" && ok || bad "invalid TOML: $rc $(cat "$tmp/e1")"
printf '[tool.trainlint]\nselect = ["TL1"]\nselct = ["TL2"]\n' > pyproject.toml
"$bin" check . >/dev/null 2>"$tmp/e2"; rc=$?
[ "$rc" = 2 ] && grep -q 'pyproject.toml:3:1: error: unknown key `selct`' "$tmp/e2" && ok || bad "unknown key: $rc $(cat "$tmp/e2")"
printf '[tool.trainlint]\nignore = "TL1"\n' > pyproject.toml
"$bin" check . >/dev/null 2>"$tmp/e3"; rc=$?
[ "$rc" = 2 ] && grep -q 'pyproject.toml:2:10: error: `ignore` must be an array of strings' "$tmp/e3" && ok || bad "wrong type: $rc $(cat "$tmp/e3")"
printf '[tool.trainlint]\nselect = ["TL1-01"]\n' > pyproject.toml
"$bin" check . >/dev/null 2>"$tmp/e4"; rc=$?
[ "$rc" = 2 ] && grep -q 'pyproject.toml:2:11: error: `TL1-01`: not a rule code' "$tmp/e4" && ok || bad "bad code: $rc $(cat "$tmp/e4")"
# a code that names no rule: located, exit 2 (it would select or ignore nothing, silently)
printf '[tool.trainlint]\nselect = ["TL101",\n  "TL999"]\n[tool.trainlint.per-file-ignores]\n"a.py" = ["TL1O1"]\n' > pyproject.toml
"$bin" check . >/dev/null 2>"$tmp/e4"; rc=$?
[ "$rc" = 2 ] && grep -q "pyproject.toml:3:3: error: \`select\`: no rule has the code or prefix 'TL999'" "$tmp/e4" &&
  grep -q "pyproject.toml:5:11: error: \`per-file-ignores\`: no rule has the code or prefix 'TL1O1'" "$tmp/e4" && ok ||
  bad "unknown codes: $rc $(cat "$tmp/e4")"
# codes are case-insensitive
printf '[tool.trainlint]\nselect = ["tl101"]\n' > pyproject.toml
"$bin" check --format concise --no-source . >"$tmp/o5" 2>"$tmp/e5"; rc=$?
printf '[tool.trainlint]\nselect = ["TL101"]\n' > pyproject.toml
"$bin" check --format concise --no-source . >"$tmp/o6" 2>&1
[ ! -s "$tmp/e5" ] && grep -q TL101 "$tmp/o6" && cmp -s "$tmp/o5" "$tmp/o6" && ok || bad "select = [\"tl101\"]: $rc $(cat "$tmp/e5")"
# --fix leaves alone what per-file-ignores hide: only the reported findings are fixed
mkdir -p "$tmp/pfi" && cd "$tmp/pfi"
printf 'import torch\ntotal = 0\nfor x in loader:\n    out = model(x.cuda()).sum()\n    out.backward()\n    opt.step()\n    total += out\n' > a.py
cp a.py b.py && cp a.py b.orig
printf '[tool.trainlint.per-file-ignores]\n"b.py" = ["TL701"]\n' > pyproject.toml
"$bin" check --fix --unsafe-fixes --exit-zero . >/dev/null 2>&1
grep -q 'total += out.detach()' a.py && cmp -s b.py b.orig && ok || bad "--fix changed a file whose finding per-file-ignores hides: $(cat b.py)"
# what TOML forbids is an error at its position (exit 2), not a silent merge
mkdir -p "$tmp/dup" && cd "$tmp/dup"
printf 'import torch
for x in loader:
    print(x.cuda().sum().item())
' > t.py
dup() { # PYPROJECT EXPECTED-ERROR
  printf "$1" > pyproject.toml
  "$bin" check --exit-zero --format concise . > out 2> err; rc=$?
  [ "$rc" = 2 ] && grep -qF "$2" err && ok || bad "pyproject $(printf "$1" | tr '\n' ' '): exit $rc: $(cat err)"
}
dup '[tool.trainlint]\nselect = ["TL1"]\n[tool.trainlint]\nignore = ["TL101"]\n' 'pyproject.toml:3:2: error: `[tool.trainlint]` is defined twice (first on line 1)'
dup '[tool]\ntrainlint.select = ["TL1"]\n[tool.trainlint]\nignore = ["TL101"]\n' 'pyproject.toml:3:2: error: `[tool.trainlint]` redefines the table that dotted keys on line 2 defined'
dup '[tool.trainlint]\nselect = ["TL1"]\nselect = ["TL2"]\n' 'pyproject.toml:3:1: error: `tool.trainlint.select` is defined twice (first on line 2)'
dup 'tool.trainlint.select = ["TL1"]\n[tool.trainlint]\n' 'pyproject.toml:2:2: error: `[tool.trainlint]` redefines the table that dotted keys on line 1 defined'
# nothing of trainlint's is ignored in silence: an array of tables, an unknown sub-table (even empty),
# a value that is no table
dup '[[tool.trainlint]]\nselect = ["TL1"]\n' 'pyproject.toml:1:3: error: `[[tool.trainlint]]` is an array of tables'
dup '[[tool.trainlint.severity]]\nTL101 = "info"\n' 'pyproject.toml:1:3: error: `[[tool.trainlint.severity]]` is an array of tables'
dup '[tool.trainlint.lint]\n' 'pyproject.toml:1:2: error: unknown table `[tool.trainlint.lint]`'
dup '[tool]\ntrainlint = 3\n' 'pyproject.toml:2:13: error: `tool.trainlint` must be a table'
dup '[tool]\ntrainlint = { select = ["TL1"] }\n[tool.trainlint]\n' 'pyproject.toml:3:2: error: `[tool.trainlint]` is defined twice (first on line 2)'
# an inline table is the same table as a header: its settings are read
for inline in '[tool]\ntrainlint = { select = ["TL2"] }\n' 'tool = { trainlint = { select = ["TL2"] } }\n' 'tool.trainlint = { select = ["TL2"] }\n'; do
  printf "$inline" > pyproject.toml
  "$bin" check --exit-zero --format concise . > out 2> err; rc=$?
  [ "$rc" = 0 ] && [ ! -s err ] && ! grep -q TL101 out && ok || bad "inline table $(printf "$inline" | tr '\n' ' ') not read: exit $rc: $(cat err out)"
done
printf '[tool]\ntrainlint = { select = ["TL9"] }\n' > pyproject.toml
"$bin" check --exit-zero --format concise . > out 2> err; rc=$?
[ "$rc" = 2 ] && grep -qF "pyproject.toml:2:25: error: \`select\`: no rule has the code or prefix 'TL9'" err && ok || bad "an inline table's bad code: exit $rc: $(cat err)"
# and what TOML allows stays allowed: a super-table defined after its sub-table, arrays of tables
printf '[tool.trainlint]\nselect = ["TL1"]\n[tool.trainlint.severity]\nTL101 = "info"\n[tool]\nx = 1\n[[tool.other]]\na = 1\n[[tool.other]]\na = 2\n' > pyproject.toml
"$bin" check --exit-zero --format concise . > out 2> err; rc=$?
[ "$rc" = 0 ] && [ ! -s err ] && grep -q TL101 out && ok || bad "valid TOML refused: exit $rc: $(cat err)"
# a pyproject.toml that is no regular file is never read (a FIFO would block), and is said
rm pyproject.toml && mkfifo pyproject.toml
timeout 10 "$bin" check --exit-zero --format concise . > out 2> err; rc=$?
[ "$rc" = 0 ] && grep -q 'pyproject.toml: warning: not a regular file (a FIFO): not read as configuration' err && grep -q TL101 out &&
  ok || bad "FIFO pyproject.toml: exit $rc: $(cat err)"
rm pyproject.toml && mkdir pyproject.toml
"$bin" check --exit-zero --format concise . > out 2> err
grep -q 'not a regular file (a directory)' err && ok || bad "directory pyproject.toml: $(cat err)"
rmdir pyproject.toml && ln -s /dev/zero pyproject.toml
timeout 10 "$bin" check --exit-zero --format concise . > out 2> err; rc=$?
[ "$rc" = 0 ] && grep -q 'not a regular file (a character device)' err && ok || bad "pyproject.toml -> /dev/zero: exit $rc: $(cat err)"
# `config` prints per-file-ignores as TOML
mkdir -p "$tmp/cfgprint" && cd "$tmp/cfgprint" && printf '[tool.trainlint.per-file-ignores]\n"x.py" = ["TL101"]\n' > pyproject.toml
"$bin" config . > out 2>&1
grep -qx 'per-file-ignores."x.py" = \["TL101"\]' out && ok || bad "config's per-file-ignores line: $(grep per-file out)"
finish
