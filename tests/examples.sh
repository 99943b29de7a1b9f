#!/usr/bin/env bash
# examples.sh - the bundled example project yields exactly the findings listed in
# examples/expected-findings.txt (path:line: CODE), and the CLI's exit codes are as documented.
set -u
bin=$1 src=$2
fail=0
tmp_err=$(mktemp)
trap 'rm -f "$tmp_err"' EXIT
cd "$src/examples" || exit 1
got=$("$bin" check --format concise --no-source . | sed -E 's#^\./##; s#^([^:]+:[0-9]+):[0-9]+: (TL[0-9]+) .*#\1: \2#' | sort)
want=$(grep -v '^#' expected-findings.txt | sed '/^$/d' | sort)
if [ "$got" != "$want" ]; then
  echo "examples: findings differ from expected-findings.txt:"
  diff <(echo "$want") <(echo "$got") | sed 's/^</Missing:/; s/^>/Noisy:/'
  fail=$((fail + 1))
fi
"$bin" check --no-source . >/dev/null; rc=$?
[ $rc -eq 1 ] || { echo "exit code with findings: $rc, want 1"; fail=$((fail + 1)); }
"$bin" check --exit-zero . >/dev/null; rc=$?
[ $rc -eq 0 ] || { echo "--exit-zero: $rc, want 0"; fail=$((fail + 1)); }
# a code that names no rule is an error (exit 2), not a silent pass; codes are case-insensitive
"$bin" check --select TL999 . >/dev/null 2>"$tmp_err"; rc=$?
[ $rc -eq 2 ] && grep -q "^trainlint: error: --select: no rule has the code or prefix 'TL999'" "$tmp_err" ||
  { echo "unknown code in --select: $rc, want 2: $(cat "$tmp_err")"; fail=$((fail + 1)); }
"$bin" check --ignore TL1O1 . >/dev/null 2>"$tmp_err"; rc=$?
[ $rc -eq 2 ] && grep -q "^trainlint: error: --ignore: no rule has the code or prefix 'TL1O1'" "$tmp_err" ||
  { echo "unknown code in --ignore: $rc, want 2: $(cat "$tmp_err")"; fail=$((fail + 1)); }
[ "$("$bin" check --select tl101 --format concise --no-source . 2>&1)" = "$("$bin" check --select TL101 --format concise --no-source . 2>&1)" ] &&
  "$bin" check --select TL101 --format concise --no-source . | grep -q TL101 ||
  { echo "--select tl101 differs from --select TL101"; fail=$((fail + 1)); }
"$bin" check --bogus . >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "usage error: $rc, want 2"; fail=$((fail + 1)); }
"$bin" explain TL101 | grep -q "## Why is this bad" || { echo "explain TL101 lacks its docs"; fail=$((fail + 1)); }
"$bin" explain TL000 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "explain unknown: $rc, want 2"; fail=$((fail + 1)); }
# TL603 is opt-in: only its full code enables it, not a prefix
"$bin" check --format concise --no-source --select TL6 . | grep -q TL603 && { echo "--select TL6 enabled the opt-in TL603"; fail=$((fail + 1)); }
"$bin" check --format concise --no-source --select TL603 . | grep -q '^train.py:62:.*TL603' || { echo "--select TL603 did not report train.py:62"; fail=$((fail + 1)); }
n=$("$bin" rules | wc -l)
[ "$n" -ge 5 ] || { echo "rules lists $n rules"; fail=$((fail + 1)); }
echo "$((10 - fail)) passed, $fail failed"
[ $fail -eq 0 ]
