#!/usr/bin/env bash
# lsp_neovim.sh - a real client against `trainlint server`: Neovim's built-in LSP client (0.7+),
# headless, runs tests/lsp/nvim/test.lua on a copy of tests/lsp/project (diagnostics, typing,
# a cross-file change, code actions), and the results and the edited files are checked here.
# Installs Debian's neovim when it is missing (apt-get, as root); fails, not skips, if it cannot.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"

if ! command -v nvim >/dev/null; then
  [ "$(id -u)" -eq 0 ] || { bad "neovim is missing and installing it needs root (apt-get install -y neovim)"; finish; exit 1; }
  # the plain and the sanitizer variants of this test may run at once: one installs, the other waits
  flock /tmp/trainlint-neovim-install.lock sh -c '
    command -v nvim >/dev/null && exit 0
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q -o DPkg::Lock::Timeout=300 neovim >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q -o DPkg::Lock::Timeout=300 neovim; }'
  command -v nvim >/dev/null || { bad "apt-get install -y neovim failed"; finish; exit 1; }
fi
read -r major minor < <(nvim --version | sed -n '1s/^NVIM v\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
if [ "${major:-0}" -eq 0 ] && [ "${minor:-0}" -lt 7 ]; then
  bad "neovim 0.7 or later is needed, found $(nvim --version | head -1)"; finish; exit 1
fi

cp -r "$src/tests/lsp/project" "$tmp/project"
export TL_BIN=$bin TL_ROOT=$tmp/project TL_OUT=$tmp/result.txt
export XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data
timeout 300 nvim --headless -u NONE -i NONE -n -c "luafile $src/tests/lsp/nvim/test.lua" </dev/null >"$tmp/nvim.out" 2>&1
rc=$?
if [ -f "$tmp/result.txt" ]; then
  cat "$tmp/result.txt"
  while read -r line; do
    case "$line" in ok*) ok ;; FAIL*) bad "${line#FAIL }" ;; esac
  done <"$tmp/result.txt"
  grep -q '^DONE$' "$tmp/result.txt" || bad "the Lua test did not finish (neovim exit status $rc)"
else
  bad "neovim wrote no results (exit status $rc)"
fi
grep -q 'pos = torch.arange(x.shape\[1\], device=x.device)$' "$tmp/project/model.py" && ok ||
  bad "model.py on disk lacks the fix: $(sed -n 12p "$tmp/project/model.py")"
grep -q 'print("loss", loss.item())  # noqa: TL101$' "$tmp/project/helpers.py" && ok ||
  bad "helpers.py on disk lacks the suppression: $(sed -n 5p "$tmp/project/helpers.py")"
# the server's stderr lands in Neovim's LSP log: no sanitizer reports there
if cat "$tmp"/cache/nvim/lsp.log "$tmp"/state/nvim/lsp.log 2>/dev/null | grep -q 'AddressSanitizer\|LeakSanitizer\|runtime error:'; then
  bad "sanitizer report from the server"
else
  ok
fi
if [ "$fail" != 0 ]; then
  echo "---- nvim output:"; cat "$tmp/nvim.out"
  for l in "$tmp"/cache/nvim/lsp.log "$tmp"/state/nvim/lsp.log; do [ -f "$l" ] && { echo "---- $l:"; tail -n 40 "$l"; }; done
fi
finish
