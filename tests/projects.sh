#!/usr/bin/env bash
# projects.sh - each realistic project in fixtures/projects/<name>/ yields exactly the findings
# listed in its expected-findings.txt (path:line: CODE) for the rule codes on its "# select:" line,
# end to end through the CLI, with one thread and with several (the same list either way).
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
n=0
for dir in "$src"/fixtures/projects/*/; do
  [ -f "$dir/expected-findings.txt" ] || continue
  n=$((n + 1))
  name=$(basename "$dir")
  select=$(sed -n 's/^# select: *//p' "$dir/expected-findings.txt" | head -1)
  if [ -z "$select" ]; then bad "$name: expected-findings.txt has no '# select:' line"; continue; fi
  want=$(grep -v '^#' "$dir/expected-findings.txt" | sed '/^$/d' | sort)
  for j in 1 4; do
    got=$(cd "$dir" && "$bin" check -j$j --select "$select" --format concise --no-source . |
          sed -E 's#^\./##; s#^([^:]+:[0-9]+):[0-9]+: (TL[0-9]+) .*#\1: \2#' | grep -E '^[^ ]+:[0-9]+: TL[0-9]+$' | sort)
    if [ "$got" = "$want" ]; then
      ok
    else
      bad "$name (-j$j): findings differ from expected-findings.txt"
      diff <(echo "$want") <(echo "$got") | sed -n 's/^</  Missing:/p; s/^>/  Noisy:/p'
    fi
  done
done
[ $n -ge 1 ] && ok || bad "no project with an expected-findings.txt under fixtures/projects"
finish
