#!/usr/bin/env bash
# test_rules_cmd.sh - `trainlint test-rules DIR`: a user rule with annotated fixtures and a fixed
# file passes; a Noisy, a Missing and a fix mismatch are each reported by file and line and fail;
# a broken rule file is exit 2 with its position; a directory without annotations fails.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
mkdir -p "$tmp/r/fixtures"
cat > "$tmp/r/TL950-item-in-print.md" <<'MD'
---
code: TL950
name: item-in-print
synopsis: "`print(x.item())`"
severity: warning
hot: none
fix: safe
message: "`{{finding}}` prints a tensor read"
fix-title: "Print the tensor"
---
# TL950: item-in-print

## What it does
Flags `print(t.item())`.

## Query
```query
((call function: (identifier) @p arguments: (argument_list (call function: (attribute object: (_) @obj attribute: (identifier) @m)) @read)) @finding
 (#eq? @p "print")
 (#eq? @m "item"))
```

## Fix
```fix
replace @read: {{obj}}
```
MD
printf 'import torch\n\nx = torch.ones(3).sum()\n# ruleid: TL950\nprint(x.item())\n# ok: TL950\nprint(x)\n' > "$tmp/r/fixtures/case.py"
sed 's/print(x.item())/print(x)/' "$tmp/r/fixtures/case.py" > "$tmp/r/fixtures/case.fixed.py"
"$bin" test-rules "$tmp/r" > "$tmp/out" 2>&1; rc=$?
[ "$rc" = 0 ] && grep -q "^ok: $tmp/r/fixtures (1 files)" "$tmp/out" && grep -q "0 noisy, 0 missing, 0 fix mismatches" "$tmp/out" &&
  ok || bad "a passing rule: exit $rc: $(cat "$tmp/out")"
# a finding nobody expects, an expected one that does not come, and a fixed file out of date
printf '# ruleid: TL950\ny = x + 1\nprint(y.item())\n' >> "$tmp/r/fixtures/case.py"
"$bin" test-rules "$tmp/r" > "$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && ok || bad "failures: exit $rc, want 1"
grep -q "^Noisy: $tmp/r/fixtures/case.py:10: TL950 " "$tmp/out" && ok || bad "no Noisy line: $(cat "$tmp/out")"
grep -q "^Missing: $tmp/r/fixtures/case.py:9: TL950$" "$tmp/out" && ok || bad "no Missing line: $(cat "$tmp/out")"
grep -q "^Fixed: $tmp/r/fixtures/case.py after --fix --unsafe-fixes differs" "$tmp/out" && ok || bad "no fix mismatch: $(cat "$tmp/out")"
# a rule file that does not compile: its position, exit 2
sed -i 's/(#eq? @m "item"))/(#eq? @m "item")/' "$tmp/r/TL950-item-in-print.md"
"$bin" test-rules "$tmp/r" > "$tmp/out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "TL950-item-in-print.md:[0-9]*:[0-9]*: error: query" "$tmp/out" && ok ||
  bad "a broken rule: exit $rc: $(cat "$tmp/out")"
# nothing annotated
mkdir -p "$tmp/empty" && printf 'x = 1\n' > "$tmp/empty/a.py"
"$bin" test-rules "$tmp/empty" > "$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "no \`# ruleid:\` or \`# ok:\` annotation" "$tmp/out" && ok || bad "no annotations: exit $rc: $(cat "$tmp/out")"
finish
