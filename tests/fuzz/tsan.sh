#!/usr/bin/env bash
# tsan.sh TRAINLINT_TSAN SRC [REFERENCE] - the ThreadSanitizer analyzer over fixtures/ and examples/ with several threads and the language server's scripted sessions: no data race reported, output byte-identical to -j 1 (and to REFERENCE -j 1 when given).
set -u
bin=$1 src=$2 ref=${3:-}
[ -x "$bin" ] || { echo "SKIP: $bin not built (see docs/reliability.md)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
export TSAN_OPTIONS="log_path=$tmp/tsan exitcode=66 second_deadlock_stack=1 history_size=7"
# Some kernels' address-space layouts break TSan itself ("unexpected memory mapping"): a skip, not a pass.
if ! "$bin" rules >/dev/null 2>&1; then
  cat "$tmp"/tsan* 2>/dev/null | head -5
  if grep -qs 'unexpected memory mapping\|FATAL: ThreadSanitizer' "$tmp"/tsan*; then
    echo "SKIP: ThreadSanitizer cannot run on this kernel (try: sysctl vm.mmap_rnd_bits=28)"; exit 77
  fi
  bad "$bin rules failed"
fi
cd "$src"
run() { # run NAME ARGS...: output in $tmp/NAME.out/.err/.rc
  local name=$1; shift
  "$bin" check "$@" examples fixtures >"$tmp/$name.out" 2>"$tmp/$name.err"; echo $? >"$tmp/$name.rc"
}
for fmt in json text; do
  run "$fmt-j1" -j 1 --format "$fmt" --show-fixes --unsafe-fixes
  [ -s "$tmp/$fmt-j1.out" ] && ok || bad "-j 1 --format $fmt printed nothing"
  for j in 2 4 4 4 8 16; do
    run "$fmt-j$j" -j "$j" --format "$fmt" --show-fixes --unsafe-fixes
    if cmp -s "$tmp/$fmt-j1.out" "$tmp/$fmt-j$j.out" && cmp -s "$tmp/$fmt-j1.err" "$tmp/$fmt-j$j.err" &&
       cmp -s "$tmp/$fmt-j1.rc" "$tmp/$fmt-j$j.rc"; then ok; else
      bad "--format $fmt: -j $j differs from -j 1"; diff "$tmp/$fmt-j1.out" "$tmp/$fmt-j$j.out" | head -20
    fi
  done
done
run diff-j1 -j 1 --diff --unsafe-fixes
run diff-j4 -j 4 --diff --unsafe-fixes
cmp -s "$tmp/diff-j1.out" "$tmp/diff-j4.out" && [ -s "$tmp/diff-j1.out" ] && ok || bad "--diff: -j 4 differs from -j 1 (or is empty)"
if [ -n "$ref" ] && [ -x "$ref" ]; then
  "$ref" check -j 1 --format json --show-fixes --unsafe-fixes examples fixtures >"$tmp/ref.out" 2>"$tmp/ref.err"
  cmp -s "$tmp/ref.out" "$tmp/json-j1.out" && ok || bad "the TSan build's output differs from $ref's"
fi
# The language server analyses with the same thread pool: its scripted sessions (edits, cross-file
# re-diagnosis, code actions, configuration reloads) under TSan too.
python3 "$src/tests/lsp/drive.py" "$bin" "$src"/tests/lsp/sessions/*.session >"$tmp/lsp.out" 2>&1 && ok ||
  { bad "language-server sessions under TSan"; tail -20 "$tmp/lsp.out"; }
reports=$(cat "$tmp"/tsan* 2>/dev/null | grep -c 'WARNING: ThreadSanitizer')
if [ "$reports" = 0 ]; then ok; else
  bad "$reports ThreadSanitizer report(s):"; cat "$tmp"/tsan* | head -100
fi
grep -l '66' "$tmp"/*.rc >/dev/null 2>&1 && bad "exit status 66 (TSan) from a run" || ok
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
