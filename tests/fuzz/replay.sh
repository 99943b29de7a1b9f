#!/usr/bin/env bash
# replay.sh BUILD SRC - runs each harness once on every committed crash input (tests/fuzz/regressions/<harness>/*); the seeds are run by the fuzz/<harness> tests.
set -u
build=$1 src=$2
. "$src/tests/fuzz/common.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for h in $TL_FUZZ_HARNESSES; do
  bin="$build/fuzz_$h"
  [ -x "$bin" ] || { echo "SKIP: $bin not built (see docs/reliability.md)"; exit 77; }
  dir="$src/tests/fuzz/regressions/$h"
  n=$(find "$dir" -type f 2>/dev/null | wc -l)
  [ "$n" = 0 ] && continue
  # libFuzzer runs each file named on its command line once
  if find "$dir" -type f -print0 | xargs -0 -r "$bin" -rss_limit_mb=4096 -timeout=60 >"$tmp/$h.log" 2>&1; then
    echo "fuzz_$h: $n inputs replayed"
  else
    echo "FAIL: fuzz_$h on a committed input:"
    grep -B2 -A40 -m1 'ERROR\|invariant failed\|runtime error\|deadly signal\|differs' "$tmp/$h.log" | head -80
    fail=1
  fi
done
exit $fail
