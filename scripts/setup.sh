#!/bin/sh
# setup.sh [--tests] - installs the Debian packages that building trainlint needs (only what is
# missing); with --tests also what its tests need (Python, git, patch, pre-commit, clang for the
# fuzz and ThreadSanitizer builds).
set -eu
tests=false
for arg in "$@"; do
  case $arg in
  --tests) tests=true ;;
  -h | --help) sed -n '2,4p' "$0"; exit 0 ;;
  *) echo "setup: unknown argument: $arg (use --tests)" >&2; exit 2 ;;
  esac
done
missing=""
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need_pc() { pkg-config --exists "$1" 2>/dev/null || missing="$missing $2"; }
need_cmd cc build-essential
need_cmd make build-essential
need_cmd cmake cmake
need_cmd pkg-config pkg-config
need_cmd npm npm            # fetches the pinned grammar (any npm works: Debian's or one already installed)
if $tests; then
  need_cmd python3 python3    # test scripts
  python3 -c 'import ensurepip, yaml' >/dev/null 2>&1 || missing="$missing python3-venv python3-yaml"  # pip and CI-template tests
  need_cmd patch patch
  need_cmd git git
  need_cmd pre-commit pre-commit  # tests of .pre-commit-hooks.yaml
  [ -f "$(clang -print-file-name="libclang_rt.fuzzer-$(uname -m).a" 2>/dev/null)" ] || missing="$missing clang libclang-rt-dev"  # fuzz/TSan tests
fi
if command -v pkg-config >/dev/null 2>&1; then
  need_pc tree-sitter libtree-sitter-dev
  need_pc libpcre2-8 libpcre2-dev
  need_pc libcjson libcjson-dev
else
  missing="$missing libtree-sitter-dev libpcre2-dev libcjson-dev"
fi
[ -z "$missing" ] && exit 0
missing=$(printf '%s\n' $missing | sort -u | tr '\n' ' ')
echo "setup: installing: $missing"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
  echo "setup: need root (or sudo) to install: $missing" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
