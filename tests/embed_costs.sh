#!/usr/bin/env bash
# embed_costs.sh - `trainlint explain` shows measured costs from the newest GPU results file:
# the generator reads a results file's benchmarks per rule, refuses synthetic data, and says
# "not yet measured" when bench/results holds no real run.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
gen="$src/cmake/embed_costs.cmake"
data="$src/bench/tests/data/example-synthetic.json"
cmake -DOUT="$tmp/a.c" -DRESULTS_FILE="$data" -DALLOW_SYNTHETIC=1 -P "$gen" && ok || bad "generator failed"
grep -q '{"TL301", "cuda/launch-latency: `launch+sync` takes 4.79x the time of `back-to-back`' "$tmp/a.c" && ok || bad "row for TL301: $(grep TL301 "$tmp/a.c" | head -1)"
grep -q 'DO NOT EDIT' "$tmp/a.c" && ok || bad "no banner"
grep -q '"TL203"\|rule": null' "$tmp/a.c" && bad "rows for rule-less benchmarks" || ok
cmake -DOUT="$tmp/b.c" -DRESULTS_FILE="$data" -P "$gen" >/dev/null 2>&1 && bad "synthetic data accepted" || ok
mkdir -p "$tmp/results" && cp "$data" "$tmp/results/"
cmake -DOUT="$tmp/c.c" -DRESULTS_DIR="$tmp/results" -P "$gen" && grep -q 'tl_costs_source\[\] = "none"' "$tmp/c.c" && ok || bad "synthetic file in results/ was used"
cc -c -I"$src/src" "$tmp/a.c" -o "$tmp/a.o" && ok || bad "generated C does not compile"
"$bin" explain TL101 | grep -q '^## Measured cost' && ok || bad "explain lacks the measured-cost section"
finish
