#!/usr/bin/env bash
# embed_costs.sh - `trainlint explain` shows what the newest GPU results file measured for a rule:
# the generator reads the judged claims of a results file (one row per claim of a TL rule, with its
# verdict), refuses synthetic data and files without verdicts, and says "not yet measured" when
# bench/results holds no real run.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
gen="$src/cmake/embed_costs.cmake"
data="$src/bench/tests/data/example-synthetic.json"
# The example is runner input (benchmark lines only); bench/run --replay judges it into a results file.
python3 "$src/bench/run" --replay "$data" --out "$tmp/judged" >/dev/null && ok || bad "replay of the example failed"
judged=$(ls "$tmp"/judged/*.json)
cmake -DOUT="$tmp/a.c" -DRESULTS_FILE="$judged" -DALLOW_SYNTHETIC=1 -P "$gen" && ok || bad "generator failed"
grep -qF '{"TL301", "TL301-launch-sync (rule, claimed: faster): measured 4.8× [4.61–5] (12 → 2.5 us/launch); confirmed: ' "$tmp/a.c" && ok || bad "row for TL301: $(grep TL301 "$tmp/a.c" | head -1)"
grep -q '{"TL501", "003-no-sync (case study CS4, claimed: 4× fewer all-reduces): measured -; not measurable here: needs two GPUs (found 1)' "$tmp/a.c" && ok || bad "a claim not measurable is not shown with its reason"
grep -qF '{"TL301", "003-apply-prompt (case study CS4, claimed: 2.2×): measured 2.2× [2.11–2.29] (220 → 100 ms/step); inconclusive: the spread 2.11–2.29× straddles the claimed 2.2×' "$tmp/a.c" && ok || bad "an inconclusive claim is not shown with its spread"
grep -q 'DO NOT EDIT' "$tmp/a.c" && ok || bad "no banner"
grep -q '{"",\|"001-compile (' "$tmp/a.c" && bad "rows for claims without a rule code" || ok
cmake -DOUT="$tmp/b.c" -DRESULTS_FILE="$judged" -P "$gen" >/dev/null 2>&1 && bad "synthetic data accepted" || ok
cmake -DOUT="$tmp/d.c" -DRESULTS_FILE="$data" -DALLOW_SYNTHETIC=1 -P "$gen" >/dev/null 2>&1 && bad "a file without verdicts accepted" || ok
mkdir -p "$tmp/results" && cp "$judged" "$tmp/results/"
cmake -DOUT="$tmp/c.c" -DRESULTS_DIR="$tmp/results" -P "$gen" && grep -q 'tl_costs_source\[\] = "none"' "$tmp/c.c" && ok || bad "synthetic file in results/ was used"
# Two cards: the newest file of each is embedded, the rows of one claim next to each other.
mkdir -p "$tmp/two"
for card in "Card A" "Card B"; do
  python3 - "$judged" "$tmp/two/$(echo "$card" | tr ' ' '-').json" "$card" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["synthetic"] = False
d["environment"]["gpu_name"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
done
cmake -DOUT="$tmp/e.c" -DRESULTS_DIR="$tmp/two" -P "$gen" && ok || bad "generator failed on two cards"
grep -q 'tl_costs_source\[\] = "Card-A.json, Card-B.json"' "$tmp/e.c" && ok || bad "not both cards' files: $(grep source "$tmp/e.c")"
grep '"TL301", "TL301-launch-sync' "$tmp/e.c" | sed -n 's/.*; \(Card [AB]\), .*/\1/p' | tr '\n' ' ' | grep -qx 'Card A Card B ' &&
  ok || bad "the two cards' rows of a claim are not side by side"
cc -c -I"$src/src/app/output" "$tmp/a.c" -o "$tmp/a.o" && ok || bad "generated C does not compile"
"$bin" explain TL101 | grep -q '^## Measured cost' && ok || bad "explain lacks the measured-cost section"
# With the committed results: every row names its GPU, date and file, or the rule says it is unmeasured.
"$bin" explain TL101 | sed -n '/^## Measured cost/,$p' | tail -n +2 | grep -v -E '^- .*\[[^]]*; [^]]*, [0-9]{4}-[0-9]{2}-[0-9]{2}, [^]]*\.json\]$|^Not yet measured' | grep -q . && bad "a measured-cost line without GPU, date and file" || ok
# A claim that needs two GPUs, judged on one, is shown as a paper estimate, marked so.
if ls "$src"/bench/results/*.json >/dev/null 2>&1; then
  "$bin" explain TL501 | grep -q '^- TL501-no-sync-time (rule, claimed: step slower): estimated for 2 GPUs: .*; needs two GPUs (found 1): a paper estimate' &&
    ok || bad "explain TL501 does not mark its two-GPU claim as estimated"
fi
finish
