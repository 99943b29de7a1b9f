#!/usr/bin/env bash
# metamorphic.sh - findings must not change under rewrites that keep a program's meaning (a leading
# blank line, comment or docstring, a BOM, CRLF, tabs, `import torch as T`, a parenthesised
# right-hand side, a shebang, lone CRs, form feeds, 2- and 8-space indents, trailing spaces,
# black-wrapped calls, comments between statements, unrelated code, a sibling project, renames, a
# function moved to another module, a loop body moved to a function):
# tests/support/metamorphic.py over every fixture project and examples/.
set -u
bin=$1 src=$2
exec python3 "$src/tests/support/metamorphic.py" "$bin" "$src"
