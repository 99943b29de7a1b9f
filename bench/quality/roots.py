#!/usr/bin/env python3
"""roots.py - what the judged wild warnings' hot claims rest on: runs trainlint over each wild code
base that a judged sheet covers and, for every judged row that is still a warning, sorts it by the
root its chain ends at (a step loop, the forward of a Module, a step function called from outside
the project, ...), then prints right and wrong per root and per rule within the Module root.

A row judged in several sheets counts once per verdict. The roots are read from the last step of
the JSON `hot_path` (docs/hot-code.md names them); a finding without a chain (a project rule such
as TL601) is "no chain"."""
import argparse
import collections
import glob
import os
import sys

import qualitylib as q

ROOTS = [  # (the root's name, words of the chain's last step that say it), first match wins
    ("forward of a Module", "forward of a Module"),
    ("step function called from outside", "called from outside the project"),
    ("Lightning step hook", "Lightning step hook"),
    ("step loop", "step loop"),
    ("training loop", "training loop"),
    ("per sample (Dataset)", "once per sample"),
    ("per batch (collate_fn)", "once per batch"),
    ("configured hot function", "hot-functions"),
]


def root_of(finding):
    chain = finding.get("hot_path") or []
    if not chain:
        return "no chain"
    last = chain[-1].get("description", "")
    for name, words in ROOTS:
        if words in last:
            return name
    return "other"


def judged_rows(sheets):
    """{(repo, path, line, rule): [verdict, ...]} from judged sheets."""
    rows = collections.defaultdict(list)
    for sheet in sheets:
        with open(sheet, encoding="utf-8") as f:
            for raw in f:
                if raw.startswith("#") or raw.startswith("repo\t"):
                    continue
                cols = raw.rstrip("\n").split("\t")
                if len(cols) >= 8 and cols[6] in ("right", "wrong"):
                    rows[(cols[0], cols[2], int(cols[3]), cols[4])].append(cols[6])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--trainlint", required=True, help="the trainlint binary")
    ap.add_argument("--sheets", nargs="+", default=sorted(glob.glob(os.path.join(here, "wild", "*-r*.tsv"))),
                    help="judged sheets (default: wild/*-r*.tsv)")
    ap.add_argument("--repos", default=os.path.join(here, "wild", "repos.tsv"), help="the list of code bases")
    ap.add_argument("--cache", default=q.default_cache(), help="where fetch.sh put them")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables")
    args = ap.parse_args()

    rows = judged_rows(args.sheets)
    commits = dict(q.read_repo_list(args.repos))
    by_root, by_rule = collections.Counter(), collections.Counter()
    for repo in sorted({k[0] for k in rows}):
        if repo not in commits:
            print("roots.py: %s is not in %s: skipped" % (repo, args.repos), file=sys.stderr)
            continue
        root = q.checkout_dir(args.cache, repo, wild=True)
        q.check_checkout(root, repo, commits[repo])
        doc, _, _ = q.run_check(args.trainlint, root)
        for f in doc["findings"]:
            if not q.is_warning(f):
                continue
            key = (repo, q.relative_path(f["path"], root), f["line"], f["code"])
            kind = root_of(f)
            for verdict in rows.get(key, []):
                by_root[(kind, verdict)] += 1
                if kind == "forward of a Module":
                    by_rule[(f["code"], verdict)] += 1

    def render(title, counter):
        names = sorted({k[0] for k in counter}, key=lambda n: -(counter[(n, "right")] + counter[(n, "wrong")]))
        out = []
        for n in names:
            r, w = counter[(n, "right")], counter[(n, "wrong")]
            out.append([n, str(r), str(w), "%.2f" % (r / (r + w)) if r + w else "-"])
        print(q.table([title, "right", "wrong", "precision"], out, args.markdown))

    render("root of the chain", by_root)
    print()
    render("rule (forward of a Module)", by_rule)


if __name__ == "__main__":
    main()
