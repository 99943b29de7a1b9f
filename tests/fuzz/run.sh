#!/usr/bin/env bash
# run.sh HARNESS-BINARY SRC SECONDS - fuzzes one harness from its seeds for SECONDS; a crash fails the test and prints the input.
# In CTest the run is reproducible: a fixed seed and a fixed number of inputs (TRAINLINT_FUZZ_SEED,
# TRAINLINT_FUZZ_RUNS), SECONDS only a cap; a slow machine runs a prefix of the same sequence.
# Exploration with fresh seeds is scripts/fuzz.sh's job.
set -u
bin=$1 src=$2 secs=$3
. "$src/tests/fuzz/common.sh"
[ -x "$bin" ] || { echo "SKIP: $bin not built (see docs/reliability.md)"; exit 77; }
h=$(basename "$bin"); h=${h#fuzz_}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/corpus" "$tmp/artifacts"
fuzz_seeds "$h" "$src" "$tmp/seeds" "$bin"
"$bin" -seed="${TRAINLINT_FUZZ_SEED:-1}" -runs="${TRAINLINT_FUZZ_RUNS:-600}" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
  -dict="$(fuzz_dict "$h" "$src")" -artifact_prefix="$tmp/artifacts/" "$tmp/corpus" "$tmp/seeds" >"$tmp/log" 2>&1
rc=$?
grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "$tmp/log"
grep -E 'cov: .*ft:' "$tmp/log" | tail -1
if [ "$rc" != 0 ] || [ -n "$(ls -A "$tmp/artifacts")" ]; then
  echo "FAIL: fuzz_$h found a problem (exit $rc):"
  grep -B2 -A40 -m1 'ERROR\|invariant failed\|runtime error\|deadly signal\|timeout\|out-of-memory' "$tmp/log" | head -80
  for f in "$tmp"/artifacts/*; do
    [ -f "$f" ] || continue
    keep="$PWD/$(basename "$f")"
    cp "$f" "$keep"
    echo "input kept as $keep; base64:"
    base64 -w 76 "$f" | head -200
    echo "add it to tests/fuzz/regressions/$h/ once fixed (scripts/fuzz.sh does this)"
  done
  exit 1
fi
echo "fuzz_$h: no problem found in $secs s"
