#!/usr/bin/env bash
# rule_files.sh - every rules/*.md is named <code>-<name>.md after its front matter, opens with
# "# <code>: <name>", and has the documentation sections, in order and not empty: What it does,
# Why is this bad?, Example (with a ```python block), Use instead, Fix safety, Cost, then Query,
# and Fix exactly when the front matter says fix: safe or unsafe. Every rule has fixtures/<code>/
# with at least one `# ruleid:` and one `# ok:` annotation naming it, and every entry of fixtures/
# is a rule's directory, model/ or projects/.
# usage: tests/docs/rule_files.sh SRC
set -u
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$src/tests/support/lib.sh"
n=0
for f in "$src"/rules/*.md; do
  n=$((n + 1))
  rel=${f#"$src"/}
  problems=$(awk -v base="$(basename "$f" .md)" '
    function val(s) { sub(/^[^:]*:[ \t]*/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    function problem(s) { print "  " s; bad = 1 }
    # the front matter
    NR == 1 { if ($0 != "---") problem("no front matter"); fm = 1; next }
    fm && $0 == "---" { fm = 0; after = 1; next }
    fm && /^code:/ { code = val($0) }
    fm && /^name:/ { name = val($0) }
    fm && /^fix:/ { fix = val($0) }
    fm { next }
    after == 1 && NF { after = 0; title = $0 }
    /^```/ { if (!inblock) { inblock = 1; fence[sec] = fence[sec] " " substr($0, 4) } else inblock = 0; next }
    inblock { body[sec]++; next }
    /^## / { sec = substr($0, 4); order = order "|" sec; next }
    sec != "" && NF { body[sec]++ }
    END {
      if (code "-" name != base) problem("the front matter says " code "-" name ", the file name " base)
      if (title != "# " code ": " name) problem("the first line after the front matter is not \"# " code ": " name "\"")
      want = "|What it does|Why is this bad?|Example|Use instead|Fix safety|Cost|Query"
      if (fix == "safe" || fix == "unsafe") want = want "|Fix"
      if (order != want) problem("sections " order "|, want " want "|")
      split(substr(want, 2), secs, "|")
      for (i in secs) if (!body[secs[i]]) problem("section \"" secs[i] "\" is empty")
      if (fence["Example"] !~ / python/) problem("Example has no ```python block")
      exit bad
    }' "$f")
  if [ -n "$problems" ]; then bad "$rel:"; echo "$problems"; else ok; fi
  code=$(sed -n 's/^code: *//p' "$f" | head -1)
  dir=$src/fixtures/$code
  if [ ! -d "$dir" ]; then bad "$rel: no fixtures/$code/"; continue; fi
  pos=$(grep -rhE --include='*.py' "^[[:space:]]*# ruleid:.*\\b$code\\b" "$dir" | wc -l)
  neg=$(grep -rhE --include='*.py' "^[[:space:]]*# ok:.*\\b$code\\b" "$dir" | wc -l)
  [ "$pos" -ge 1 ] && ok || bad "fixtures/$code/ has no '# ruleid: $code' (a case the rule must report)"
  [ "$neg" -ge 1 ] && ok || bad "fixtures/$code/ has no '# ok: $code' (a look-alike the rule must not report)"
done
[ $n -ge 1 ] && ok || bad "no rules/*.md"
for d in "$src"/fixtures/*; do
  name=$(basename "$d")
  case $name in model | projects) ok; continue ;; esac
  if [ -d "$d" ] && ls "$src"/rules/"$name"-*.md >/dev/null 2>&1; then ok
  else bad "fixtures/$name belongs to no rule (rules/$name-*.md) and is not model/ or projects/: no test runs it"; fi
done
finish
