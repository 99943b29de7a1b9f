#!/usr/bin/env bash
# fuzz.sh [SECONDS] [HARNESS...] - builds the libFuzzer harnesses with clang and fuzzes each for SECONDS (default 300), keeping corpora in a cache dir (started from the committed tests/fuzz/corpus/<harness>/) and copying crashes to tests/fuzz/regressions/<harness>/.
#
# Environment: TRAINLINT_FUZZ_BUILD (build dir, default build-fuzz), TRAINLINT_FUZZ_CACHE (corpora,
# default ${XDG_CACHE_HOME:-~/.cache}/trainlint-fuzz), TRAINLINT_FUZZ_JOBS (harnesses fuzzed at
# once, default 1), CC (default clang). Exit status 1 when a harness found a problem.
set -u
cd "$(dirname "$0")/.."
src=$PWD
secs=${1:-300}
[ $# -gt 0 ] && shift
. tests/fuzz/common.sh
harnesses=${*:-$TL_FUZZ_HARNESSES}
build=${TRAINLINT_FUZZ_BUILD:-build-fuzz}
cache=${TRAINLINT_FUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trainlint-fuzz}
jobs=${TRAINLINT_FUZZ_JOBS:-1}
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# A fresh build dir borrows the grammars an existing build fetched (no network needed).
if [ ! -d "$build/grammars" ] && [ -d build/grammars ]; then mkdir -p "$build" && cp -a build/grammars "$build/"; fi
CC=${CC:-clang} cmake -S . -B "$build" -DTRAINLINT_FUZZ=ON -DTRAINLINT_TSAN=ON -DTRAINLINT_SANITIZERS=OFF \
  -DTRAINLINT_CUDA=OFF >/dev/null || { echo "fuzz.sh: configuring $build failed (CC=clang needed)"; exit 2; }
cmake --build "$build" -j"$(nproc)" --target fuzzers >/dev/null || { echo "fuzz.sh: build failed"; exit 2; }

fuzz_one() { # fuzz_one HARNESS: fuzzes, then copies what it found into tests/fuzz/regressions/HARNESS/
  local h=$1 bin="$build/tests/fuzz/fuzz_$1" corpus="$cache/$1" art="$cache/artifacts/$1" log="$cache/$1.log"
  mkdir -p "$corpus" "$art"
  rm -rf "$cache/seeds-$h"
  fuzz_seeds "$h" "$src" "$cache/seeds-$h" "$bin"
  local start=$SECONDS
  # the committed minimised corpus (tests/fuzz/corpus/HARNESS/, read only) starts a fresh cache where
  # the last long runs ended; new inputs go to the cache's corpus, the first directory
  local committed=()
  [ -d "tests/fuzz/corpus/$h" ] && committed=("tests/fuzz/corpus/$h")
  "$bin" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 -dict="$(fuzz_dict "$h" "$src")" \
    -artifact_prefix="$art/" "$corpus" "$cache/seeds-$h" "${committed[@]}" >"$log" 2>&1
  local rc=$? found=0 f
  for f in "$art"/*; do
    [ -f "$f" ] || continue
    mkdir -p "tests/fuzz/regressions/$h"
    cp "$f" "tests/fuzz/regressions/$h/"
    echo "fuzz_$h: FOUND $(basename "$f") -> tests/fuzz/regressions/$h/ (log: $log)"
    rm -f "$f"
    found=1
  done
  local execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  if [ "$found" = 0 ] && [ "$rc" = 0 ]; then
    echo "fuzz_$h: nothing found in $((SECONDS - start)) s, ${execs:-?} inputs, corpus $(find "$corpus" -type f | wc -l) files"
  elif [ "$found" = 0 ]; then
    echo "fuzz_$h: exit $rc without an artifact (log: $log)"; found=1
  fi
  return $found
}

status=0
running=0
for h in $harnesses; do
  case " $TL_FUZZ_HARNESSES " in *" $h "*) ;; *) echo "fuzz.sh: no harness $h ($TL_FUZZ_HARNESSES)"; exit 2 ;; esac
  fuzz_one "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || status=1; running=$((running - 1)); fi
done
while [ "$running" -gt 0 ]; do wait -n || status=1; running=$((running - 1)); done
[ "$status" = 0 ] || echo "fuzz.sh: problems found: fix them, then keep the inputs in tests/fuzz/regressions/ (replayed by the fuzz/replay test)"
exit $status
