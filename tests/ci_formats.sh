#!/usr/bin/env bash
# ci_formats.sh - the CI output formats (SARIF checked by Microsoft's SARIF multitool, GitHub
# workflow commands, GitLab Code Quality, concise, --statistics, --output, --quiet) and every
# suppression form (noqa, trainlint: ignore[...], ignore-file, multi-line statements,
# --report-unused-suppressions, --add-noqa).
set -u
bin=$1 src=$2
build=$(cd "$(dirname "$bin")" && pwd)
. "$src/tests/support/lib.sh"

# --- SARIF, validated by the real validator (installed into the build tree when missing) ---
mt="$build/sarif-multitool"
(
  flock 9
  if [ ! -x "$mt/node_modules/.bin/sarif-multitool" ]; then
    npm install --no-save --no-audit --no-fund --prefix "$mt" @microsoft/sarif-multitool@5.7.0 >"$tmp/npm.log" 2>&1 || cat "$tmp/npm.log"
  fi
  # npm leaves the native binary without its run bit when install scripts are blocked
  chmod +x "$mt"/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool 2>/dev/null || true
) 9>"$build/.sarif-multitool.lock"
validator="$mt/node_modules/.bin/sarif-multitool"
if [ -x "$validator" ]; then ok; else bad "the SARIF validator could not be installed"; fi
cd "$src"
"$bin" check --format sarif examples fixtures/TL201 > "$tmp/rel.sarif" 2>/dev/null
"$bin" check --format sarif "$src/examples" > "$tmp/abs.sarif" 2>/dev/null
for f in rel abs; do
  out=$("$validator" validate "$tmp/$f.sarif" 2>&1); vrc=$?
  errs=$(echo "$out" | grep -c ': error ' || true)
  if [ "$vrc" = 0 ] && [ "$errs" = 0 ] && echo "$out" | grep -q 'Analysis completed successfully'; then ok; else bad "SARIF ($f) invalid:"; echo "$out" | grep -E 'error|rror' | head; fi
  # warnings are shown; the only one accepted is the missing informationUri (there is no home page yet)
  echo "$out" | grep ': warning ' | grep -v SARIF2005 | head -5
done
python3 - "$tmp/rel.sarif" <<'PY' && ok || bad "SARIF content"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
assert run["tool"]["driver"]["version"]
for r in rules.values():
    assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["markdown"]
    assert "{{" not in r["shortDescription"]["text"]
    assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
res = run["results"]
assert res and all(x["ruleId"] in rules for x in res)
assert all(x["partialFingerprints"]["trainlint/v1"] for x in res)
assert any(x.get("relatedLocations") for x in res), "hot chains missing"
assert any(x.get("fixes") for x in res), "fixes missing"
PY

# --- fingerprints survive unrelated edits above the finding ---
mkdir -p "$tmp/fp" && cp examples/*.py "$tmp/fp/"
( cd "$tmp/fp" && "$bin" check --format json . ) > "$tmp/fp1.json" 2>/dev/null
( cd "$tmp/fp" && { printf '"""A new docstring."""\nimport os\n\n'; cat train.py; } > t && mv t train.py && "$bin" check --format json . ) > "$tmp/fp2.json" 2>/dev/null
python3 - "$tmp/fp1.json" "$tmp/fp2.json" <<'PY' && ok || bad "fingerprints changed after an unrelated edit"
import json, sys
a, b = (json.load(open(p))["findings"] for p in sys.argv[1:3])
fa = sorted((f["code"], f["path"], f["fingerprint"]) for f in a)
fb = sorted((f["code"], f["path"], f["fingerprint"]) for f in b)
assert fa == fb, (fa, fb)
assert [f["line"] for f in a if f["path"].endswith("train.py")] != [f["line"] for f in b if f["path"].endswith("train.py")]
PY

# --- github / gitlab / concise / statistics / output / quiet ---
gh=$("$bin" check --format github examples 2>/dev/null)
echo "$gh" | grep -q '^::warning file=examples/train.py,line=80,col=29,endLine=80,endColumn=40,title=TL101::TL101 ' && ok || bad "github format: $(echo "$gh" | head -2)"
[ "$(echo "$gh" | grep -c '^::')" = "$(grep -vc '^#' examples/expected-findings.txt)" ] && ok || bad "github: one command per finding"
"$bin" check --format gitlab examples 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d and all({"description", "check_name", "fingerprint", "severity", "location"} <= set(x) for x in d)
assert len({x["fingerprint"] for x in d}) == len(d)
assert all(x["location"]["lines"]["begin"] >= 1 and x["severity"] in ("info", "minor", "major", "critical", "blocker") for x in d)
' && ok || bad "gitlab format"
"$bin" check --format concise examples 2>/dev/null | grep -qE '^examples/model.py:20:9: TL301 ' && ok || bad "concise format"
"$bin" check --statistics examples 2>/dev/null | grep -qE '^ +3  TL102  ' && ok || bad "statistics"
"$bin" check --statistics examples 2>/dev/null | tail -1 | grep -qE '^ +13  total$' && ok || bad "statistics: no total"
"$bin" check --statistics --format json examples 2>/dev/null > "$tmp/stats.json"
python3 - "$tmp/stats.json" <<'PY' && ok || bad "statistics as JSON: $(cat "$tmp/stats.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["total"] == 13 and sum(r["count"] for r in d["rules"]) == 13, d
assert {"code": "TL102", "name": "tensor-value-as-size", "count": 3, "fixable": 0} in d["rules"], d["rules"]
PY
"$bin" rules --format json > "$tmp/rules.json" 2>/dev/null
python3 - "$tmp/rules.json" <<'PY' && ok || bad "rules as JSON: $(head -c 300 "$tmp/rules.json")"
import json, sys
r = {x["code"]: x for x in json.load(open(sys.argv[1]))}
assert r["TL101"]["severity"] == "warning" and r["TL101"]["default"] is True and r["TL101"]["help"], r["TL101"]
assert r["TL603"]["default"] is False and r["TL701"]["fix"] == "unsafe", (r["TL603"], r["TL701"])
PY
"$bin" check --output "$tmp/o.txt" --format concise examples >/dev/null 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q 'TL301' "$tmp/o.txt" && ok || bad "--output"
"$bin" check --quiet examples 2>/dev/null | grep -q 'Found' && bad "--quiet printed the summary" || ok
NO_COLOR=1 "$bin" check --color auto examples 2>/dev/null | grep -q $'\033' && bad "colour without a TTY" || ok
"$bin" check --color always examples 2>/dev/null | grep -q $'\033' && ok || bad "--color always"

# --- suppressions ---
mkdir -p "$tmp/s"
cat > "$tmp/s/train.py" <<'PY'
import torch
from torch.utils.data import DataLoader


def train(model, ds, opt):
    loader = DataLoader(ds, num_workers=0)  # noqa: TL201
    for batch in loader:
        loss = model(batch)
        loss.backward()
        opt.step()
        a = loss.item()  # noqa
        b = loss.item()  # trainlint: ignore[TL101]
        c = loss.item()  # noqa: TL204
        d = float(
            loss.sum()
        )  # noqa: TL101
        e = loss.item()  # noqa: TL1
        f = loss.item()  # noqa: TL102, TL101
PY
cat > "$tmp/s/other.py" <<'PY'
# trainlint: ignore-file[TL201]
from torch.utils.data import DataLoader
loader = DataLoader([], num_workers=1)
loader2 = DataLoader([], num_workers=0)
PY
out=$(cd "$tmp/s" && "$bin" check --format concise --no-source . 2>&1)
[ "$(echo "$out" | grep -c ': TL')" = 1 ] && echo "$out" | grep -q '^train.py:13:13: TL101' && ok || bad "suppressions: $out"
out=$(cd "$tmp/s" && "$bin" check --format concise --report-unused-suppressions . 2>&1)
echo "$out" | grep -q 'train.py:13:28: TL001 \[\*\] warning: unused suppression: no TL204 finding here' && ok || bad "unused suppression not reported: $out"
echo "$out" | grep -q 'train.py:18:28: TL001 .*: no TL102 finding here' && ok || bad "unused code in a list not reported"
echo "$out" | grep -q 'unused suppression.*TL101' && bad "a used suppression reported as unused" || ok
cp "$tmp/s/train.py" "$tmp/s/keep.py"
( cd "$tmp/s" && "$bin" check --add-noqa . >/dev/null 2>&1 )
grep -q 'c = loss.item()  # noqa: TL204, TL101' "$tmp/s/train.py" && ok || bad "--add-noqa did not merge: $(grep 'c = ' "$tmp/s/train.py")"
( cd "$tmp/s" && "$bin" check --format concise . >/dev/null 2>&1 ); rc=$?
[ "$rc" = 0 ] && ok || bad "findings remain after --add-noqa (exit $rc)"

finish
