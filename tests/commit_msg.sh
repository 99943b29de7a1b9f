#!/usr/bin/env bash
# commit_msg.sh - scripts/commit-msg accepts imperative one-topic subjects of at most 72 characters
# followed by a blank line, rejects the rest with the reason, under every POSIX shell at hand, and
# works as a hook installed with `git config core.hooksPath scripts/hooks`.
set -u
bin=$1 src=$2
. "$src/tests/support/lib.sh"
hook="$src/scripts/commit-msg"
# Every POSIX shell at hand, each once (sh is often dash). The hook does not depend on the
# analyzer, so the run against the sanitizer build only uses sh.
shells="sh"
case $bin in
  *_asan) ;;
  *) for s in dash bash busybox; do
       p=$(command -v "$s") || continue
       [ "$(readlink -f "$p")" = "$(readlink -f "$(command -v sh)")" ] || shells="$shells $s"
     done ;;
esac

# accept SHELL MESSAGE / reject SHELL MESSAGE REASON: the hook's verdict (and reason) on MESSAGE
accept() {
  printf '%b' "$2" > "$tmp/msg"
  out=$(run "$1" 2>&1) && ok || bad "$1: rejected: $(printf '%b' "$2" | head -1): $out"
}
reject() {
  printf '%b' "$2" > "$tmp/msg"
  out=$(run "$1" 2>&1); rc=$?
  [ "$rc" = 1 ] && printf '%s' "$out" | grep -qF -- "$3" && ok ||
    bad "$1: $(printf '%b' "$2" | head -1): exit $rc, want 1 with \"$3\": $out"
}
run() {
  case $1 in
    busybox) busybox sh "$hook" "$tmp/msg" ;;
    *) "$1" "$hook" "$tmp/msg" ;;
  esac
}

s72=$(printf 'Add %068d' 0)                       # 72 characters
s73=$(printf 'Add %069d' 0)
u72="Add $(printf 'é%.0s' $(seq 68))"              # 72 characters, 140 bytes
u73="Add $(printf 'é%.0s' $(seq 69))"
[ ${#s72} = 72 ] && ok || bad "test setup: s72 has ${#s72} characters"

for sh in $shells; do
  accept "$sh" 'Split the output formats into one file each\n'
  accept "$sh" 'Split the output formats into one file each\n\nThe body says why.\nMore body.\n'
  accept "$sh" 'bench/speed/README.md: state the current figures\n'
  accept "$sh" 'README, docs/bench.md: cite the case studies\n'
  accept "$sh" "$s72\n"
  accept "$sh" "$u72\n"
  accept "$sh" 'Embed the rules at build time\n'
  accept "$sh" 'Bring the docs up to date\n'
  accept "$sh" 'Fix the parser and its tests\n'
  accept "$sh" 'Fix the parser\r\n\r\nA body written with CRLF line ends.\r\n'
  accept "$sh" '# Please enter the commit message\n\nFix the parser\n\nBody.\n# Changes to be committed:\n'
  accept "$sh" 'Fix the parser\n\n# ------------------------ >8 ------------------------\ndiff --git Added\nFixing;\n'
  accept "$sh" "Merge branch 'wp-docs' into main and fix things; more\n"
  accept "$sh" 'Revert "Added a thing"\n\nThis reverts commit 0123456.\n'
  accept "$sh" "fixup! Added a very long subject that goes on and on and on past seventy-two characters\n"
  accept "$sh" 'squash! Fixing things\n'

  reject "$sh" "$s73\n" "73 characters (at most 72)"
  reject "$sh" "$u73\n" "73 characters (at most 72)"
  reject "$sh" 'Added the case studies\n' '"added" is not the imperative'
  reject "$sh" 'Fixing the parser\n' '"fixing" is not the imperative'
  reject "$sh" 'Adds the case studies\n' '"adds" is not the imperative'
  reject "$sh" 'Uses one search instead of four\n' '"uses" is not the imperative'
  reject "$sh" 'docs/rules.md: explains the gates\n' '"explains" is not the imperative'
  reject "$sh" 'fuzz regression input: updated\n' '"updated" is not the imperative'
  reject "$sh" 'Fix the parser\nand say why right below\n' "no blank line between the subject and the body"
  reject "$sh" 'Fix the parser; add a test\n' 'several topics (";")'
  reject "$sh" 'Fix the parser and add a test\n' '"and add" joins two changes'
  reject "$sh" 'Rename the fixtures and update the tests\n' '"and update" joins two changes'
  reject "$sh" '# only a comment\n\n' "the subject is empty"
  # several problems are all reported
  reject "$sh" 'Added a parser and fixed the tests; more\nbody\n' '"added" is not the imperative'
  reject "$sh" 'Added a parser and fixed the tests; more\nbody\n' 'no blank line'
done

"$hook" "$tmp/none" 2>/dev/null; [ $? = 2 ] && ok || bad "a missing message file is not a usage error (exit 2)"

# Installed as documented: git runs it and refuses the commit.
if command -v git >/dev/null; then
  repo="$tmp/repo"
  git init -q "$repo" && cp -R "$src/scripts" "$repo/" && cd "$repo" || exit 1
  git config user.name t && git config user.email t@t && git config core.hooksPath scripts/hooks
  echo a > a && git add a
  git commit -q -m "Added a file" 2>"$tmp/err" && bad "git accepted a rejected message" ||
    { grep -q '"added" is not the imperative' "$tmp/err" && ok || bad "no reason from git's hook: $(cat "$tmp/err")"; }
  git commit -q -m "Add a file" -m "The body says why." && ok || bad "git refused a good message"
  [ "$(git log --format=%s)" = "Add a file" ] && ok || bad "log: $(git log --format=%s)"
fi
finish
