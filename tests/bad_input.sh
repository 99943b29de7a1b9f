#!/usr/bin/env bash
# bad_input.sh - hostile and broken inputs: each gets a located message on stderr, the other
# files are still analysed with the same findings, and the exit codes are the documented ones.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"

mkdir -p "$tmp/proj"
cp "$src/examples/"*.py "$tmp/proj/"
( cd "$tmp/proj" && "$bin" check --format concise --no-source . 2>/dev/null | sort ) > "$tmp/clean.txt"
[ -s "$tmp/clean.txt" ] && ok || bad "the clean project has no findings"

# Hostile neighbours.
printf '\x7fELF\x02\x01\x01\x00\x00\x00binary' > "$tmp/proj/blob.py"
printf 'x = 1\ny = "\xc3\x28"\n' > "$tmp/proj/latin.py"
printf 'import torch\n\ndef f(:\n    pass\n' > "$tmp/proj/broken_syntax.py"
printf 'print "python 2"\n' > "$tmp/proj/py2.py"
: > "$tmp/proj/empty.py"
printf '\xef\xbb\xbfimport torch\n' > "$tmp/proj/bom.py"
printf 'import torch\r\nx = 1\r\n' > "$tmp/proj/crlf.py"
mkfifo "$tmp/proj/pipe.py"
ln -s nowhere.py "$tmp/proj/dangling.py"
python3 -c "print('x = ' + '(' * 10000 + '1' + ')' * 10000)" > "$tmp/proj/nested.py"
python3 -c "
print('def f(step, t):')
for i in range(5000):
    print(' ' * (i + 1) + 'if step:')
print(' ' * 5001 + 'pass')" > "$tmp/proj/deep_if.py"

( cd "$tmp/proj" && timeout 60 "$bin" check --format concise --no-source . 2>"$tmp/err.txt" >"$tmp/out.unsorted"; echo $? >"$tmp/rc" )
sort "$tmp/out.unsorted" > "$tmp/out.txt"
rc=$(cat "$tmp/rc")
[ "$rc" = 2 ] && ok || bad "exit code with unreadable inputs: $rc, want 2"
if diff "$tmp/clean.txt" "$tmp/out.txt" >/dev/null; then ok; else bad "findings changed next to hostile files:"; diff "$tmp/clean.txt" "$tmp/out.txt"; fi
grep -q '^blob.py: error: .*binary\|^blob.py:[0-9]*:[0-9]*: error: .*NUL' "$tmp/err.txt" && ok || bad "no located message for the binary file"
grep -q '^latin.py:2:6: error: .*UTF-8' "$tmp/err.txt" && ok || bad "invalid UTF-8 not reported at 2:6"
grep -q '^broken_syntax.py:3:[0-9]*: warning: syntax error' "$tmp/err.txt" && ok || bad "syntax error not located"
# tree-sitter-python still parses much of Python 2 (print statements, backticks): analysed, not an error
grep -q 'py2.py.*error' "$tmp/err.txt" && bad "python 2 file is an error: $(grep py2.py "$tmp/err.txt")" || ok
grep -q 'dangling.py: warning: dangling symbolic link' "$tmp/err.txt" && ok || bad "dangling link not reported"
grep -q 'bom.py' "$tmp/err.txt" && bad "BOM file reported: $(grep bom.py "$tmp/err.txt")" || ok
grep -q 'crlf.py' "$tmp/err.txt" && bad "CRLF file reported" || ok
grep -q 'empty.py' "$tmp/err.txt" && bad "empty file reported" || ok
grep -q 'nested.py:1:[0-9]*: warning: nesting deeper' "$tmp/err.txt" && ok || bad "deep bracket nesting not reported"
grep -q 'deep_if.py:[0-9]*:[0-9]*: warning: \(nesting deeper\|syntax error\)' "$tmp/err.txt" && ok || bad "5000 nested ifs not reported"

# A missing path: located error, exit 2, the rest still analysed.
( cd "$tmp/proj" && rm -f pipe.py dangling.py blob.py latin.py; "$bin" check --format concise --no-source train.py missing.py 2>"$tmp/err2.txt" >"$tmp/out2.txt" ); rc=$?
[ "$rc" = 2 ] && ok || bad "missing path: exit $rc, want 2"
grep -q '^missing.py: error: no such file' "$tmp/err2.txt" && ok || bad "missing path message: $(cat "$tmp/err2.txt")"
grep -q '^train.py:' "$tmp/out2.txt" && ok || bad "train.py not analysed next to a missing path"

# Findings in the part of a file that parses survive a syntax error elsewhere.
cat > "$tmp/proj/half.py" <<'PY'
import torch
def train(model, loader, opt):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        opt.step()
        print(loss.item())

def broken(:
PY
( cd "$tmp/proj" && "$bin" check --format concise --no-source half.py 2>/dev/null ) | grep -q '^half.py:7:[0-9]*: TL101' && ok || bad "finding lost next to a syntax error"
# Where findings may be lost is said: the statement holding the error, by its lines, once per
# statement (tree-sitter-python 0.23.6 rejects a continuation line indented less than its statement,
# valid Python, and reads the loop around it with another structure).
cat > "$tmp/proj/dedent.py" <<'PY'
import torch
def train(model, loader, opt, y):
    for x in loader:
        loss = (model(x.cuda()) +
    y).sum()
        loss.backward()
        opt.step()
        print(loss.item())

def other(:
    pass

def fine(model, loader):
    for x in loader:
        print(model(x.cuda()).sum().item())
PY
( cd "$tmp/proj" && "$bin" check --format concise --no-source dedent.py > "$tmp/dd.out" 2> "$tmp/dd.err" )
grep -q '^dedent.py:4:[0-9]*: warning: syntax error: the statement at lines 2-8 may be read with another structure, and findings in it may be missing' "$tmp/dd.err" &&
  [ "$(grep -c 'warning: syntax error' "$tmp/dd.err")" = 2 ] && grep -q '^dedent.py:10:[0-9]*: warning: syntax error' "$tmp/dd.err" &&
  grep -q '^dedent.py:15:[0-9]*: TL101' "$tmp/dd.out" && ok || bad "syntax errors not said by statement: $(cat "$tmp/dd.err" "$tmp/dd.out")"

# A broken rule file: file:line:col and exit 2.
mkdir -p "$tmp/rules"
cat > "$tmp/rules/bad.md" <<'MD'
---
code: TLX01
name: broken
message: "m"
---
## Query
```query
(call function: (identifier) @f
  (#no-such-predicate? @f))
```
MD
"$bin" check --rules "$tmp/rules" "$tmp/proj/train.py" >/dev/null 2>"$tmp/err3.txt"; rc=$?
[ "$rc" = 2 ] && ok || bad "broken rule file: exit $rc, want 2"
grep -q "bad.md:9:4: error: unknown predicate #no-such-predicate?" "$tmp/err3.txt" && ok || bad "rule error not located: $(cat "$tmp/err3.txt")"
printf -- '---\ncode: TLX02\nname: x\nmessage: m\n---\n```query\n(call function: (identifer))\n```\n' > "$tmp/rules/bad.md"
"$bin" check --rules "$tmp/rules" "$tmp/proj/train.py" >/dev/null 2>"$tmp/err4.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "bad.md:7:18: error: query: unknown node type" "$tmp/err4.txt" && ok || bad "bad query not located: $(cat "$tmp/err4.txt")"

# Binding predicates: #parent!/#field! bind captures the pattern does not match (a message names
# one); their not- form is refused; errors in a rule using them are still located.
cat > "$tmp/rules/bad.md" <<'MD'
---
code: TLX03
name: lr-literal
hot: none
message: "`{{fn}}` gets lr"
---
```query
((keyword_argument name: (identifier) @k) @kw
 (#eq? @k "lr")
 (#parent! @kw @args "argument_list")
 (#parent! @args @call "call")
 (#field! @call "function" @fn))
```
MD
printf 'import torch\nopt = torch.optim.SGD(params, lr=0.1)\nclass C(Base, lr=1):\n    pass\n' > "$tmp/proj/lr.py"
"$bin" check --rules "$tmp/rules" --select TLX03 --format concise --no-source "$tmp/proj/lr.py" >"$tmp/out5.txt" 2>&1
grep -q 'lr.py:2:31: TLX03 warning: `torch.optim.SGD` gets lr' "$tmp/out5.txt" && [ "$(grep -c TLX03 "$tmp/out5.txt")" = 1 ] && ok || bad "#parent!/#field! binding: $(cat "$tmp/out5.txt")"
sed -i 's/(#parent! @args @call "call")/(#not-parent! @args @call "call")/' "$tmp/rules/bad.md"
"$bin" check --rules "$tmp/rules" "$tmp/proj/lr.py" >/dev/null 2>"$tmp/err5.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "bad.md:11:3: error: #not-parent!: a binding predicate has no not- form" "$tmp/err5.txt" && ok || bad "#not-parent! not refused: $(cat "$tmp/err5.txt")"
sed -i 's/(#not-parent! @args @call "call")/(#parent! @args @call "call")/; s/"function" @fn/"functon" @fn/' "$tmp/rules/bad.md"
"$bin" check --rules "$tmp/rules" "$tmp/proj/lr.py" >/dev/null 2>"$tmp/err7.txt"; rc=$?
[ "$rc" = 2 ] && grep -q 'bad.md:12:3: error: #field!: the grammar has no field "functon"' "$tmp/err7.txt" && ok || bad "unknown field not refused: $(cat "$tmp/err7.txt")"
sed -i 's/"functon" @fn/"function" @fn/; s/(keyword_argument name:/(keyword_argumnt name:/' "$tmp/rules/bad.md"
"$bin" check --rules "$tmp/rules" "$tmp/proj/lr.py" >/dev/null 2>"$tmp/err6.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "bad.md:8:3: error: query: unknown node type" "$tmp/err6.txt" && ok || bad "error in a rule with #parent! not located: $(cat "$tmp/err6.txt")"

# A pattern binds at most 16 captures: a 17th binding predicate is a located error, not a match
# silently dropped.
{ printf -- '---\ncode: TLX04\nname: many-bindings\nhot: none\nmessage: "x"\n---\n```query\n((call) @c0\n'
  for i in $(seq 1 17); do printf ' (#unparen! @c%d @c%d)\n' $((i - 1)) "$i"; done
  printf ')\n```\n'; } > "$tmp/rules/bad.md"
"$bin" check --rules "$tmp/rules" "$tmp/proj/lr.py" >/dev/null 2>"$tmp/err8.txt"; rc=$?
[ "$rc" = 2 ] && grep -q "bad.md:9:3: error: #unparen!: a pattern has at most 16 binding predicates" "$tmp/err8.txt" && ok || bad "17 bindings not refused: $(cat "$tmp/err8.txt")"
sed -i '/(#unparen! @c16 @c17)/d' "$tmp/rules/bad.md"
"$bin" check --rules "$tmp/rules" --select TLX04 --format concise --no-source "$tmp/proj/lr.py" >"$tmp/out8.txt" 2>&1
[ "$(grep -c TLX04 "$tmp/out8.txt")" = 1 ] && ok || bad "16 bindings: $(cat "$tmp/out8.txt")"

# A file ending inside an unterminated f-string must not change how the next file parsed by the
# same worker (-j 1: all of them) reads: the grammar's scanner kept its f-string flag across parses.
mkdir -p "$tmp/fstr"
printf 'x = f"\n' > "$tmp/fstr/a.py"
printf 'def train(model, loader):\n    for x in loader:\n        if x:\n            y = 1\n        loss = model(x.cuda()).mean()\n        print(loss.item())\n' > "$tmp/fstr/b.py"
( cd "$tmp/fstr" && "$bin" check -j 1 --no-cache --format concise --no-source b.py ) >"$tmp/fstr_b.txt" 2>&1
( cd "$tmp/fstr" && "$bin" check -j 1 --no-cache --format concise --no-source a.py b.py ) >"$tmp/fstr_ab.txt" 2>&1
grep -q '^b.py:6:' "$tmp/fstr_b.txt" && ok || bad "b.py alone: no finding on line 6: $(cat "$tmp/fstr_b.txt")"
if [ "$(grep '^b.py' "$tmp/fstr_ab.txt")" = "$(grep '^b.py' "$tmp/fstr_b.txt")" ]; then ok; else
  bad "b.py after an unterminated f-string reads differently:"; diff "$tmp/fstr_b.txt" "$tmp/fstr_ab.txt"; fi

finish
