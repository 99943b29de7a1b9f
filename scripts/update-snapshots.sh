#!/usr/bin/env bash
# update-snapshots.sh - rewrites the fixture snapshots (<project>/snapshots/*.snap under fixtures/
# and examples/) from the current build, removes the ones no fixture has any more, and shows what
# changed; review the changes with git diff before committing them (tests/README.md).
# usage: scripts/update-snapshots.sh [BUILD [DIR...]]   BUILD: the build directory (default: build);
#        DIR: only these fixture directories, relative to the source tree (default: all)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
[ $# -gt 0 ] && shift
bin=$build/tests/test_fixtures
if [ ! -x "$bin" ]; then
  echo "update-snapshots.sh: no $bin; build first: cmake --build $build" >&2
  exit 2
fi
cmake --build "$build" --target test_fixtures >/dev/null
TRAINLINT_UPDATE_SNAPSHOTS=1 "$bin" "$@"
git -C "$src" status --short -- '*.snap'
