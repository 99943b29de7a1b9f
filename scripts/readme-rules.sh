#!/usr/bin/env bash
# readme-rules.sh - writes README.md's rules table (between its two "rules table" marker comments)
# from the front matter of rules/*.md: code, name and synopsis. With --check it writes nothing
# and fails, printing the difference, when README.md is not what it would write.
# usage: scripts/readme-rules.sh [--check] [SRC]   (SRC: the source tree, default: this script's)
set -u
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
readme=$src/README.md
begin='<!-- rules table: generated from rules/*.md (code, name, synopsis) by scripts/readme-rules.sh -->'
end='<!-- end of rules table -->'

# One row per rule file, in file-name order (which is code order).
table() {
  echo '| code | name | what |'
  echo '| --- | --- | --- |'
  local f
  for f in "$src"/rules/*.md; do
    awk -v file="${f#"$src"/}" '
      function val(s) { sub(/^[^:]*:[ \t]*/, "", s); sub(/[ \t\r]+$/, "", s)
                        q = substr(s, 1, 1)
                        if (length(s) >= 2 && (q == "\"" || q == "\047") && substr(s, length(s)) == q)
                          s = substr(s, 2, length(s) - 2)
                        return s }
      NR == 1 && $0 != "---" { print file ": no front matter" > "/dev/stderr"; bad = 1; exit }
      NR > 1 && $0 == "---" { done = 1; exit }
      /^code:/ { code = val($0) }
      /^name:/ { name = val($0) }
      /^synopsis:/ { syn = val($0) }
      END {
        if (bad) exit 1
        if (!done || code == "" || name == "" || syn == "") {
          print file ": the front matter needs code, name and synopsis" > "/dev/stderr"; exit 1 }
        gsub(/\|/, "\\|", syn)
        printf "| %s | %s | %s |\n", code, name, syn
      }' "$f" || return 1
  done
}

rows=$(table) || exit 1
if [ "$(grep -cxF -e "$begin" -e "$end" "$readme")" != 2 ]; then
  echo "README.md: expected the marker lines '$begin' and '$end' once each" >&2
  exit 1
fi
new=$(mktemp)
trap 'rm -f "$new"' EXIT
ROWS=$rows awk -v begin="$begin" -v end="$end" '
  $0 == begin { print; print ENVIRON["ROWS"]; skip = 1; next }
  $0 == end { skip = 0 }
  !skip { print }' "$readme" > "$new"
if [ $check = 1 ]; then
  if ! diff -u --label README.md --label "README.md as scripts/readme-rules.sh writes it" "$readme" "$new"; then
    echo "README.md's rules table is out of date: run scripts/readme-rules.sh" >&2
    exit 1
  fi
  echo "README.md's rules table matches rules/*.md"
elif ! cmp -s "$readme" "$new"; then
  cat "$new" > "$readme"
  echo "README.md: rules table rewritten"
fi
