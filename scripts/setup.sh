#!/bin/sh
# setup.sh - installs the Debian packages trainlint needs to build and test (only the missing ones).
set -eu
pkgs="build-essential cmake pkg-config libtree-sitter-dev libpcre2-dev libcjson-dev nodejs npm python3 patch git"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
  echo "setup: need root (or sudo) to install:$missing" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
