#!/usr/bin/env bash
# bench/quality/fetch.sh - puts each repository of the quality set (labels/*.tsv) and of the wild
# sample (wild/repos.tsv) at its recorded commit into a cache directory outside the repository.
#
# usage: bench/quality/fetch.sh [options] [OWNER/NAME...]
#   --cache DIR               where the copies go (default: ${XDG_CACHE_HOME:-$HOME/.cache}/trainlint-quality);
#                             labelled repositories in DIR/<owner>__<name>, wild ones in DIR/wild/<owner>__<name>
#   --git-dir-pattern PATTERN take the objects from existing local bare repositories instead of the
#                             network, e.g. '/some/dir/{owner}+{name}/repo'; only the files trainlint
#                             reads are exported (*.py, *.pyi, *.toml, *.cfg, .gitignore), so blobs
#                             missing from such a copy (large binaries) do not matter
#   --url-pattern PATTERN     where to fetch from otherwise (default: https://github.com/{owner}/{name}.git)
#   --only labels|wild        only the labelled repositories, or only the wild sample's
#   --labels DIR              the label files (default: labels/ beside this script)
#   --wild-list FILE          the wild sample's list (default: wild/repos.tsv beside this script)
#   --force                   materialise again even when the copy is already at its commit
#   -h, --help
# With OWNER/NAME arguments, only those repositories.
#
# From the network: a shallow fetch of the one commit; when the server refuses it, a full clone and
# a checkout of the commit. Each copy holds a file .trainlint-quality (commit, source, method) that
# score.py and sample.py check; a copy already at its commit is left alone, so running the script
# again does nothing. Plain git only.
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

cache="${XDG_CACHE_HOME:-$HOME/.cache}/trainlint-quality"
git_dir_pattern=
url_pattern='https://github.com/{owner}/{name}.git'
only=
labels="$here/labels"
wild_list="$here/wild/repos.tsv"
force=0
wanted=()

die() { echo "fetch.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=${2:?--cache needs a value}; shift 2 ;;
    --git-dir-pattern) git_dir_pattern=${2:?--git-dir-pattern needs a value}; shift 2 ;;
    --url-pattern) url_pattern=${2:?--url-pattern needs a value}; shift 2 ;;
    --only) only=${2:?--only needs a value}; shift 2 ;;
    --labels) labels=${2:?--labels needs a value}; shift 2 ;;
    --wild-list) wild_list=${2:?--wild-list needs a value}; shift 2 ;;
    --force) force=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) wanted+=("$1"); shift ;;
  esac
done
case "$only" in ""|labels|wild) ;; *) die "--only takes labels or wild" ;; esac
command -v git >/dev/null || die "git is needed"

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
case "$cache/" in "$root"/*) die "the cache ($cache) must be outside the repository ($root)" ;; esac

# The list: "kind owner/name commit" rows, from the label headers and from wild/repos.tsv.
list=()
if [ "$only" != wild ]; then
  for f in "$labels"/*.tsv; do
    [ -f "$f" ] || die "no label files in $labels"
    repo=$(sed -n 's/^# repo: *//p' "$f" | head -1)
    commit=$(sed -n 's/^# commit: *//p' "$f" | head -1)
    if [ -z "$repo" ] || [ -z "$commit" ]; then die "$f lacks a '# repo:' or '# commit:' line"; fi
    list+=("labels $repo $commit")
  done
fi
if [ "$only" != labels ] && [ -f "$wild_list" ]; then
  while IFS=$'\t' read -r repo commit _; do
    case "$repo" in ''|'#'*|repo) continue ;; esac
    list+=("wild $repo $commit")
  done <"$wild_list"
fi

# sub PATTERN OWNER NAME: the pattern with {owner} and {name} replaced.
sub() { local s=${1//\{owner\}/$2}; printf '%s' "${s//\{name\}/$3}"; }

# The files trainlint reads: Python sources, configuration, .gitignore.
wanted_files='(^|/)([^/]*\.(py|pyi|toml|cfg)|\.gitignore)$'

# export_commit GIT_DIR COMMIT DEST: writes the wanted files of COMMIT into DEST. Through a
# temporary index and checkout-index, which read only the blobs they write; `git archive` with
# paths reads every blob of the tree and fails on the ones a partial copy lacks.
export_commit() {
  local g=$1 commit=$2 dest=$3 idx=$3.index
  GIT_INDEX_FILE=$idx git --git-dir="$g" read-tree "$commit"
  git --git-dir="$g" ls-tree -r -z --name-only "$commit" | { grep -zE "$wanted_files" || true; } |
    GIT_INDEX_FILE=$idx git --git-dir="$g" --work-tree="$dest" checkout-index -z --stdin --prefix="$dest/"
  rm -f "$idx"
}

# network_commit URL COMMIT DEST: a shallow fetch of COMMIT into a new repository at DEST, or a
# full clone when the shallow fetch is refused. Prints the method used.
network_commit() {
  local url=$1 commit=$2 dest=$3
  git init -q "$dest" || return 1
  if git -C "$dest" fetch -q --depth 1 "$url" "$commit" 2>"$dest.err" &&
     git -C "$dest" -c advice.detachedHead=false checkout -q --detach FETCH_HEAD 2>>"$dest.err"; then
    rm -f "$dest.err"; echo "shallow fetch"; return 0
  fi
  echo "fetch.sh: the shallow fetch of $commit from $url failed" \
       "($(grep -m1 -E '^(fatal|error):' "$dest.err" || tail -1 "$dest.err")); cloning" >&2
  rm -rf "$dest" "$dest.err"
  git clone -q --no-checkout "$url" "$dest" || return 1
  git -C "$dest" -c advice.detachedHead=false checkout -q --detach "$commit" || return 1
  echo "full clone"
}

marker=.trainlint-quality
done_n=0 kept_n=0 tmp=
declare -A matched
trap 'if [ -n "$tmp" ]; then rm -rf "$tmp" "$tmp.err" "$tmp.index"; fi' EXIT
for row in "${list[@]}"; do
  read -r kind repo commit <<<"$row"
  if [ ${#wanted[@]} -gt 0 ]; then
    hit=0; for w in "${wanted[@]}"; do [ "$w" = "$repo" ] && hit=1; done
    [ "$hit" = 1 ] || continue
    matched[$repo]=1
  fi
  [[ "$commit" =~ ^[0-9a-f]{40}$ ]] || die "$repo: '$commit' is not a 40-hex commit"
  [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] || die "'$repo' is not owner/name"
  owner=${repo%%/*} name=${repo#*/}
  dest="$cache/$owner""__$name"
  [ "$kind" = wild ] && dest="$cache/wild/$owner""__$name"

  if [ -e "$dest" ]; then
    [ -f "$dest/$marker" ] || die "$dest exists but was not made by fetch.sh (no $marker): remove it"
    if [ "$force" = 0 ] && grep -qx "commit $commit" "$dest/$marker"; then
      printf '%-48s %.12s  up to date (%s)\n' "$repo" "$commit" "$dest"
      kept_n=$((kept_n + 1)); continue
    fi
    rm -rf "$dest"
  fi
  mkdir -p "$(dirname "$dest")"
  tmp="$dest.tmp.$$"
  rm -rf "$tmp" "$tmp.err" "$tmp.index"
  if [ -n "$git_dir_pattern" ]; then
    src=$(sub "$git_dir_pattern" "$owner" "$name")
    git --git-dir="$src" cat-file -e "$commit^{commit}" 2>/dev/null || die "$repo: commit $commit is not in $src"
    mkdir -p "$tmp"
    export_commit "$src" "$commit" "$tmp"
    method="export"
    what="export of *.py, *.pyi, *.toml, *.cfg, .gitignore"
    got=$(git --git-dir="$src" rev-parse "$commit^{commit}")
  else
    src=$(sub "$url_pattern" "$owner" "$name")
    method=$(network_commit "$src" "$commit" "$tmp") || die "$repo: could not get $commit from $src"
    what=$method
    got=$(git -C "$tmp" rev-parse HEAD)
  fi
  [ "$got" = "$commit" ] || { rm -rf "$tmp"; die "$repo: got commit $got, wanted $commit"; }
  files=$(find "$tmp" -name .git -prune -o -type f -name '*.py' -print | wc -l)
  [ "$files" -gt 0 ] || { rm -rf "$tmp"; die "$repo: no *.py file at $commit"; }
  printf 'commit %s\nrepo %s\nsource %s\nmethod %s\n' "$commit" "$repo" "$src" "$what" >"$tmp/$marker"
  mv "$tmp" "$dest"
  tmp=
  printf '%-48s %.12s  %s from %s: %d .py files (%s)\n' "$repo" "$commit" "$method" "$src" "$files" "$dest"
  done_n=$((done_n + 1))
done
for w in "${wanted[@]}"; do
  [ -n "${matched[$w]:-}" ] || die "$w is in no list (labels/*.tsv, wild/repos.tsv)"
done
echo "fetch.sh: $done_n materialised, $kept_n already up to date, in $cache"
