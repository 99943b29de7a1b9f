#!/usr/bin/env python3
"""sample.py - precision in the wild: draws a fixed-seed random sample of trainlint's warnings on a
large public code base into a judging sheet (wild/<name>.tsv), and summarises judged sheets."""
import argparse
import collections
import datetime
import json
import math
import os
import random
import sys

import qualitylib as q

USAGE_EPILOG = """
examples:
  sample.py --trainlint build/trainlint --seed 1          one sheet per code base of wild/repos.tsv,
                                                          wild/<owner>__<name>-<date>.tsv
  sample.py --findings out.json --repo huggingface/diffusers --seed 1 --name diffusers-test
  sample.py --show wild/huggingface__diffusers-2026-11-26.tsv   the code around each warning again
  sample.py --summarise wild/*__*.tsv [--markdown]        precision per rule from judged sheets

The sample: the warnings (severity warning, not info) in a fixed order (path, line, column, rule,
message), shuffled with random.Random(seed); the first N are the sample, so a larger N with the
same seed extends a smaller one. A sheet holds references and verdicts only; the code is printed
to the terminal for the judge, never written into the sheet.
"""

SHEET_COLUMNS = ["repo", "commit", "path", "line", "rule", "message", "verdict", "reason"]
VERDICTS = ("right", "wrong")


# --- drawing --------------------------------------------------------------------------------------

def population(findings):
    """The warnings, in a fixed order."""
    ws = [f for f in findings if q.is_warning(f)]
    ws.sort(key=lambda f: (f["path"], f["line"], f.get("column", 0), f["code"], f.get("message", "")))
    return ws


def draw(warnings, seed, n):
    """The first n of the warnings shuffled with random.Random(seed) (all of them when fewer)."""
    order = list(range(len(warnings)))
    random.Random(seed).shuffle(order)
    return [warnings[i] for i in order[:n]]


def one_line(text):
    return " ".join(str(text).split())


def write_sheet(path, repo, commit, run, seed, n, pop, sample):
    per_rule = collections.Counter(f["code"] for f in pop)
    files = len({f["path"] for f in pop})
    with open(path, "w", encoding="utf-8") as f:
        f.write("# wild sample of trainlint warnings: %s at %s\n" % (repo, commit))
        f.write("# analyzer: %s; rules: %s\n" % (run["binary"] or "trainlint " + str(run["version"]), run["select"]))
        f.write("# drawn: %s\n" % run["date"])
        f.write("# seed: %d\n# n: %d\n" % (seed, n))
        f.write("# population: %d warnings in %d files\n" % (len(pop), files))
        f.write("# population by rule: %s\n" % " ".join("%s=%d" % kv for kv in sorted(per_rule.items())))
        f.write("# verdict: right (hot as run, the value where the rule says, the cost real) or wrong;"
                " reason: one line, no code\n")
        f.write("\t".join(SHEET_COLUMNS) + "\n")
        for w in sample:
            f.write("\t".join([repo, commit, w["path"], str(w["line"]), w["code"], one_line(w.get("message", "")),
                               "", ""]) + "\n")


def read_sheet(path):
    """Returns (header {key: value} from the '# key: value' lines, rows as dicts)."""
    header, rows = {}, []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                key, sep, value = line[1:].strip().partition(": ")
                if sep:
                    header.setdefault(key, value)
                continue
            cols = line.split("\t")
            if cols == SHEET_COLUMNS:
                continue
            if len(cols) < len(SHEET_COLUMNS) - 2 or len(cols) > len(SHEET_COLUMNS):
                raise q.FormatError("%s:%d: %d columns, want %s" % (path, n, len(cols), " ".join(SHEET_COLUMNS)))
            cols += [""] * (len(SHEET_COLUMNS) - len(cols))
            row = dict(zip(SHEET_COLUMNS, cols))
            row["verdict"] = row["verdict"].strip().lower()
            if row["verdict"] and row["verdict"] not in VERDICTS:
                raise q.FormatError("%s:%d: verdict %r is not right, wrong or empty" % (path, n, row["verdict"]))
            if not row["line"].isdigit():
                raise q.FormatError("%s:%d: line %r is not a number" % (path, n, row["line"]))
            row["line"] = int(row["line"])
            rows.append(row)
    return header, rows


def excerpt(root, path, line, context, hot_path=()):
    """The lines around `line` of root/path, numbered, the line itself marked; the hot path below."""
    out = []
    try:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read().split("\n")
    except OSError as e:
        return ["    (cannot read %s: %s)" % (path, e.strerror)]
    lo, hi = max(1, line - context), min(len(text), line + context)
    for i in range(lo, hi + 1):
        out.append("  %s%5d  %s" % (">" if i == line else " ", i, text[i - 1]))
    for h in hot_path:
        out.append("    hot: %s (%s:%d)" % (h.get("description", ""), q.relative_path(h.get("path", path), root),
                                            h.get("line", 0)))
    return out


# --- summarising ----------------------------------------------------------------------------------

def wilson(k, n, z=1.96):
    """The 95% Wilson score interval of k successes in n trials."""
    if n == 0:
        return None
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def summarise(sheets):
    """{group: {"right", "wrong", "unjudged", "population"}} over the sheets; groups: each rule, each
    sheet ("sheet:<path>") and "all"."""
    out = collections.defaultdict(collections.Counter)
    for path, header, rows in sheets:
        for kv in header.get("population by rule", "").split():
            code, _, count = kv.partition("=")
            if count.isdigit():
                out["rule:" + code]["population"] += int(count)
        pop = header.get("population", "").split()
        if pop and pop[0].isdigit():
            out["sheet:" + path]["population"] += int(pop[0])
            out["all"]["population"] += int(pop[0])
        for r in rows:
            key = r["verdict"] or "unjudged"
            for g in ("all", "rule:" + r["rule"], "sheet:" + path):
                out[g][key] += 1
    return out


def summary_table(counts, markdown):
    headers = ["", "population", "sampled", "right", "wrong", "unjudged", "precision", "95% interval"]
    rows = []
    sheets = sorted(g for g in counts if g.startswith("sheet:"))
    order = ["all"] + sheets + sorted(g for g in counts if g.startswith("rule:"))
    for g in order:
        c = counts[g]
        judged = c["right"] + c["wrong"]
        iv = wilson(c["right"], judged)
        name = "all sheets, pooled" if g == "all" and len(sheets) > 1 else g.split(":", 1)[-1]
        if g.startswith("sheet:"):
            name = os.path.basename(name)
        rows.append([name, str(c["population"]), str(c["right"] + c["wrong"] + c["unjudged"]), str(c["right"]),
                     str(c["wrong"]), str(c["unjudged"]), "%.2f" % (c["right"] / judged) if judged else "-",
                     "%.2f-%.2f" % iv if iv else "-"])
        if g == "all" and len(sheets) > 1:
            w = weighted(counts, sheets)
            rows.append(["all sheets, weighted by population", str(c["population"]), "", "", "", "",
                         "%.2f" % w if w is not None else "-", ""])
    return q.table(headers, rows, markdown)


def weighted(counts, sheets):
    """The precision over several code bases, each sheet's weighted by its population of warnings
    (the pooled figure weights each by its sample size); None unless every sheet has verdicts."""
    total = num = 0
    for g in sheets:
        c = counts[g]
        judged = c["right"] + c["wrong"]
        if not judged or not c["population"]:
            return None
        total += c["population"]
        num += c["population"] * c["right"] / judged
    return num / total if total else None


# --- main -----------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, epilog=USAGE_EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--summarise", nargs="+", metavar="SHEET",
                      help="precision per rule and overall from judged sheets")
    mode.add_argument("--show", metavar="SHEET", help="print the code around each warning of a sheet")
    ap.add_argument("--trainlint", help="the trainlint binary to run over each code base")
    ap.add_argument("--findings", metavar="FILE",
                    help="trainlint's JSON output for the one --repo, instead of running it")
    ap.add_argument("--root", help="with --findings: the directory its paths are relative to (default: the checkout)")
    ap.add_argument("--seed", type=int, help="the random seed (recorded in the sheet)")
    ap.add_argument("-n", type=int, default=60, help="warnings per sheet (default: %(default)s)")
    ap.add_argument("--repo", action="append", help="only this owner/name of the list (repeatable)")
    ap.add_argument("--repos", default=q.WILD_REPOS, help="the list of code bases (default: wild/repos.tsv)")
    ap.add_argument("--cache", default=q.default_cache(), help="where fetch.sh put them (default: %(default)s)")
    ap.add_argument("--select", help="passed to `trainlint check --select`; default: the default rules")
    ap.add_argument("--out", default=q.WILD_DIR, help="the directory of the sheets (default: wild/)")
    ap.add_argument("--name", help="the sheet's name, without .tsv (one repository only; default: owner__name-DATE)")
    ap.add_argument("--force", action="store_true", help="overwrite an existing sheet")
    ap.add_argument("--context", type=int, default=4,
                    help="lines of code shown around each warning (default: %(default)s)")
    ap.add_argument("--no-excerpt", action="store_true", help="do not print the code")
    ap.add_argument("--markdown", action="store_true", help="--summarise: print a Markdown table")
    args = ap.parse_args(argv)
    try:
        if args.summarise:
            sheets = [(p,) + read_sheet(p) for p in args.summarise]
            print(summary_table(summarise(sheets), args.markdown))
            return 0
        if args.show:
            header, rows = read_sheet(args.show)
            for i, r in enumerate(rows, 1):
                root = q.checkout_dir(args.cache, r["repo"], wild=True)
                q.check_checkout(root, r["repo"], r["commit"])
                print("[%d/%d] %s:%d %s %s" % (i, len(rows), r["path"], r["line"], r["rule"], r["message"]))
                print("\n".join(excerpt(root, r["path"], r["line"], args.context)))
            return 0
        return draw_sheets(ap, args)
    except (q.FormatError, FileNotFoundError, ValueError, RuntimeError, OSError) as e:
        print("sample.py: %s" % e, file=sys.stderr)
        return 2


def draw_sheets(ap, args):
    if args.seed is None:
        ap.error("--seed is required to draw a sample")
    if args.n < 1:
        ap.error("-n must be positive")
    if bool(args.trainlint) == bool(args.findings):
        ap.error("give --trainlint PATH or --findings FILE (one of them)")
    listed = dict(q.read_repo_list(args.repos))
    wanted = args.repo or list(listed)
    for r in wanted:
        if r not in listed:
            ap.error("%s is not in %s" % (r, args.repos))
    if (args.findings or args.name) and len(wanted) != 1:
        ap.error("--findings and --name take exactly one --repo")
    run = {"version": None, "select": args.select or "default",
           "binary": q.describe_binary(args.trainlint) if args.trainlint else None,
           "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds")}
    os.makedirs(args.out, exist_ok=True)
    for repo in wanted:
        commit = listed[repo]
        root = q.checkout_dir(args.cache, repo, wild=True)
        sheet = os.path.join(args.out, (args.name or "%s-%s" % (q.repo_key(repo), run["date"][:10])) + ".tsv")
        if os.path.exists(sheet) and not args.force:
            raise FileExistsError("%s exists (judged verdicts would be lost; --force overwrites it)" % sheet)
        if args.findings:
            with open(args.findings, encoding="utf-8") as f:
                doc = json.load(f)
            base = args.root or root
        else:
            q.check_checkout(root, repo, commit)
            print("sample.py: trainlint check %s" % root, file=sys.stderr)
            doc, err, _ = q.run_check(args.trainlint, root, args.select)
            base = root
            if q.input_errors(err):
                print("sample.py: %d inputs not analysed" % len(q.input_errors(err)), file=sys.stderr)
        run["version"] = doc.get("version")
        findings = [dict(x, path=q.relative_path(x["path"], base)) for x in doc["findings"]]
        pop = population(findings)
        sample = draw(pop, args.seed, args.n)
        write_sheet(sheet, repo, commit, run, args.seed, args.n, pop, sample)
        print("sample.py: %s: %d of %d warnings (seed %d) -> %s" % (repo, len(sample), len(pop), args.seed, sheet))
        if not args.no_excerpt:
            for i, w in enumerate(sample, 1):
                print("\n[%d/%d] %s:%d %s %s" % (i, len(sample), w["path"], w["line"], w["code"],
                                                  one_line(w.get("message", ""))))
                print("\n".join(excerpt(base, w["path"], w["line"], args.context, w.get("hot_path") or ())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
