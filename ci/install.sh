#!/bin/sh
# ci/install.sh PREFIX - builds trainlint from the checkout this script is in (the lean build:
# -DTRAINLINT_TESTS=OFF) and installs it into PREFIX (PREFIX/bin/trainlint). Used by the GitHub
# Action (action.yml) and the GitLab CI template (ci/trainlint.gitlab-ci.yml). The Debian packages
# come from scripts/setup.sh; with TRAINLINT_GRAMMAR_DIR set, the grammars come from there, not
# the network.
set -eu
prefix=${1:?usage: ci/install.sh PREFIX}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRAINLINT_BUILD_DIR:-$root/build-ci}
"$root/scripts/setup.sh"
set -- -S "$root" -B "$build" -DTRAINLINT_TESTS=OFF -DCMAKE_BUILD_TYPE=Release
[ -n "${TRAINLINT_GRAMMAR_DIR:-}" ] && set -- "$@" -DTRAINLINT_GRAMMAR_DIR="$TRAINLINT_GRAMMAR_DIR"
cmake "$@"
cmake --build "$build" -j"$(nproc)"
cmake --install "$build" --prefix "$prefix"
"$prefix/bin/trainlint" --version
