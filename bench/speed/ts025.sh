#!/usr/bin/env bash
# ts025.sh - evaluates tree-sitter 0.25 (runtime 0.25.1, tree-sitter-python 0.25.0, ABI 15) against
# the pair trainlint builds with (Debian's runtime 0.20.7, tree-sitter-python 0.23.6, ABI 14): which
# valid Python each rejects, how many files of a corpus parse with an error, and the parse floor's
# time on that corpus.
#
# usage: bench/speed/ts025.sh [--build-dir DIR] [--runs N] [PATH...]
#
# It fetches the two npm packages with `npm pack` into a temporary directory (the network is
# needed), checks each tarball against its pin below, and builds bench/speed/parse_floor.c against
# the runtime the `tree-sitter` package vendors (lib/src/lib.c) and the grammar's parser.c and
# scanner.c. Nothing fetched is kept. The 0.20.7 floor is DIR/bench/speed/tl_parse_floor (default
# build/). PATHs default to the two snippets below; give a corpus (bench/speed/run.sh's torch
# corpus) to compare error counts and times: N runs of each floor, alternating (default 3), -j 1.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
runs=3
paths=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) paths+=("$1"); shift ;;
  esac
done
old=$build/bench/speed/tl_parse_floor
[ -x "$old" ] || { echo "ts025.sh: $old not built (cmake --build $build --target tl_parse_floor)" >&2; exit 2; }
command -v npm >/dev/null || { echo "ts025.sh: npm is needed to fetch the packages" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name version integrity (sha512, as npm reports it)
pins=(
  "tree-sitter 0.25.1 sha512-mrcEdkYtHfrK1A6fs3O6FxkBo0Qig5XUXqHhxUOQu0bmPo00QF4XaSx4edpazdHwxnSCjlGKGgIqWdaN4dvTLA=="
  "tree-sitter-python 0.25.0 sha512-eCmJx6zQa35GxaCtQD+wXHOhYqBxEL+bp71W/s3fcDMu06MrtzkVXR437dRrCrbrDbyLuUDJpAgycs7ncngLXw=="
)
for p in "${pins[@]}"; do
  read -r name version integrity <<<"$p"
  (cd "$tmp" && npm pack --silent "$name@$version" >/dev/null 2>&1) || { echo "ts025.sh: npm pack $name@$version failed" >&2; exit 2; }
  tgz=$tmp/$name-$version.tgz
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  [ "$got" = "$integrity" ] || { echo "ts025.sh: $name@$version does not match its pin" >&2; exit 2; }
  mkdir -p "$tmp/$name" && tar xzf "$tgz" -C "$tmp/$name"
done
rt=$tmp/tree-sitter/package/vendor/tree-sitter/lib
py=$tmp/tree-sitter-python/package/src
cc -O2 -std=gnu11 -pthread -I"$rt/include" -I"$rt/src" -I"$py" -o "$tmp/floor025" \
  "$here/parse_floor.c" "$rt/src/lib.c" "$py/parser.c" "$py/scanner.c"

# Valid Python (Python 3.8 and later) that tree-sitter-python 0.23.6 rejects.
mkdir -p "$tmp/snippets"
printf 'def train(model, loader, y):\n    for x in loader:\n        loss = (model(x) +\n    y).sum()\n        loss.backward()\n' > "$tmp/snippets/dedent.py"
printf 'def f(a, y):\n    return a, *(int(x) for x in y)\n' > "$tmp/snippets/star_return.py"
for s in "$tmp"/snippets/*.py; do
  python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" "$s" || { echo "ts025.sh: $s is no valid Python" >&2; exit 2; }
  e_old=$("$old" -j 1 "$s" | sed -n 's/^syntax_error_files //p')
  e_new=$("$tmp/floor025" -j 1 "$s" | sed -n 's/^syntax_error_files //p')
  echo "$(basename "$s"): files with a syntax error: 0.20.7/0.23.6 ${e_old:-?}, 0.25.1/0.25.0 ${e_new:-?}"
done
[ ${#paths[@]} -gt 0 ] || exit 0
for i in $(seq "$runs"); do
  for which in old new; do
    bin=$old
    [ "$which" = new ] && bin=$tmp/floor025
    echo "== run $i, $([ "$which" = old ] && echo "runtime 0.20.7, tree-sitter-python 0.23.6" || echo "runtime 0.25.1, tree-sitter-python 0.25.0")"
    "$bin" -j 1 "${paths[@]}"
  done
done
