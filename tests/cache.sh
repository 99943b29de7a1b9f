#!/usr/bin/env bash
# cache.sh - the persistent cache from the command line (docs/cache.md): cold, warm and --no-cache
# runs print the same bytes in every format, fixes included; --cache-dir, -n, TRAINLINT_NO_CACHE
# and TRAINLINT_CACHE_DIR; the directory ignores itself in git and is never walked; an edited file
# is analysed again and the findings of a file that calls it follow; a damaged or unwritable cache
# costs time, never output.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
mkdir -p "$tmp/p"
cp -r "$src/examples" "$tmp/p/examples"
cp -r "$src/fixtures/TL101" "$src/fixtures/TL204" "$src/fixtures/TL202" "$tmp/p/"
cd "$tmp/p"

run() { "$bin" check --select ALL --exit-zero "$@" . 2> /dev/null; }
for fmt in json text sarif; do
  run --no-cache --format "$fmt" --show-fixes > "want.$fmt"
  rm -rf .trainlint_cache
  run --format "$fmt" --show-fixes > "cold.$fmt"
  run --format "$fmt" --show-fixes > "warm.$fmt"
  cmp -s "want.$fmt" "cold.$fmt" && ok || bad "$fmt: a cold run differs from --no-cache"
  cmp -s "want.$fmt" "warm.$fmt" && ok || bad "$fmt: a warm run differs from --no-cache"
done
[ -s want.json ] && grep -q TL101 want.json && ok || bad "no findings to compare: $(head -c 300 want.json)"
[ "$(find .trainlint_cache -type f -name 'pack-*' | wc -l)" = 1 ] && ok || bad "one pack expected: $(ls -a .trainlint_cache)"
grep -qx '\*' .trainlint_cache/.gitignore && ok || bad "the cache does not ignore itself in git"
head -1 .trainlint_cache/CACHEDIR.TAG | grep -q '^Signature: 8a477f597d28d172789f06886806bc55$' && ok || bad "CACHEDIR.TAG"

# the walk never enters a .trainlint_cache, wherever it is
mkdir -p sub/.trainlint_cache && echo 'x = 1' > sub/.trainlint_cache/stray.py
"$bin" check --show-files . | grep -q 'trainlint_cache' && bad "the walk entered a .trainlint_cache" || ok
rm -rf sub

# the switches
rm -rf .trainlint_cache
run -n --format json > /dev/null
[ ! -e .trainlint_cache ] && ok || bad "-n wrote a cache"
TRAINLINT_NO_CACHE=1 run --format json > /dev/null
[ ! -e .trainlint_cache ] && ok || bad "TRAINLINT_NO_CACHE=1 wrote a cache"
TRAINLINT_NO_CACHE=0 run --format json > /dev/null
[ -d .trainlint_cache ] && ok || bad "TRAINLINT_NO_CACHE=0 turned the cache off"
run --cache-dir "$tmp/elsewhere" --format json > /dev/null
[ -f "$tmp/elsewhere/CACHEDIR.TAG" ] && ok || bad "--cache-dir not used"
TRAINLINT_CACHE_DIR="$tmp/env" run --format json > /dev/null
[ -f "$tmp/env/CACHEDIR.TAG" ] && ok || bad "TRAINLINT_CACHE_DIR not used"
"$bin" check --help 2>&1 | grep -q -- '--no-cache' && ok || bad "--no-cache missing from --help"

# an edit in one file changes another file's findings: a helper becomes hot once a training loop
# calls it
mkdir -p "$tmp/proj" && cd "$tmp/proj"
printf 'def helper(loss):\n    return loss.item()\n' > util.py
printf 'import torch\nfrom util import helper\n\ndef train(model, loader, opt):\n    for x in loader:\n        loss = model(x).sum()\n        loss.backward()\n        opt.step()\n' > train.py
"$bin" check --select TL101 --exit-zero --format concise . > before.txt 2>&1
printf '        helper(loss)\n' >> train.py
"$bin" check --select TL101 --exit-zero --format concise . > cached.txt 2>&1
"$bin" check --select TL101 --exit-zero --format concise --no-cache . > fresh.txt 2>&1
cmp -s cached.txt fresh.txt && ok || bad "after an edit: $(diff cached.txt fresh.txt)"
grep -q '^util.py:2:.*TL101' cached.txt && ok || bad "the unchanged callee's finding did not follow the edit: $(cat cached.txt)"
! grep -q '^util.py:2:' before.txt && ok || bad "the callee was hot before the edit: $(cat before.txt)"

# --fix from a warm cache writes what --fix without one writes
cd "$tmp" && cp -r p/TL202 fixa && cp -r p/TL202 fixb
(cd fixa && "$bin" check --select ALL --fix --unsafe-fixes --exit-zero . > /dev/null 2>&1 && "$bin" check --select ALL --fix --unsafe-fixes --exit-zero . > /dev/null 2>&1)
(cd fixb && "$bin" check --select ALL --fix --unsafe-fixes --exit-zero --no-cache . > /dev/null 2>&1)
diff -r -x .trainlint_cache fixa fixb > /dev/null && ok || bad "--fix with a warm cache differs"
! diff -r -x .trainlint_cache fixa p/TL202 > /dev/null && ok || bad "--fix changed nothing: no test"
cd "$tmp/p"

# a damaged pack and an unwritable cache: the same output
for e in .trainlint_cache/pack-*; do
  head -c 5000 "$e" > "$e.t" && mv "$e.t" "$e"
done
run --format json --show-fixes > "$tmp/damaged.json"
cmp -s want.json "$tmp/damaged.json" && ok || bad "damaged entries changed the output"
chmod -R a-w .trainlint_cache
run --format json --show-fixes > "$tmp/readonly.json"
chmod -R u+w .trainlint_cache
cmp -s want.json "$tmp/readonly.json" && ok || bad "a read-only cache changed the output"
echo 'not a directory' > "$tmp/notadir"
run --cache-dir "$tmp/notadir" --format json --show-fixes > "$tmp/filecache.json"
cmp -s want.json "$tmp/filecache.json" && ok || bad "a file as --cache-dir changed the output"

# beside the project's configuration, from a subdirectory or from outside with a file path
mkdir -p "$tmp/rooted/src/pkg" && cd "$tmp/rooted" && printf '[tool.trainlint]\nselect = ["TL101"]\n' > pyproject.toml
cp "$src/examples/train.py" src/pkg/
(cd src && "$bin" check --exit-zero pkg > /dev/null 2>&1)
[ -f .trainlint_cache/CACHEDIR.TAG ] && [ ! -e src/.trainlint_cache ] && ok || bad "the cache is not beside pyproject.toml: $(find . -name .trainlint_cache)"
rm -rf .trainlint_cache && (cd "$tmp" && "$bin" check --exit-zero "$tmp/rooted/src/pkg/train.py" > /dev/null 2>&1)
[ -f .trainlint_cache/CACHEDIR.TAG ] && [ ! -e "$tmp/.trainlint_cache" ] && ok || bad "a file path from outside: the cache is not beside pyproject.toml"

# a run that keeps no entry and stores none (the one cached file deleted, the other binary): the
# pack goes, and nothing breaks
mkdir -p "$tmp/gone" && cd "$tmp/gone"
printf 'import torch\n' > a.py
"$bin" check --cache-dir c a.py > /dev/null 2>&1
rm a.py && printf 'x\0y\n' > b.py
"$bin" check --cache-dir c b.py > out 2> err; rc=$?
[ "$rc" = 2 ] && grep -q 'binary file' err && ! grep -qi 'runtime error\|sanitizer' err && ok || bad "nothing left to cache: exit $rc: $(cat err)"
[ -z "$(ls c | grep '^pack-')" ] && ok || bad "a pack with nothing in it was kept: $(ls c)"

finish
