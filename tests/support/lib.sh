# lib.sh - shared by the script tests (tests/*.sh): a temporary directory removed on exit, pass/fail counters
# and the closing "N passed, N failed" line. Source it after setting bin=$1 src=$2.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
}
