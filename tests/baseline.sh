#!/usr/bin/env bash
# baseline.sh - only what a pull request adds: a baseline round trip that survives unrelated edits
# above the findings, and --diff-base on a temporary git repository.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
cd "$tmp" && cp "$src"/examples/*.py . && git init -q . && git -c user.email=t@t -c user.name=t add . &&
  git -c user.email=t@t -c user.name=t commit -qm base || exit 1
total=$("$bin" check --format concise . 2>/dev/null | grep -c ': TL')

"$bin" check --write-baseline base.json . >/dev/null 2>&1; rc=$?
[ "$rc" = 0 ] && [ -s base.json ] && ok || bad "--write-baseline exit $rc"
"$bin" check --baseline base.json . >/dev/null 2>&1; rc=$?
[ "$rc" = 0 ] && ok || bad "everything in the baseline: exit $rc, want 0"
# unrelated edits above the findings shift every line
{ printf '"""Training entry point."""\n# more\n# lines\n'; cat train.py; } > t && mv t train.py
{ printf 'import math\n\n'; cat model.py; } > t && mv t model.py
"$bin" check --baseline base.json --format concise . 2>/dev/null | grep -q ': TL' && bad "findings reappeared after unrelated edits" || ok
# a new finding is reported, alone
cat >> train.py <<'PY'


def extra_step(model, loader, opt):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        opt.step()
        print(loss.item())
PY
out=$("$bin" check --baseline base.json --format concise . 2>/dev/null)
[ "$(echo "$out" | grep -c ': TL')" = 1 ] && echo "$out" | grep -q 'train.py:.*TL101' && ok || bad "baseline: new finding not reported alone: $out"
# a copy of a known finding (same code and line text in the same function) still counts: multiset
"$bin" check --baseline base.json --statistics . 2>/dev/null | grep -q '1  TL101' && ok || bad "statistics with baseline"
echo '{"nope": 1}' > bad.json
"$bin" check --baseline bad.json . >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] && ok || bad "broken baseline: exit $rc, want 2"

# --diff-base: only findings on changed lines
git checkout -q -- . && rm -f base.json bad.json
sed -i 's/^\(\s*\)running_loss += loss.item().*/\1running_loss += loss.item()  # changed line/' train.py
out=$("$bin" check --diff-base HEAD --format concise . 2>/dev/null)
[ "$(echo "$out" | grep -c ': TL')" = 1 ] && echo "$out" | grep -q '^train.py:80:.*TL101' && ok || bad "--diff-base: $out"
git -c user.email=t@t -c user.name=t commit -qam change
"$bin" check --diff-base HEAD . >/dev/null 2>&1; rc=$?
[ "$rc" = 0 ] && ok || bad "--diff-base with no change: exit $rc, want 0"
out=$("$bin" check --diff-base HEAD~1 --format concise . 2>/dev/null)
[ "$(echo "$out" | grep -c ': TL')" = 1 ] && ok || bad "--diff-base HEAD~1: $out"
"$bin" check --diff-base no-such-rev . >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "no-such-rev: no such commit" "$tmp/err" &&
  ok || bad "unknown revision: exit $rc, want 2, one line of error and no findings: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
# a file git does not track is new: all its findings count; from a subdirectory, with a relative,
# a ./ or an absolute path alike
mkdir -p sub && cp train.py sub/copy.py
for p in . ./copy.py "$PWD/sub"; do
  want=$(cd sub && "$bin" check --format concise --exit-zero "$p" 2>/dev/null | grep -c 'copy.py:.*: TL')
  got=$(cd sub && "$bin" check --diff-base HEAD --format concise --exit-zero "$p" 2>/dev/null | grep -c ': TL')
  [ "$want" -gt 0 ] && [ "$got" = "$want" ] && ok || bad "--diff-base from a subdirectory on $p: $got findings, want $want"
done
want=$("$bin" check --format concise --exit-zero . 2>/dev/null | grep -c 'copy.py:.*: TL')
got=$("$bin" check --diff-base HEAD --format concise --exit-zero . 2>/dev/null | grep -c ': TL')
[ "$want" -gt 0 ] && [ "$got" = "$want" ] && ok || bad "--diff-base with an untracked file: $got findings, want $want (the tracked files are unchanged)"
rm -rf sub
# outside a git working tree: one clear line, exit 2, no git usage text
mkdir -p "$tmp/nogit" && cp train.py "$tmp/nogit/"
(cd "$tmp/nogit" && GIT_CEILING_DIRECTORIES="$tmp" "$bin" check --diff-base HEAD .) >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "not in a git working tree" "$tmp/err" &&
  ok || bad "outside git: exit $rc: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
[ "$total" -gt 2 ] && ok || bad "the example project has $total findings"
finish
