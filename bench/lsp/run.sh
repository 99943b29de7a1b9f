#!/usr/bin/env bash
# bench/lsp/run.sh - how fast `trainlint server` re-diagnoses a 5,000-line file while the user
# types: replays the edits recorded from Neovim (bench/lsp/edits.json) and reports the median,
# 90th percentile and maximum latency (edit -> publishDiagnostics; edit -> pull report) and the
# server's own analysis time. A benchmark, not a test: it prints numbers and judges nothing.
#
# usage: bench/lsp/run.sh [options]
#   --build-dir DIR  CMake build directory (default: <repo>/build); configured with Ninja when new
#   --no-build       use the trainlint binary already in the build directory
#   --lines N        size of the generated file (default 5000)
#   --rounds N       times the recording is replayed, per mode (default 3)
#   --jobs N         server analysis threads (default 1: the target is one core)
#   --pin CPU        pin the server to this CPU with taskset (default 0; "none": do not pin)
#   --debounce MS    the server's --debounce (default: the server's own)
#   --json FILE      also write every measurement as JSON
#   --workdir DIR    keep the workspace, the server's log and the client's files in DIR (default: a
#                    temporary directory, removed afterwards)
#   --record         record a new bench/lsp/edits.json with Neovim instead of measuring
#   -h, --help
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir="$root/build"
do_build=1
pin=0
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=${2:?--build-dir needs a value}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --pin) pin=${2:?--pin needs a value}; shift 2 ;;
    --lines|--rounds|--jobs|--debounce|--json|--workdir) args+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
    --record) args+=("$1"); shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$do_build" = 1 ]; then
  [ -f "$build_dir/CMakeCache.txt" ] || cmake -S "$root" -B "$build_dir" -G Ninja >/dev/null
  cmake --build "$build_dir" --target trainlint >/dev/null
fi
[ -x "$build_dir/trainlint" ] || { echo "run.sh: no $build_dir/trainlint (build it or drop --no-build)" >&2; exit 2; }
[ "$pin" = none ] || command -v taskset >/dev/null || { echo "run.sh: taskset not found: not pinning" >&2; pin=none; }
[ "$pin" = none ] || args+=(--pin "$pin")
exec python3 "$here/bench.py" "$build_dir/trainlint" "${args[@]}"
