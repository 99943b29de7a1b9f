#!/usr/bin/env bash
# cli.sh - the command line itself: subcommands, help and version, option values (-j N, -jN,
# --jobs N, --jobs=N), and the usage errors (exit 2, a message on stderr, the usage where it is shown).
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
cd "$tmp" || exit 1
cat > a.py <<'PY'
def train(model, loader, opt):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        opt.step()
        print(loss.item())
PY

# help and version: on stdout, exit 0; no command: the usage on stderr, exit 2
for h in help -h --help; do
  out=$("$bin" $h 2>/dev/null); rc=$?
  [ "$rc" = 0 ] && echo "$out" | head -1 | grep -q '^usage: trainlint check \[options\] PATH\.\.\.' && ok || bad "$h: exit $rc"
done
echo "$out" | grep -q '^  -j, --jobs N                 threads (default: all cores)$' && ok || bad "--help lacks -j, --jobs N"
out=$("$bin" version); [ "$out" = "$("$bin" --version)" ] && echo "$out" | grep -q '^trainlint [0-9]' && ok || bad "version: $out"
"$bin" >/dev/null 2>err; rc=$?
[ "$rc" = 2 ] && grep -q '^usage: ' err && ok || bad "no command: exit $rc"

# the job count, spelled three ways, and its bad values
for j in "-j 2" "-j2" "--jobs 2" "--jobs=2" "--jobs 0"; do
  "$bin" check --format concise $j a.py > out 2>err; rc=$?
  [ "$rc" = 1 ] && grep -q '^a.py:6:15: TL101 ' out && [ ! -s err ] && ok || bad "$j: exit $rc, $(cat err)"
done
for j in "--jobs x" "-j -1" "--jobs 2000"; do
  "$bin" check $j a.py >/dev/null 2>err; rc=$?
  [ "$rc" = 2 ] && grep -q "^trainlint: bad --jobs value '${j#* }'$" err && ok || bad "$j: exit $rc, $(cat err)"
done

# usage errors
expect_error() { # message args...
  local msg=$1; shift
  "$bin" "$@" >out 2>err; local rc=$?
  [ "$rc" = 2 ] && [ ! -s out ] && grep -qxF "$msg" err && ok || bad "$*: exit $rc, stderr: $(head -3 err)"
}
expect_error "trainlint: unknown command 'bogus'" bogus
expect_error "trainlint: unknown option '--bogus'" check --bogus a.py
grep -q '^check options:$' err && ok || bad "an unknown option does not show the usage"
expect_error "trainlint: unknown option '--bogus'" bogus --bogus
expect_error "trainlint: --format needs a value" check --format
expect_error "trainlint: -j needs a value" check -j
expect_error "trainlint: unknown format 'xml' (text, concise, json, sarif, github, gitlab)" check --format xml a.py
expect_error "trainlint: --color takes auto, always or never" check --color pink a.py
expect_error "trainlint: --diff, --fix and --add-noqa exclude each other" check --diff --fix a.py
expect_error "usage: trainlint explain CODE" explain
expect_error "usage: trainlint explain CODE" explain TL101 TL102
expect_error "usage: trainlint test-rules DIR (the rules, *.md, and their fixtures, *.py)" test-rules
# a command's --help or -h: the usage on stdout, exit 0; -V is --version; --output-format is --format
for h in "check --help" "rules -h" "explain --help" "check . -h"; do
  out=$("$bin" $h 2>/dev/null); rc=$?
  [ "$rc" = 0 ] && echo "$out" | head -1 | grep -q '^usage: trainlint check' && ok || bad "$h: exit $rc"
done
[ "$("$bin" -V)" = "$("$bin" version)" ] && ok || bad "-V: $("$bin" -V 2>&1)"
[ "$("$bin" check --output-format concise a.py 2>&1)" = "$("$bin" check --format concise a.py 2>&1)" ] &&
  [ "$("$bin" check --output-format=json a.py 2>&1)" = "$("$bin" check --format json a.py 2>&1)" ] && ok ||
  bad "--output-format differs from --format"
# --show-files lists what a check would analyse (a file given alone: that file, not its context)
mkdir -p sf/pkg && cp a.py sf/pkg/m.py && printf 'x = 1\n' > sf/n.py && printf 'not python\n' > sf/notes.txt
[ "$(cd sf && "$bin" check --show-files .)" = "$(printf 'n.py\npkg/m.py')" ] && ok || bad "--show-files: $(cd sf && "$bin" check --show-files . 2>&1)"
[ "$("$bin" check --show-settings a.py)" = "$("$bin" config a.py)" ] && "$bin" config a.py | grep -q '^# effective trainlint settings for a.py' &&
  ok || bad "--show-settings differs from config: $("$bin" check --show-settings a.py 2>&1 | head -3)"
# `-` reads the source from standard input; --stdin-filename names it in the report
out=$("$bin" check --format concise --stdin-filename sub/t.py - < a.py); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q '^sub/t.py:6:15: TL101 ' && ok || bad "stdin with --stdin-filename: exit $rc: $out"
out=$("$bin" check --format concise - < a.py); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q '^-:6:15: TL101 ' && ok || bad "stdin: exit $rc: $out"
expect_error "trainlint: the path - (standard input) stands alone, without --diff, --fix, --add-noqa or --write-baseline" check --fix -
expect_error "trainlint: --stdin-filename goes with the path - (standard input)" check --stdin-filename x.py a.py
# --opt=value is --opt value; a flag takes no value; an unknown --opt=value is unknown
"$bin" check --format=concise --select=TL101 a.py > out 2>err; rc=$?
[ "$rc" = 1 ] && grep -q '^a.py:6:15: TL101 ' out && [ ! -s err ] && ok || bad "--format=concise --select=TL101: exit $rc, $(cat err)"
expect_error "trainlint: --fix takes no value" check --fix=yes a.py
expect_error "trainlint: unknown option '--bogus=1'" check --bogus=1 a.py
# the order of the paths on the command line changes nothing, hot chains included: a helper
# called from two step loops is hot through the first of their files by path, whatever the order
mkdir -p "$tmp/order" && cd "$tmp/order"
printf 'def log_stats(loss):\n    print(loss.item())\n' > helpers.py
printf 'import torch\nfrom helpers import log_stats\nfor x in loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n    log_stats(loss)\n' > a_train.py
cp a_train.py b_train.py
"$bin" check --exit-zero --format json a_train.py b_train.py helpers.py > o1.json
"$bin" check --exit-zero --format json helpers.py b_train.py a_train.py > o2.json
"$bin" check --exit-zero --format json -j 1 b_train.py helpers.py a_train.py > o3.json
cmp -s o1.json o2.json && cmp -s o1.json o3.json &&
  python3 -c 'import json,sys; f=[x for x in json.load(open(sys.argv[1]))["findings"] if x["path"]=="helpers.py"][0]; assert f["hot_path"][-1]["path"]=="a_train.py", f' o1.json &&
  ok || bad "the command line's order changed the report: $(diff o1.json o2.json | head -10)"
cd "$tmp"
# a help text that quotes code shows its quotes, not YAML's escapes (TL601's `torch.autocast("cuda", ...)`)
"$bin" check --exit-zero "$src/examples" > "$tmp/help.txt" 2>&1
grep -q 'help: run the forward pass and the loss under `torch.autocast("cuda", dtype=torch.bfloat16)`' "$tmp/help.txt" &&
  ! grep -qF '\"' "$tmp/help.txt" && ok || bad "escaped quotes in a help text: $(grep -F 'help: run the forward' "$tmp/help.txt")"
# directories a walk never enters (build outputs, installed packages, notebook checkpoints), unless given
mkdir -p "$tmp/walk" && cd "$tmp/walk"
for d in build dist .ipynb_checkpoints pkg/site-packages .eggs src; do
  mkdir -p "$d" && printf 'import torch\nfor x in loader:\n    print(x.cuda().sum().item())\n' > "$d/t.py"
done
"$bin" check --exit-zero --format concise . > out 2>&1
[ "$(grep -c ' TL101 ' out)" = 1 ] && grep -q '^src/t.py:' out && ok || bad "default exclusions: $(cat out)"
"$bin" check --exit-zero --format concise build > out 2>&1
grep -q '^build/t.py:' out && ok || bad "a directory given by name is walked: $(cat out)"
# nothing to analyse is said, and is no error
mkdir -p "$tmp/nothing" && "$bin" check "$tmp/nothing" > out 2> err; rc=$?
[ "$rc" = 0 ] && grep -q 'warning: No Python files found' err && ok || bad "empty tree: exit $rc: $(cat err)"
"$bin" check --quiet "$tmp/nothing" > out 2> err
[ ! -s err ] && ok || bad "--quiet still warned: $(cat err)"
cd "$tmp"
# an --output that cannot be written fails at once (exit 2), before any analysis
"$bin" check --output "$tmp/no/such/dir/out.json" "$src/examples" > out 2> err; rc=$?
[ "$rc" = 2 ] && grep -q "cannot write $tmp/no/such/dir/out.json: No such file or directory" err && [ ! -s out ] &&
  ok || bad "unwritable --output: exit $rc: $(cat err)"
# --min-severity hides findings below a level; --fail-on decides the exit status by level
all=$("$bin" check --exit-zero --format json "$src/examples" 2>/dev/null | python3 -c 'import json,sys; f=json.load(sys.stdin)["findings"]; print(len(f), sum(x["severity"]=="info" for x in f), sum(x["severity"]=="error" for x in f))')
set -- $all
n=$("$bin" check --exit-zero --format concise --min-severity warning "$src/examples" 2>/dev/null | wc -l)
[ "$2" -ge 1 ] && [ "$n" = "$(($1 - $2))" ] && ok || bad "--min-severity warning: $n of $all"
"$bin" check --format concise --fail-on error "$src/examples" > /dev/null 2>&1; rc=$?
[ "$3" = 0 ] && [ "$rc" = 0 ] && ok || bad "--fail-on error with no error findings: exit $rc ($all)"
"$bin" check --format concise --fail-on warning "$src/examples" > /dev/null 2>&1; rc=$?
[ "$rc" = 1 ] && ok || bad "--fail-on warning: exit $rc"
expect_error "trainlint: --min-severity takes info, warning or error" check --min-severity loud a.py
# --extend-select adds to a configuration's selection (and to --select's); --extend-ignore is --ignore
mkdir -p ext && cp -r "$src/examples" ext/ && printf '[tool.trainlint]\nselect = ["TL101"]\n' > ext/pyproject.toml
codes() { "$bin" check --format concise --exit-zero "$@" 2>/dev/null | sed -n 's/^[^ ]* \(TL[0-9]*\) .*/\1/p' | sort -u | tr '\n' ' '; }
[ "$(codes ext)" = "TL101 " ] && ok || bad "the configuration's select: $(codes ext)"
[ "$(codes --extend-select TL201,TL204 ext)" = "TL101 TL201 TL204 " ] && ok || bad "--extend-select on a configuration: $(codes --extend-select TL201,TL204 ext)"
[ "$(codes --select TL204 --extend-select TL201 ext)" = "TL201 TL204 " ] && ok || bad "--select with --extend-select: $(codes --select TL204 --extend-select TL201 ext)"
[ "$(codes --extend-select TL201 --extend-ignore TL101 ext)" = "TL201 " ] && ok || bad "--extend-ignore: $(codes --extend-select TL201 --extend-ignore TL101 ext)"
expect_error 'trainlint: error: --extend-select: no rule has the code or prefix '"'TL9'"' (`trainlint rules` lists them)' check --extend-select TL9 a.py
# [*] means the same in --statistics, concise and text: fixable with the fixes the run would apply
ex="$src/examples"
"$bin" check -n --exit-zero --statistics "$ex" > st1 2>/dev/null
"$bin" check -n --exit-zero --statistics --unsafe-fixes "$ex" > st2 2>/dev/null
"$bin" check -n --exit-zero --format concise "$ex" > cc1 2>/dev/null
"$bin" check -n --exit-zero --format concise --unsafe-fixes "$ex" > cc2 2>/dev/null
! grep -q '\[\*\]' st1 && ! grep -q '\[\*\]' cc1 && ok || bad "[*] without --unsafe-fixes on unsafe fixes: $(cat st1 cc1)"
[ "$(grep -c '\[\*\]' cc2)" = 3 ] && grep -q 'TL201 .*\[\*\]' st2 && ok || bad "[*] with --unsafe-fixes: $(cat st2 cc2)"
"$bin" check -n --exit-zero --no-source "$ex" 2>/dev/null | tail -1 > sum1
grep -qx '(3 more fixes with --unsafe-fixes: --diff --unsafe-fixes shows them.)' sum1 && ok || bad "summary of hidden fixes: $(cat sum1)"
finish
