#!/usr/bin/env bash
# lsp.sh - protocol tests of `trainlint server`: the scripted sessions of tests/lsp/sessions/
# (requests -> expected responses and notifications), driven by tests/lsp/drive.py.
set -u
bin=$1 src=$2
command -v python3 >/dev/null || { echo "FAIL: python3 is required"; exit 1; }
exec python3 "$src/tests/lsp/drive.py" "$bin" "$src"/tests/lsp/sessions/*.session
