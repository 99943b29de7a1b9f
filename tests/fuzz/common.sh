# common.sh - sourced by the fuzz scripts: the harness list and each harness's seed corpus and dictionary.
# shellcheck shell=bash
TL_FUZZ_HARNESSES="analyze edit rules config lsp notebook cache"

# fuzz_seeds HARNESS SRC DIR [BINARY]: fills DIR with the seed inputs of HARNESS (copies; DIR is
# created). The cache harness makes its own (the bodies of the examples' and fixtures' cache
# entries): its BINARY is needed.
fuzz_seeds() {
  local h=$1 src=$2 dir=$3 bin=${4:-} d f
  mkdir -p "$dir"
  case $h in
  analyze | edit)
    # every Python file alone, and each fixture directory as one multi-file input ("#@file NAME")
    local roots=() r
    for r in fixtures examples tests/lsp/project; do [ -d "$src/$r" ] && roots+=("$src/$r"); done
    find "${roots[@]}" -name '*.py' -type f -print0 |
      while IFS= read -r -d '' f; do cp "$f" "$dir/$(echo "${f#"$src"/}" | tr '/' '_')"; done
    for d in "$src"/fixtures/*/ "$src"/fixtures/model/*/ "$src/examples/"; do
      local out
      out="$dir/project_$(echo "${d#"$src"/}" | tr '/' '_')"
      : > "$out"
      for f in "$d"*.py; do
        [ -f "$f" ] || continue
        printf '#@file %s\n' "$(basename "$f")" >> "$out"
        cat "$f" >> "$out"
      done
    done
    # line ends and indentation as other editors write them
    tr '\n' '\r' < "$src/examples/train.py" > "$dir/line_ends_cr.py"
    sed 's/$/\r/' "$src/examples/train.py" > "$dir/line_ends_crlf.py"
    sed 's/^    /\t/' "$src/examples/train.py" > "$dir/indent_tabs.py" ;;
  rules) cp "$src"/rules/*.md "$dir/"; cp "$src"/tests/lsp/project/test-rules/*.md "$dir/" 2>/dev/null ;;
  config) cp "$src"/tests/fuzz/seeds/config/* "$dir/"
    find "$src" \( -name .git -o -name 'build*' -o -name node_modules \) -prune -o -name pyproject.toml -type f -print0 |
      while IFS= read -r -d '' f; do cp "$f" "$dir/$(echo "${f#"$src"/}" | tr '/' '_')"; done ;;
  lsp) cp "$src"/tests/fuzz/seeds/lsp/* "$dir/" ;;
  notebook) cp "$src"/tests/data/notebooks/*.ipynb "$dir/" ;;
  cache) [ -n "$bin" ] && TL_FUZZ_CACHE_SEEDS="$dir" "$bin" -- "$src"/examples/*.py "$src"/fixtures/TL1*/*.py >/dev/null 2>&1 ;;
  esac
  # the committed crash inputs are seeds too
  [ -d "$src/tests/fuzz/regressions/$h" ] && cp "$src/tests/fuzz/regressions/$h"/* "$dir/" 2>/dev/null
  return 0
}

# fuzz_dict HARNESS SRC: the dictionary file of HARNESS
fuzz_dict() {
  case $1 in analyze | edit | cache) echo "$2/tests/fuzz/dict/python.dict" ;; *) echo "$2/tests/fuzz/dict/$1.dict" ;; esac
}
