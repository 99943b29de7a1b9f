#!/usr/bin/env bash
# bench/lsp/instructions.sh - instructions `trainlint server` executes per analysis while bench.py
# replays the first recorded edits (callgrind, one dump per analysis): a measure that does not
# depend on the machine's load, unlike bench.py's times. Slow (the server runs under valgrind,
# about 50 times slower), hence only the first edits. Prints the median, minimum and maximum over
# the analyses after the first (the first is the opening of big.py).
#
# usage: bench/lsp/instructions.sh TRAINLINT [options]
#   --edits N      replay only the first N recorded edits (default 12), in push then pull mode
#   --lines N      size of the generated file (default 5000)
#   --keep DIR     keep the callgrind dumps in DIR (callgrind_annotate --inclusive=yes DIR/cg.*.5)
#   -h, --help
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
nedits=12
lines=5000
keep=
bin=
while [ $# -gt 0 ]; do
  case "$1" in
    --edits) nedits=${2:?--edits needs a value}; shift 2 ;;
    --lines) lines=${2:?--lines needs a value}; shift 2 ;;
    --keep) keep=${2:?--keep needs a value}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "instructions.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) bin=$1; shift ;;
  esac
done
[ -n "$bin" ] && [ -x "$bin" ] || { echo "instructions.sh: give the trainlint binary (see --help)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind not found" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${keep:-$tmp/dumps}
mkdir -p "$out"
rm -f "$out"/cg.*
python3 - "$here/edits.json" "$tmp/edits.json" "$nedits" <<'PY'
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
r["edits"] = r["edits"][:int(sys.argv[3])]
json.dump(r, open(sys.argv[2], "w", encoding="utf-8"))
PY
# collect inside tl_lsp__run_engine and tl_lsp__end only (the analysis, on the worker thread, and the
# diagnostics it publishes); dump after each
cat > "$tmp/server" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file="$out/cg.%p" --collect-atstart=no \
  --toggle-collect=tl_lsp__run_engine --toggle-collect=tl_lsp__end --dump-after=tl_lsp__end "$bin" "\$@"
EOF
chmod +x "$tmp/server"
python3 "$here/bench.py" "$tmp/server" --rounds 1 --jobs 1 --lines "$lines" --edits "$tmp/edits.json" \
  --workdir "$tmp" >"$tmp/bench.txt" 2>&1 || { cat "$tmp/bench.txt" >&2; exit 1; }
python3 - "$out" "$bin" <<'PY'
import glob, os, re, statistics, sys
dumps = []
for f in glob.glob(os.path.join(sys.argv[1], "cg.*")):
    m = re.search(r"cg\.\d+\.(\d+)$", f)
    if not m:
        continue
    for line in open(f, errors="replace"):
        if line.startswith("totals:") or line.startswith("summary:"):
            dumps.append((int(m.group(1)), int(line.split()[1])))
            break
dumps = [n for _, n in sorted(dumps) if n > 0]
if len(dumps) < 2:
    sys.exit("instructions.sh: no analyses recorded")
edits = dumps[1:]
print("%s: %d analyses after opening big.py (%.1fM instructions)" % (sys.argv[2], len(edits), dumps[0] / 1e6))
print("instructions per analysis: median %.2fM, min %.2fM, max %.2fM"
      % (statistics.median(edits) / 1e6, min(edits) / 1e6, max(edits) / 1e6))
PY
