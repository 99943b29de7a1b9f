#!/usr/bin/env bash
# notebooks.sh - Jupyter notebooks: found by the walk, analysed as the Python of their code cells
# (magics and shell lines harmless), reported as `nb.ipynb:cell N:L:C` (JSON/SARIF/GitLab/GitHub
# with the cell), suppression comments in cells honoured, fixes written into the cells' sources
# with every other byte kept (--add-noqa leaves notebooks alone), and a hostile notebook gets a
# located error while the other files are still analysed.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
nb="$src/tests/data/notebooks/train.ipynb"
mkdir -p "$tmp/p"
cp "$nb" "$tmp/p/train.ipynb"
cd "$tmp/p"

"$bin" check --exit-zero --format concise . > out.txt 2> err.txt
# the loss read every step, in the fourth cell (the third code cell), line 9, column 15
grep -q '^train.ipynb:cell 3:9:15: TL101 ' out.txt && ok || bad "text position: $(cat out.txt err.txt)"
# the magics (`%matplotlib`, `!pip`, `files = !ls`) are no syntax errors
[ ! -s err.txt ] && ok || bad "diagnostics on a valid notebook: $(cat err.txt)"
# `# noqa: TL101` in the cell suppresses the read on line 10
! grep -q ':cell 3:10:' out.txt && ok || bad "noqa in a cell not honoured: $(cat out.txt)"
[ "$(grep -c ' TL' out.txt)" = 1 ] && ok || bad "expected exactly one finding: $(cat out.txt)"
# the hot chain names the cell too
"$bin" check --exit-zero . > full.txt 2>&1
grep -q 'why hot: in the step loop at train.ipynb:cell 3:2' full.txt && ok || bad "hot chain: $(cat full.txt)"
grep -q '^9 |         print(loss.item())' full.txt && ok || bad "source line shown with the cell's line number: $(cat full.txt)"

# JSON: line and column within the cell, and the cell
"$bin" check --exit-zero --format json . > out.json
python3 - out.json <<'PY' && ok || bad "JSON position"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1, f
f = f[0]
assert (f["path"], f["cell"], f["end_cell"], f["line"], f["column"]) == ("train.ipynb", 3, 3, 9, 15), f
assert f["hot_path"][0]["cell"] == 3, f["hot_path"]
PY
"$bin" check --exit-zero --format sarif . > out.sarif
python3 - out.sarif <<'PY' && ok || bad "SARIF position"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"][0]
loc = r["locations"][0]
assert loc["properties"]["cell"] == 3, loc
assert loc["physicalLocation"]["region"]["startLine"] == 9, loc
PY
"$bin" check --exit-zero --format github . > out.gh
grep -q '^::warning file=train.ipynb,title=TL101::cell 3:9:15: TL101 ' out.gh && ok || bad "github: $(cat out.gh)"
"$bin" check --exit-zero --format gitlab . > out.gl
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "(cell 3)" in d[0]["description"], d' out.gl &&
  ok || bad "gitlab: $(cat out.gl)"

# --add-noqa does not write into notebooks, and --fix has nothing to fix here: the bytes stay
sum=$(cksum < train.ipynb)
"$bin" check --fix --unsafe-fixes --exit-zero . > /dev/null 2>&1
"$bin" check --add-noqa --exit-zero . > /dev/null 2> noqa.err
[ "$(cksum < train.ipynb)" = "$sum" ] && ok || bad "a notebook was rewritten"
grep -q 'add-noqa does not write into notebooks' noqa.err && ok || bad "--add-noqa said nothing: $(cat noqa.err)"

# a fix is written into the cell's source: the rest of the notebook (outputs, metadata, magics,
# the other cells) keeps its bytes, and --diff shows the change of the JSON
mkdir "$tmp/fx" && cd "$tmp/fx"
python3 - <<'PY'
import json
cells = [
    {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
     "source": ["%load_ext autoreload\n", "import torch\n", "from torch.utils.data import DataLoader\n"]},
    {"cell_type": "code", "execution_count": 2, "metadata": {"tags": ["x"]},
     "outputs": [{"name": "stdout", "output_type": "stream", "text": ["\u00e9\n"]}],
     "source": ["loader = DataLoader(ds, batch_size=8, num_workers=4, pin_memory=True, persistent_workers=True)\n",
                "model = torch.nn.Linear(4, 2).cuda()\n", "opt = torch.optim.SGD(model.parameters(), 0.1)\n",
                "total = 0.0\n"]},
    {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
     "source": ["for x, y in loader:\n", "    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)\n",
                "    with torch.autocast('cuda'):\n", "        loss = torch.nn.functional.cross_entropy(model(x), y)\n",
                "    total += loss\n", "    loss.backward()\n", "    opt.step()\n", "    opt.zero_grad()\n", "!echo done"]},
]
json.dump({"cells": cells, "metadata": {"k": 1}, "nbformat": 4, "nbformat_minor": 5}, open("fix.ipynb", "w"),
          indent=1, ensure_ascii=False)
PY
cp fix.ipynb before.ipynb
"$bin" check --exit-zero --format json --unsafe-fixes fix.ipynb > fx.json
"$bin" check --exit-zero --diff --unsafe-fixes fix.ipynb > fx.diff 2>&1
grep -q '^-    "    total += loss\\n",$' fx.diff && grep -q '^+    "    total += loss.detach()\\n",$' fx.diff &&
  ok || bad "--diff of a notebook: $(cat fx.diff)"
"$bin" check --exit-zero --fix --unsafe-fixes fix.ipynb > /dev/null 2>&1
python3 - before.ipynb fix.ipynb fx.json <<'PY' && ok || bad "--fix of a notebook"
import json, sys
before, after = open(sys.argv[1], encoding="utf-8").read(), open(sys.argv[2], encoding="utf-8").read()
a, b = json.loads(before), json.loads(after)
assert b["cells"][2]["source"][4] == "    total += loss.detach()\n", b["cells"][2]["source"]
assert b["cells"][2]["source"][8] == "!echo done"  # the shell line kept as written
a["cells"][2]["source"][4] = "    total += loss.detach()\n"
assert a == b  # nothing else changed
# only the changed line's bytes differ
assert [l for l in after.splitlines() if l not in before.splitlines()] == ['    "    total += loss.detach()\\n",']
# the JSON report's edit, applied to the file as read, gives the same file
f = [x for x in json.load(open(sys.argv[3]))["findings"] if x["code"] == "TL701"][0]
e = f["fix"]["edits"]
assert len(e) == 1
raw = before.encode()
fixed = raw[:e[0]["start_byte"]] + e[0]["content"].encode() + raw[e[0]["end_byte"]:]
assert fixed.decode() == after, (fixed.decode(), after)
PY
cd "$tmp/p"

# hostile notebooks: each a located error; the good notebook and a .py file are still analysed
printf '{"cells": [{"cell_type": "code", "source": ["x = 1\\n", 5]}]}' > bad_source.ipynb
printf 'not json at all' > not_json.ipynb
printf '{"nbformat": 3, "worksheets": []}' > old.ipynb
printf '' > empty.ipynb
python3 -c 'print("{\"metadata\": " + "[" * 200000 + "]" * 200000 + ", \"cells\": []}")' > deep.ipynb
printf '{"cells": [{"cell_type": "code", "source": "\\ud800"}]}' > surrogate.ipynb
printf 'import torch\nfor x in loader:\n    print(x.cuda().sum().item())\n' > plain.py
"$bin" check --exit-zero --format concise . > h.out 2> h.err
grep -q '^bad_source.ipynb:1:56: error: not a valid notebook: expected a string' h.err && ok || bad "bad source: $(cat h.err)"
grep -q '^not_json.ipynb:1:1: error: not a valid notebook' h.err && ok || bad "not json: $(cat h.err)"
grep -q '^old.ipynb:1:1: error: not a valid notebook: no `cells` list' h.err && ok || bad "nbformat 3: $(cat h.err)"
grep -q '^empty.ipynb:1:1: error: not a valid notebook' h.err && ok || bad "empty: $(cat h.err)"
grep -q '^deep.ipynb:1:.*nested too deeply' h.err && ok || bad "deep: $(cat h.err)"
grep -q '^surrogate.ipynb:1:.*lone surrogate' h.err && ok || bad "surrogate: $(cat h.err)"
grep -q '^train.ipynb:cell 3:9:15: TL101' h.out && grep -q '^plain.py:3:' h.out && ok ||
  bad "the other files were not analysed: $(cat h.out)"

# a syntax error in a cell is reported in the cell's lines
printf '{"cells": [{"cell_type": "code", "source": "x = 1\\n"}, {"cell_type": "code", "source": "def f(:\\n    pass\\n"}]}' > syntax.ipynb
"$bin" check --exit-zero syntax.ipynb > s.out 2> s.err
grep -q '^syntax.ipynb:cell 2:1:' s.err && ok || bad "syntax error position: $(cat s.err)"
finish
