#!/usr/bin/env bash
# fix_diff.sh - `--diff` output applies with `patch -p1` and `git apply` and gives exactly what
# `--fix` writes; a second `--fix` changes nothing; file modes survive; output is identical
# across thread counts; JSON output has the documented fields.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"

for d in a b c; do mkdir -p "$tmp/$d"; cp -r "$src/examples" "$src/fixtures" "$tmp/$d/"; done
find "$tmp" -name '*.fixed.py' -delete
chmod 0640 "$tmp/c/examples/paddle_train.py"

( cd "$tmp/a" && "$bin" check --diff --unsafe-fixes examples fixtures > "$tmp/patch.diff" 2>/dev/null )
[ -s "$tmp/patch.diff" ] && ok || bad "--diff printed nothing"
( cd "$tmp/a" && patch -p1 -s < "$tmp/patch.diff" ) && ok || bad "patch -p1 rejected the diff"
( cd "$tmp/b" && git init -q . && git apply "$tmp/patch.diff" ) && ok || bad "git apply rejected the diff"
( cd "$tmp/c" && "$bin" check --fix --unsafe-fixes examples fixtures >/dev/null 2>&1 )
rm -rf "$tmp/b/.git"
diff -r -x .trainlint_cache "$tmp/a" "$tmp/c" >/dev/null && ok || bad "patch -p1 result differs from --fix"
diff -r -x .trainlint_cache "$tmp/b" "$tmp/c" >/dev/null && ok || bad "git apply result differs from --fix"
[ "$(stat -c %a "$tmp/c/examples/paddle_train.py")" = 640 ] && ok || bad "--fix lost the file mode"
ls -a "$tmp/c/examples" | grep -q trainlint- && bad "temporary file left behind" || ok
cp -r "$tmp/c" "$tmp/d"
( cd "$tmp/c" && "$bin" check --fix --unsafe-fixes examples fixtures >/dev/null 2>&1 )
diff -r -x .trainlint_cache "$tmp/c" "$tmp/d" >/dev/null && ok || bad "a second --fix changed files again"
( cd "$tmp/c" && "$bin" check --diff --unsafe-fixes examples fixtures 2>/dev/null ) | grep -q . && bad "--diff after --fix is not empty" || ok

# The fixed files parse no worse than before (no file gains a syntax error), and every finding
# whose fix was applied is gone: per rule and file, the findings left after --fix are at most
# those that had no fix. Opt-in rules (TL001's fix, say) were not enabled for --fix: left out.
( cd "$tmp/d" && "$bin" check --select ALL --format json examples fixtures > "$tmp/after.json" 2>"$tmp/after.err" )
( cd "$src" && "$bin" check --select ALL --format json examples fixtures > "$tmp/before.json" 2>"$tmp/before.err" )
"$bin" rules --all --format json > "$tmp/rules.json"
python3 - "$tmp/before.json" "$tmp/after.json" "$tmp/before.err" "$tmp/after.err" "$tmp/rules.json" <<'PY' && ok || bad "fixed files: new syntax errors, or findings left where a fix was applied"
import collections, json, re, sys
optin = {r["code"] for r in json.load(open(sys.argv[5])) if not r["default"]}
before, after = ([f for f in json.load(open(p))["findings"] if f["code"] not in optin] for p in sys.argv[1:3])
def broken(path):
    return {m.group(1) for m in re.finditer(r"^(\S+?):\d+:\d+: warning: syntax error", open(path).read(), re.M)}
new_errors = broken(sys.argv[4]) - {p for p in broken(sys.argv[3]) if not p.endswith(".fixed.py")}
assert not {p for p in new_errors if not p.endswith(".fixed.py")}, new_errors
unfixable = collections.Counter((f["code"], f["path"]) for f in before if f["fix"] is None)
fixable = collections.Counter((f["code"], f["path"]) for f in before if f["fix"] is not None)
left = collections.Counter((f["code"], f["path"]) for f in after)
assert sum(fixable.values()) > 20, "too few fixes to test"
bad = {k: (left[k], unfixable[k]) for k in fixable if left[k] > unfixable[k]}
assert not bad, bad
PY

# Without --unsafe-fixes nothing unsafe is applied.
( cd "$tmp/d" && cp -r "$src/examples" e2 && "$bin" check --fix e2 >/dev/null 2>&1 )
diff -r -x .trainlint_cache "$src/examples" "$tmp/d/e2" >/dev/null && ok || bad "--fix applied an unsafe fix"

# Deterministic output whatever the thread count.
cd "$src"
"$bin" check -j 1 --format json examples fixtures > "$tmp/j1.json" 2>"$tmp/e1"
"$bin" check -j 4 --format json examples fixtures > "$tmp/j4.json" 2>"$tmp/e4"
cmp -s "$tmp/j1.json" "$tmp/j4.json" && cmp -s "$tmp/e1" "$tmp/e4" && ok || bad "-j 1 and -j 4 differ"

# JSON: the documented fields.
python3 - "$tmp/j1.json" <<'PY' && ok || bad "JSON schema"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema_version"] == 1 and doc["tool"] == "trainlint"
assert doc["findings"], "no findings"
need = {"code", "name", "severity", "path", "line", "column", "end_line", "end_column", "message", "help", "hot_path", "fix"}
for f in doc["findings"]:
    assert need <= set(f), need - set(f)
    assert f["line"] >= 1 and f["column"] >= 1 and (f["end_line"], f["end_column"]) >= (f["line"], f["column"])
    assert not f["path"].startswith("/")
    for h in f["hot_path"]:
        assert {"description", "path", "line", "column"} <= set(h)
    if f["fix"] is not None:
        assert f["fix"]["applicability"] in ("safe", "unsafe") and f["fix"]["edits"]
hot = [f for f in doc["findings"] if f["code"] in ("TL101", "TL102", "TL301", "TL204")]
assert hot and all(f["hot_path"] for f in hot), "a hot-code finding without its reason"
PY
finish
