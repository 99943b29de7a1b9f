#!/usr/bin/env bash
# bench/speed/run.sh - times trainlint against the parse-only floor (tl_parse_floor) on a large
# corpus of real Python: the Debian python3-torch package plus the interpreter's standard library.
#
# usage: bench/speed/run.sh [options]
#   --runs N         timed repetitions of each command (default 5); the median is reported
#   --jobs N         thread count of the parallel runs (default: nproc)
#   --build-dir DIR  CMake build directory (default: <repo>/build); configured with Ninja when new
#   --no-build       use the binaries already in the build directory
#   --cache DIR      where the corpus is built (default: ${XDG_CACHE_HOME:-$HOME/.cache}/trainlint-bench)
#   --rebuild-corpus throw the cached corpus away and build it again
#   --corpus-only    build the corpus, print its size and stop
#   --only PART      time only one part of the corpus: torch or stdlib (default: both together)
#   --instructions   also count the instructions of both programs at -j 1 with valgrind's callgrind
#                    (load-independent, unlike the times; slow: about 50 times the run)
#   -h, --help
#
# Public tools only: apt-get/apt-cache/dpkg-deb for the corpus, hyperfine when installed, else a
# loop over `date +%s.%N`; /usr/bin/time (when present) for the peak memory of one run.
# Exit codes of trainlint: 0 and 1 (findings) are success; 2 (some input could not be analysed)
# is counted and reported, not fatal. Anything else (a crash) stops the benchmark.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

runs=5
jobs=$(nproc)
build_dir="$root/build"
do_build=1
cache="${XDG_CACHE_HOME:-$HOME/.cache}/trainlint-bench"
rebuild_corpus=0
corpus_only=0
only=
instructions=0

die() { echo "run.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a value}; shift 2 ;;
    --build-dir) build_dir=${2:?--build-dir needs a value}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --cache) cache=${2:?--cache needs a value}; shift 2 ;;
    --rebuild-corpus) rebuild_corpus=1; shift ;;
    --corpus-only) corpus_only=1; shift ;;
    --only) only=${2:?--only needs a value}; shift 2 ;;
    --instructions) instructions=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive integer"
case "$only" in ""|torch|stdlib) ;; *) die "--only takes torch or stdlib" ;; esac

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
case "$cache/" in "$root"/*) die "the cache ($cache) must be outside the repository ($root)" ;; esac

# ---------------------------------------------------------------- build
if [ "$do_build" = 1 ]; then
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build_dir" -G Ninja >/dev/null
  fi
  cmake --build "$build_dir" --target trainlint tl_parse_floor >/dev/null
fi
tl="$build_dir/trainlint"
floor="$build_dir/bench/speed/tl_parse_floor"
[ -x "$tl" ] || die "no $tl (build it, or drop --no-build)"
[ -x "$floor" ] || die "no $floor (build it, or drop --no-build)"

# ---------------------------------------------------------------- corpus
corpus="$cache/corpus"
manifest="$cache/corpus.manifest"
if [ "$rebuild_corpus" = 1 ]; then rm -rf "$corpus" "$manifest"; fi

# Copies the *.py regular files below $1 into $2, keeping the tree; skips installed packages.
copy_py() {
  local src=$1 dst=$2
  mkdir -p "$dst"
  (cd "$src" && find . \( -name site-packages -o -name dist-packages -o -name __pycache__ \) -prune \
                    -o -type f -name '*.py' -print0 | xargs -0 -r cp --parents -t "$dst")
}

if [ ! -f "$manifest" ]; then
  rm -rf "$corpus" "$cache/extract"
  mkdir -p "$cache/deb" "$corpus"
  echo "== python3-torch, as the package index describes it:"
  apt-cache show python3-torch | grep -E '^(Version|Size|Installed-Size):' | head -3 ||
    echo "   (apt-cache knows no python3-torch yet; trying apt-get update below)"
  deb=$(find "$cache/deb" -maxdepth 1 -name 'python3-torch_*.deb' | head -1)
  if [ -z "$deb" ]; then
    if ! (cd "$cache/deb" && apt-get download python3-torch); then
      echo "== apt-get download failed: running apt-get update and trying again" >&2
      if [ "$(id -u)" = 0 ]; then apt-get update; else sudo apt-get update; fi
      (cd "$cache/deb" && apt-get download python3-torch)
    fi
    deb=$(find "$cache/deb" -maxdepth 1 -name 'python3-torch_*.deb' | head -1)
    [ -n "$deb" ] || die "apt-get download python3-torch left no .deb in $cache/deb"
  fi
  torch_version=$(dpkg-deb -f "$deb" Version)
  mkdir -p "$cache/extract/torch"
  dpkg-deb -x "$deb" "$cache/extract/torch"
  # The package's own python files live in a dist-packages tree: copy that tree's *.py.
  pkgdir=$(find "$cache/extract/torch" -type d -name dist-packages | head -1)
  [ -n "$pkgdir" ] || die "no dist-packages directory in $deb"
  copy_py "$pkgdir" "$corpus/torch"
  rm -rf "$cache/extract"

  py=$(command -v python3) || die "python3 is needed for its standard library"
  stdlib=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
  py_version=$("$py" -c 'import sys; print(sys.version.split()[0])')
  copy_py "$stdlib" "$corpus/stdlib"
  printf 'torch_deb=%q\ntorch_version=%q\npython=%q\npython_version=%q\nstdlib=%q\n' \
    "$(basename "$deb")" "$torch_version" "$py" "$py_version" "$stdlib" >"$manifest"
fi
# shellcheck disable=SC1090
. "$manifest"  # sets torch_deb, torch_version, python, python_version, stdlib
: "${torch_version:?bad $manifest}" "${python_version:?bad $manifest}" "${stdlib:?bad $manifest}"

# One untimed pass of the floor per corpus part gives the sizes.
count() { "$floor" -j "$jobs" "$@" 2>/dev/null || true; }
field() { awk -v k="$1" '$1 == k { print $2 }'; }
t_out=$(count "$corpus/torch"); s_out=$(count "$corpus/stdlib"); tot_out=$(count "$corpus")
case "$only" in torch) all_out=$t_out ;; stdlib) all_out=$s_out ;; *) all_out=$tot_out ;; esac
# The timed part: lines/s and MB/s are over these.
files=$(field files <<<"$all_out"); lines=$(field lines <<<"$all_out"); bytes=$(field bytes <<<"$all_out")

echo "== machine"
echo "cpus:   $(nproc) ($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1))"
echo "memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "kernel: $(uname -r)"
echo "== corpus: $corpus"
printf '%-8s %8s %10s %12s %12s %s\n' part files lines bytes nodes source
printf '%-8s %8s %10s %12s %12s %s\n' torch "$(field files <<<"$t_out")" "$(field lines <<<"$t_out")" \
  "$(field bytes <<<"$t_out")" "$(field nodes <<<"$t_out")" "python3-torch $torch_version"
printf '%-8s %8s %10s %12s %12s %s\n' stdlib "$(field files <<<"$s_out")" "$(field lines <<<"$s_out")" \
  "$(field bytes <<<"$s_out")" "$(field nodes <<<"$s_out")" "Python $python_version ($stdlib)"
printf '%-8s %8s %10s %12s %12s\n' total "$(field files <<<"$tot_out")" "$(field lines <<<"$tot_out")" \
  "$(field bytes <<<"$tot_out")" "$(field nodes <<<"$tot_out")"
if [ -n "$only" ]; then echo "timed: $only only ($files files, $lines lines)"; fi
echo "files whose tree has a syntax error: $(field syntax_error_files <<<"$all_out")"
echo "== trainlint: $("$tl" version) ($("$tl" rules --all | wc -l) rules, $("$tl" rules --all | grep -c ' on$' || true) on by default), binary built" \
     "$(date -r "$tl" '+%F %T %Z'); source tree now $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
[ "$corpus_only" = 1 ] && exit 0

# ---------------------------------------------------------------- timing
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

labels=(floor_j1 trainlint_j1 "floor_j$jobs" "trainlint_j$jobs")
# cmd_for <label>: sets the array `cmd` (the caller declares it local) to the command of <label>.
cmd_for() {
  local j=${1##*_j}
  case "$1" in
    floor_*) cmd=("$floor" -j "$j" "$corpus${only:+/$only}") ;;
    trainlint_*) cmd=("$tl" check --no-cache -j "$j" --format concise --no-source "$corpus${only:+/$only}") ;;
  esac
}

# check <label>: one untimed run (also the warm-up): checks the exit code, counts the files
# trainlint could not analyse, and measures the peak memory when /usr/bin/time exists.
declare -A input_errors peak_kb exit_code
check() {
  local label=$1 rc=0 cmd
  cmd_for "$label"
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$work/mem" "${cmd[@]}" >"$work/out" 2>"$work/err" || rc=$?
    peak_kb[$label]=$(tail -1 "$work/mem")
  else
    "${cmd[@]}" >"$work/out" 2>"$work/err" || rc=$?
    peak_kb[$label]=-
  fi
  exit_code[$label]=$rc
  case "$rc" in
    0|1|2) ;;
    *) echo "run.sh: '${cmd[*]}' exited $rc:" >&2; tail -5 "$work/err" >&2; exit 1 ;;
  esac
  # trainlint: one "PATH[:L:C]: error: ..." line per input it could not analyse.
  input_errors[$label]=$(grep -c ': error: ' "$work/err" || true)
}

# once <label>: one timed run; appends "wall_s cpu_s" (cpu = user + system) to $work/<label>.times.
# Wall time from `date +%s.%N`; CPU time from /usr/bin/time when present.
once() {
  local label=$1 rc=0 t0 t1 cpu=- cmd
  cmd_for "$label"
  t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%U %S' -o "$work/cpu" "${cmd[@]}" >/dev/null 2>&1 || rc=$?
  else
    "${cmd[@]}" >/dev/null 2>&1 || rc=$?
  fi
  t1=$(date +%s.%N)
  case "$rc" in 0|1|2) ;; *) echo "run.sh: '${cmd[*]}' exited $rc" >&2; exit 1 ;; esac
  [ -x /usr/bin/time ] && cpu=$(tail -1 "$work/cpu" | awk '{ printf "%.2f", $1 + $2 }')
  awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { printf "%.4f %s\n", b - a, c }' >>"$work/$label.times"
}

# stats <file> <column>: "median min max" of a column of numbers.
stats() {
  awk -v k="$2" '$k != "-" { print $k }' "$1" | sort -g | awk '{ t[NR] = $1 }
    END { if (!NR) { print "- - -"; exit }
          m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2; printf "%.4f %.4f %.4f\n", m, t[1], t[NR] }'
}

use_hyperfine=0
if command -v hyperfine >/dev/null && [ "${TL_BENCH_NO_HYPERFINE:-}" != 1 ]; then use_hyperfine=1; fi
declare -A med mn mx cpu pmed pmn pmx
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for label in "${labels[@]}"; do check "$label"; done
if [ "$use_hyperfine" = 1 ]; then
  echo "== timing: hyperfine $(hyperfine --version | awk '{ print $2 }'), $runs runs of each command after one" \
       "untimed run; wall: median, cpu: mean user+system"
  for label in "${labels[@]}"; do
    cmd_for "$label"
    hyperfine --runs "$runs" --warmup 0 -i --style none --export-json "$work/$label.json" \
      "$(printf '%q ' "${cmd[@]}")" >/dev/null 2>&1
    read -r "med[$label]" "mn[$label]" "mx[$label]" "cpu[$label]" < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
bad = [c for c in r.get("exit_codes", []) if c not in (0, 1, 2)]
if bad: sys.exit("exit codes %s" % bad)
print("%.4f %.4f %.4f %.2f" % (r["median"], r["min"], r["max"], r["user"] + r["system"]))' "$work/$label.json")
  done
else
  echo "== timing: $runs rounds, each running the 4 commands in turn (interleaved, so background load"
  echo "   hits them alike), after one untimed run of each; wall from date +%s.%N, cpu = user+system"
  echo "   from /usr/bin/time; medians reported"
  for ((r = 0; r < runs; r++)); do
    for label in "${labels[@]}"; do once "$label"; done
  done
  for label in "${labels[@]}"; do
    read -r "med[$label]" "mn[$label]" "mx[$label]" < <(stats "$work/$label.times" 1)
    read -r "cpu[$label]" _ _ < <(stats "$work/$label.times" 2)
  done
  # Paired: in each round trainlint ran right after the floor, so the ratio of the two runs of one
  # round hardly moves when the machine's speed drifts between rounds (by up to 1.5x on a VM).
  for j in 1 "$jobs"; do
    paste "$work/trainlint_j$j.times" "$work/floor_j$j.times" | awk '{ printf "%.4f\n", $1 / $3 }' >"$work/pair_j$j"
    read -r "pmed[j$j]" "pmn[j$j]" "pmx[j$j]" < <(stats "$work/pair_j$j" 1)
  done
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
printf '%-14s %8s %8s %8s %8s %10s %7s %8s %s\n' command wall_s min_s max_s cpu_s lines/s MB/s peak_MiB exit
for label in "${labels[@]}"; do
  awk -v l="$label" -v m="${med[$label]}" -v a="${mn[$label]}" -v b="${mx[$label]}" -v c="${cpu[$label]}" \
      -v n="$lines" -v by="$bytes" -v kb="${peak_kb[$label]}" -v rc="${exit_code[$label]}" \
      -v ie="${input_errors[$label]}" 'BEGIN {
    printf "%-14s %8.3f %8.3f %8.3f %8s %10.0f %7.2f %8s %s", l, m, a, b, c == "-" ? "-" : sprintf("%.2f", c),
           n / m, by / m / 1e6, kb == "-" ? "-" : sprintf("%.0f", kb / 1024), rc
    if (l ~ /^trainlint/) printf " (%d input error%s)", ie, ie == 1 ? "" : "s"
    printf "\n" }'
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.2f", a / b }'; }
jn="j$jobs"
r1=$(ratio "${med[trainlint_j1]}" "${med[floor_j1]}")
echo
echo "load average (1/5/15 min) before: $load_before, after: $load_after"
echo "trainlint / floor at -j 1:      wall $r1, cpu $(ratio "${cpu[trainlint_j1]}" "${cpu[floor_j1]}")"
echo "trainlint / floor at -j $jobs:      wall $(ratio "${med[trainlint_$jn]}" "${med[floor_$jn]}")," \
     "cpu $(ratio "${cpu[trainlint_$jn]}" "${cpu[floor_$jn]}")"
if [ -n "${pmed[j1]:-}" ]; then
  for j in j1 "$jn"; do
    awk -v j="${j#j}" -v m="${pmed[$j]}" -v a="${pmn[$j]}" -v b="${pmx[$j]}" -v n="$runs" 'BEGIN {
      printf "paired, round by round, -j %s:  median %.2f (%.2f-%.2f over %d rounds)\n", j, m, a, b, n }'
  done
  r1=$(awk -v m="${pmed[j1]}" 'BEGIN { printf "%.2f", m }')
fi
echo "scaling, wall -j 1 / -j $jobs:      trainlint $(ratio "${med[trainlint_j1]}" "${med[trainlint_$jn]}")," \
     "floor $(ratio "${med[floor_j1]}" "${med[floor_$jn]}") (ideal $jobs)"
echo "trainlint input errors (files not analysed; exit 2): ${input_errors[trainlint_j1]}"
# --instructions: callgrind's total of instructions executed by each program at -j 1
if [ "$instructions" = 1 ]; then
  if command -v valgrind >/dev/null; then
    declare -A ins
    for label in floor_j1 trainlint_j1; do
      cmd_for "$label"
      valgrind --tool=callgrind --callgrind-out-file="$work/cg.$label" "${cmd[@]}" >/dev/null 2>&1 || true
      ins[$label]=$(awk '/^(summary|totals):/ { print $2; exit }' "$work/cg.$label")
    done
    awk -v f="${ins[floor_j1]}" -v t="${ins[trainlint_j1]}" 'BEGIN {
      printf "instructions at -j 1 (callgrind): floor %.2f G, trainlint %.2f G: ratio %.2f\n", f / 1e9, t / 1e9, t / f }'
  else
    echo "instructions: valgrind not found, not counted"
  fi
fi
# the goal: the paired median at -j 1 (the ratio of the medians with hyperfine, which times each
# command's runs one after another)
if awk -v r="$r1" 'BEGIN { exit !(r <= 2.0) }'; then
  echo "goal (full analysis within 2x the floor on one core): met (${r1}x)"
else
  echo "goal (full analysis within 2x the floor on one core): NOT met (${r1}x)"
fi
