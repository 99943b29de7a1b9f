#!/usr/bin/env bash
# schemas.sh - the JSON Schemas of docs/schema/, checked by support/jsonschema_subset.py (the subset
# of JSON Schema they use; any other keyword is refused) and support/schema_checks.py:
# - the validator refuses schemas outside its subset and finds what each keyword forbids;
# - `check --format json` on examples/, every fixture, notebooks, broken inputs, with
#   --unsafe-fixes, --show-fixes, --fix, --statistics and standard input validates against
#   findings.schema.json, and every property the schema declares appears in these reports;
#   documents made wrong from them (an extra field, a wrong type, a missing field) do not;
# - config.schema.json has exactly the keys that src/app/config/tl_config.c accepts and that
#   docs/config.md's example sets, and agrees with trainlint on each key's examples, on wrong
#   values, and on the configurations of docs/config.md and of the tests.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
V="$src/tests/support/jsonschema_subset.py"
C="$src/tests/support/schema_checks.py"
F="$src/docs/schema/findings.schema.json"

python3 "$C" validator "$src/docs/schema" && ok || bad "the validator"

# reports: RUN NAME EXPECTED-EXIT ARGS... writes $tmp/r/NAME.json
mkdir -p "$tmp/r"
run() {
  local name=$1 want=$2
  shift 2
  "$bin" check --format json "$@" > "$tmp/r/$name.json" 2> "$tmp/r/$name.err"
  local rc=$?
  [ "$rc" = "$want" ] && [ -s "$tmp/r/$name.json" ] && ok || bad "$name: exit $rc (not $want): $(head -3 "$tmp/r/$name.err")"
}
cd "$src"
run examples 1 examples
run examples-abs 1 "$src/examples"
run fixtures 1 --select ALL fixtures
run unsafe 1 --select ALL --unsafe-fixes fixtures tests/data/notebooks
run notebooks 1 --show-fixes tests/data/notebooks
run notebooks-unsafe 1 --show-fixes --unsafe-fixes tests/data/notebooks
run statistics 1 --statistics --select ALL fixtures
run statistics-unsafe 1 --statistics --unsafe-fixes tests/data/notebooks examples
run stdin 1 --stdin-filename train.py - < examples/train.py
# broken inputs: errors (a notebook that is not JSON, bytes that are not UTF-8 or NUL), a warning
# in a notebook cell (a syntax error), and a severity raised to error by the configuration
mkdir -p "$tmp/p" && cd "$tmp/p"
cp -r "$src/tests/data/notebooks" "$src/examples" .
printf '{"cells": [' > broken.ipynb
printf 'x = "\377"\n' > latin.py
printf 'x = 1\0\n' > nul.py
python3 - <<'PY'
import json
cell = lambda src: {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": src}
nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell(["import torch\n"]), cell(["def f(:\n", "    pass\n"])]}
json.dump(nb, open("syntax.ipynb", "w"))
PY
printf '[tool.trainlint]\nextend-select = ["ALL"]\n[tool.trainlint.severity]\nTL101 = "error"\n' > pyproject.toml
run errors 2 .
# --fix (safe and unsafe) over copies: the report of what is left
run fixed 1 --fix --unsafe-fixes examples notebooks
cd "$src"

python3 "$V" --coverage "$F" "$tmp"/r/*.json && ok || bad "reports invalid against findings.schema.json, or a property unseen"
python3 "$C" findings "$F" "$tmp"/r/*.json && ok || bad "findings.schema.json accepts wrong documents, or the reports miss a case"
python3 "$C" config "$bin" "$src" "$tmp" && ok || bad "config.schema.json and trainlint disagree"
finish
