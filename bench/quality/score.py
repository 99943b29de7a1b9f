#!/usr/bin/env python3
"""score.py - runs trainlint over the checkouts of the quality set and scores its findings in the
labelled files against the blind labels: precision and recall per rule, family, framework, overall."""
import argparse
import collections
import datetime
import json
import os
import sys

import qualitylib as q

USAGE_EPILOG = """
matching: a finding matches a label of its rule whose lines hold the finding's line (`*`: the
whole file); when several do, the narrowest, then the first in the file. Warning precision =
warnings on `warn` labels / warnings in labelled files not on a `dc` label (a warning on an `info`
or `neg` label, or on no label, is wrong). Recall = `warn` labels matched by a warning / `warn`
labels; "any" also counts an info-severity finding. Info findings are right on `warn` and `info`
labels, wrong on `neg` and unlabelled lines. Labels of rules the run does not enable are ignored
and counted. Adjudications (adjudications.tsv) are applied over the labels; both the raw and the
adjudicated figures are reported.
"""


# --- scoring --------------------------------------------------------------------------------------

def assign(line, candidates):
    """The label a finding on `line` falls on: the narrowest of `candidates` holding the line, the
    first in file order among equals; None when none holds it."""
    best = None
    for lab in candidates:
        if lab["lo"] <= line <= lab["hi"]:
            if best is None or lab["hi"] - lab["lo"] < best["hi"] - best["lo"]:
                best = lab
    return best


def groups_of(repo, framework, rule):
    return ("all", "family:" + q.family(rule), "framework:" + framework, "rule:" + rule, "repo:" + repo)


def score(repos, findings, enabled):
    """repos: label metadata (qualitylib.read_label_dir, maybe adjudicated); findings: {repo: [finding
    with a path relative to the checkout]}; enabled: the rule codes the run enables. Returns
    {"counts": {group: Counter}, "findings": [...], "labels": [...]}."""
    counts = collections.defaultdict(collections.Counter)
    out_findings, out_labels = [], []
    for meta in repos:
        repo, fw = meta["repo"], meta["framework"]
        files = set(meta["files"])
        by_key = collections.defaultdict(list)
        labels = []
        for lab in meta["labels"]:
            lab = dict(lab, repo=repo, hit_warning=0, hit_info=0)
            if lab["rule"] not in enabled:
                lab["outcome"] = "ignored (rule not enabled)"
                for g in groups_of(repo, fw, lab["rule"]):
                    counts[g]["labels_ignored"] += 1
                out_labels.append(lab)
                continue
            labels.append(lab)
            by_key[(lab["path"], lab["rule"])].append(lab)
        for f in findings.get(repo, []):
            rule = f["code"]
            if rule not in enabled:  # recorded by a run that enabled more rules
                counts["all"]["not_enabled"] += 1
                continue
            if f["path"] not in files:
                counts["all"]["outside"] += 1
                counts["repo:" + repo]["outside"] += 1
                continue
            lab = assign(f["line"], by_key.get((f["path"], rule), []))
            kind = "warning" if q.is_warning(f) else "info"
            on = lab["label"] if lab else "none"
            if lab:
                lab["hit_" + kind] += 1
            if kind == "warning":
                verdict = {"warn": "right", "dc": "not scored"}.get(on, "wrong")
            else:
                verdict = {"warn": "right", "info": "right", "dc": "not scored"}.get(on, "wrong")
            for g in groups_of(repo, fw, rule):
                counts[g][kind + "s"] += 1
                counts[g][kind + "_on_" + on] += 1
            out_findings.append({"repo": repo, "path": f["path"], "line": f["line"], "rule": rule,
                                 "severity": f.get("severity"), "message": f.get("message", ""),
                                 "on": on, "label_lines": lab["lines"] if lab else None,
                                 "label_note": lab["note"] if lab else None, "verdict": verdict})
        for lab in labels:
            c = [counts[g] for g in groups_of(repo, fw, lab["rule"])]
            found_w, found_any = lab["hit_warning"] > 0, lab["hit_warning"] + lab["hit_info"] > 0
            for k in c:
                k["labels_" + lab["label"]] += 1
                if found_w:
                    k["labels_" + lab["label"] + "_found_warning"] += 1
                if found_any:
                    k["labels_" + lab["label"] + "_found_any"] += 1
            if lab["label"] == "warn":
                lab["outcome"] = ("found" if found_w else "found at info severity only" if found_any
                                  else "missed")
            else:
                lab["outcome"] = "reported" if found_any else "not reported"
            out_labels.append(lab)
    return {"counts": counts, "findings": out_findings, "labels": out_labels}


def metrics(c):
    """The figures of one group's counter."""
    w_scored = c["warnings"] - c["warning_on_dc"]
    w_right = c["warning_on_warn"]
    i_scored = c["infos"] - c["info_on_dc"]
    i_right = c["info_on_warn"] + c["info_on_info"]
    return {
        "warnings": c["warnings"], "warnings_on_dc": c["warning_on_dc"], "warnings_scored": w_scored,
        "warnings_right": w_right, "warnings_wrong": w_scored - w_right,
        "warnings_wrong_on_info": c["warning_on_info"], "warnings_wrong_on_neg": c["warning_on_neg"],
        "warnings_wrong_unlabelled": c["warning_on_none"],
        "precision": ratio(w_right, w_scored),
        "warn_labels": c["labels_warn"], "warn_labels_found": c["labels_warn_found_warning"],
        "warn_labels_found_any": c["labels_warn_found_any"],
        "recall": ratio(c["labels_warn_found_warning"], c["labels_warn"]),
        "recall_any": ratio(c["labels_warn_found_any"], c["labels_warn"]),
        "info_findings": c["infos"], "info_on_dc": c["info_on_dc"], "info_scored": i_scored,
        "info_right": i_right, "info_wrong": i_scored - i_right, "info_precision": ratio(i_right, i_scored),
        "info_labels": c["labels_info"], "info_labels_found_any": c["labels_info_found_any"],
        "neg_labels": c["labels_neg"], "neg_labels_reported": c["labels_neg_found_any"],
        "dc_labels": c["labels_dc"], "labels_ignored": c["labels_ignored"],
        "outside": c["outside"], "not_enabled": c["not_enabled"],
    }


def ratio(a, b):
    return a / b if b else None


# --- reports --------------------------------------------------------------------------------------

def pct(x):
    return "-" if x is None else "%.2f" % x


MAIN_HEADERS = ["", "warnings", "on dc", "right", "wrong", "precision", "warn labels", "found",
                "recall", "found (any sev.)", "recall (any)", "info right/wrong", "labels ignored"]


def main_row(name, m):
    return [name, str(m["warnings"]), str(m["warnings_on_dc"]), str(m["warnings_right"]),
            str(m["warnings_wrong"]), pct(m["precision"]), str(m["warn_labels"]),
            str(m["warn_labels_found"]), pct(m["recall"]), str(m["warn_labels_found_any"]),
            pct(m["recall_any"]), "%d/%d" % (m["info_right"], m["info_wrong"]), str(m["labels_ignored"])]


def report(run, raw, adj, markdown, catalogue):
    """The tables: overall (raw and adjudicated), per family, framework, rule and repository, and
    where the wrong warnings fall."""
    out = []
    h = (lambda s: "#### " + s) if markdown else (lambda s: "== " + s)
    ma = {g: metrics(c) for g, c in adj["counts"].items()}
    mr = metrics(raw["counts"]["all"])
    out.append(h("overall"))
    rows = [main_row("all, raw labels", mr),
            main_row("all, adjudicated", ma.get("all", metrics(collections.Counter())))]
    out.append(q.table(MAIN_HEADERS, rows, markdown))
    fams = sorted(g for g in ma if g.startswith("family:"))
    out.append(h("per family"))
    out.append(q.table(MAIN_HEADERS, [main_row("%s %s" % (g[7:] + "xx", q.FAMILIES.get(g[7:], "")), ma[g])
                                    for g in fams], markdown))
    out.append(h("per framework"))
    out.append(q.table(MAIN_HEADERS, [main_row(g[10:], ma[g])
                                      for g in sorted(g for g in ma if g.startswith("framework:"))], markdown))
    names = {r["code"]: r["name"] for r in catalogue}
    out.append(h("per rule"))
    rule_rows = []
    for g in sorted(g for g in ma if g.startswith("rule:")):
        code = g[5:]
        label = code + (" " + names[code] if code in names else "")
        if code not in run["enabled"]:
            label += " (off)"
        rule_rows.append(main_row(label, ma[g]))
    out.append(q.table(MAIN_HEADERS, rule_rows, markdown))
    out.append(h("per repository"))
    out.append(q.table(MAIN_HEADERS, [main_row(g[5:], ma[g]) for g in sorted(g for g in ma if g.startswith("repo:"))],
                     markdown))
    out.append(h("where the wrong warnings fall"))
    wrong_rows = []
    for g in ["all"] + fams:
        m = ma[g]
        wrong_rows.append([g if g == "all" else g[7:] + "xx", str(m["warnings_wrong"]),
                           str(m["warnings_wrong_on_info"]), str(m["warnings_wrong_on_neg"]),
                           str(m["warnings_wrong_unlabelled"]),
                           "%d/%d" % (m["neg_labels_reported"], m["neg_labels"]),
                           "%d/%d" % (m["info_labels_found_any"], m["info_labels"])])
    out.append(q.table(["", "wrong warnings", "on info", "on neg", "unlabelled", "neg labels reported",
                        "info labels reported"], wrong_rows, markdown))
    return "\n\n".join(out) + "\n"


def listing(result):
    """Every wrong finding and every missed warn label, with the label's note, for adjudication."""
    lines = []
    fs = sorted(result["findings"], key=lambda f: (f["repo"], f["path"], f["line"], f["rule"]))
    ls = sorted((lab for lab in result["labels"] if lab["label"] == "warn"
                 and lab["outcome"] in ("missed", "found at info severity only")),
                key=lambda lab: (lab["repo"], lab["path"], lab["lo"], lab["rule"]))
    for f in fs:
        if f["verdict"] != "wrong":
            continue
        kind = "FP  " if f["severity"] != "info" else "FP-i"
        where = ("on %s %s: %s" % (f["on"], f["label_lines"], f["label_note"]) if f["label_lines"] is not None
                 else "on no label")
        lines.append("%s %s %s:%d %s %s | %s | %s" % (kind, f["repo"], f["path"], f["line"], f["rule"],
                                                     f["severity"], where, f["message"]))
    for lab in ls:
        lines.append("FN   %s %s:%s %s warn (%s) | %s" % (lab["repo"], lab["path"], lab["lines"], lab["rule"],
                                                         lab["outcome"], lab["note"]))
    return "\n".join(lines) + ("\n" if lines else "")


# --- running --------------------------------------------------------------------------------------

def collect(args, repos):
    """Findings per repository, from trainlint runs or from --findings-dir; returns (findings,
    catalogue, run facts)."""
    run = {"trainlint": None, "binary": None, "version": None, "select": args.select or "default", "input_errors": {},
           "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds")}
    findings = {}
    if args.findings_dir:
        with open(os.path.join(args.findings_dir, "rules.txt"), encoding="utf-8") as f:
            catalogue = q.parse_catalogue(f.read())
        meta_path = os.path.join(args.findings_dir, "run.json")
        if os.path.exists(meta_path):
            with open(meta_path, encoding="utf-8") as f:
                saved = json.load(f)
            run.update(trainlint=saved.get("trainlint"), binary=saved.get("binary"), version=saved.get("version"),
                       input_errors=saved.get("input_errors", {}), recorded=saved)
        for meta in repos:
            path = os.path.join(args.findings_dir, q.repo_key(meta["repo"]) + ".json")
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            root = q.checkout_dir(args.cache, meta["repo"])
            findings[meta["repo"]] = [dict(x, path=q.relative_path(x["path"], root)) for x in doc["findings"]]
            run["version"] = run["version"] or doc.get("version")
        return findings, catalogue, run
    rules = q.rules_text(args.trainlint)
    catalogue = q.parse_catalogue(rules)
    run["trainlint"] = os.path.abspath(args.trainlint)
    run["binary"] = q.describe_binary(args.trainlint)
    if args.keep_findings:
        os.makedirs(args.keep_findings, exist_ok=True)
        with open(os.path.join(args.keep_findings, "rules.txt"), "w", encoding="utf-8") as f:
            f.write(rules)
    for meta in repos:
        root = q.checkout_dir(args.cache, meta["repo"])
        print("score.py: trainlint check %s" % root, file=sys.stderr)
        doc, err, _ = q.run_check(args.trainlint, root, args.select, args.jobs)
        run["version"] = doc.get("version")
        errors = q.input_errors(err)
        if errors:
            run["input_errors"][meta["repo"]] = errors
        findings[meta["repo"]] = [dict(x, path=q.relative_path(x["path"], root)) for x in doc["findings"]]
        if args.keep_findings:
            with open(os.path.join(args.keep_findings, q.repo_key(meta["repo"]) + ".json"), "w", encoding="utf-8") as f:
                json.dump(doc, f)
    if args.keep_findings:
        with open(os.path.join(args.keep_findings, "run.json"), "w", encoding="utf-8") as f:
            json.dump({k: run[k] for k in ("trainlint", "binary", "version", "select", "date", "input_errors")}, f,
                      indent=1)
    return findings, catalogue, run


def check_checkouts(args, repos):
    """Problems with the checkouts: a wrong commit stops; a labelled file that is missing, or a label
    past the end of its file, is reported."""
    notes = []
    for meta in repos:
        root = q.checkout_dir(args.cache, meta["repo"])
        if args.findings_dir and not os.path.isdir(root):
            continue  # replaying recorded findings: the checkout is optional
        q.check_checkout(root, meta["repo"], meta["commit"])
        for path in meta["files"]:
            full = os.path.join(root, path)
            if not os.path.isfile(full):
                notes.append("%s: labelled file %s is not in the checkout" % (meta["repo"], path))
                continue
            with open(full, "rb") as f:
                data = f.read()
            n = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
            for lab in meta["labels"]:
                if lab["path"] == path and lab["lines"] != "*" and lab["hi"] > n:
                    notes.append("%s: label past the end of the file (%d lines)" % (lab["where"], n))
    return notes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, epilog=USAGE_EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trainlint", help="the trainlint binary to run")
    ap.add_argument("--select", help="passed to `trainlint check --select` (e.g. ALL); default: the default rules")
    ap.add_argument("--cache", default=q.default_cache(),
                    help="where fetch.sh put the checkouts (default: %(default)s)")
    ap.add_argument("--labels", default=q.LABELS_DIR, help="the label files (default: labels/)")
    ap.add_argument("--adjudications", default=q.ADJUDICATIONS, help="default: adjudications.tsv")
    ap.add_argument("--repo", action="append", help="only this owner/name (repeatable)")
    ap.add_argument("-j", "--jobs", type=int, help="trainlint's thread count")
    ap.add_argument("--findings-dir",
                    help="score the findings recorded there (by --keep-findings) instead of running trainlint")
    ap.add_argument("--keep-findings", metavar="DIR",
                    help="record trainlint's output there (JSON per repository, rules.txt, run.json)")
    ap.add_argument("--list", action="store_true",
                    help="print every wrong finding and missed warn label, with the label's note")
    ap.add_argument("--json", metavar="FILE", help="write everything (counts, figures, each finding and label) to FILE")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    args = ap.parse_args(argv)
    if bool(args.trainlint) == bool(args.findings_dir):
        ap.error("give --trainlint PATH or --findings-dir DIR (one of them)")
    try:
        repos = q.read_label_dir(args.labels)
        if args.repo:
            unknown = set(args.repo) - {m["repo"] for m in repos}
            if unknown:
                ap.error("no label file for %s" % ", ".join(sorted(unknown)))
            repos = [m for m in repos if m["repo"] in args.repo]
        adjudications = q.read_adjudications(args.adjudications)
        adjudications = [a for a in adjudications if not args.repo or a["repo"] in args.repo]
        adjudicated = q.adjudicate(repos, adjudications)
        notes = check_checkouts(args, repos)
        findings, catalogue, run = collect(args, repos)
    except (q.FormatError, FileNotFoundError, ValueError, RuntimeError, OSError) as e:
        print("score.py: %s" % e, file=sys.stderr)
        return 2
    enabled = q.enabled_rules(catalogue, args.select)
    recorded = run.get("recorded", {}).get("select")
    if recorded:  # replaying: only the rules the recorded run enabled too
        enabled &= q.enabled_rules(catalogue, None if recorded == "default" else recorded)
        if recorded != run["select"]:
            run["select"] += ", findings recorded with " + recorded
    run["enabled"] = sorted(enabled)
    raw = score(repos, findings, enabled)
    adj = score(adjudicated, findings, enabled)

    n_labels = collections.Counter(lab["label"] for m in repos for lab in m["labels"])
    m_all = metrics(adj["counts"]["all"])
    summary = ("%s (%s), rules: %s (%d enabled); %d repositories (%d torch, %d paddle), %d labelled "
               "files, %d labels (%s); %d adjudications; %d labels of rules not enabled ignored; "
               "%d findings outside the labelled files"
               % (run["binary"] or "trainlint %s" % run["version"], run["trainlint"] or args.findings_dir,
                  run["select"], len(enabled), len(repos),
                  sum(m["framework"] == "torch" for m in repos), sum(m["framework"] == "paddle" for m in repos),
                  sum(len(m["files"]) for m in repos), sum(n_labels.values()),
                  ", ".join("%d %s" % (n_labels[k], k) for k in q.LABELS), len(adjudications),
                  m_all["labels_ignored"], m_all["outside"]))
    if m_all["not_enabled"]:
        summary += "; %d recorded findings of rules not enabled dropped" % m_all["not_enabled"]
    errs = sum(len(v) for v in run["input_errors"].values())
    if errs:
        summary += "; %d inputs trainlint could not analyse" % errs
    if args.markdown:
        print(summary + "\n")
    else:
        print("== " + summary + "\n")
    print(report(run, raw, adj, args.markdown, catalogue), end="")
    for n in notes:
        print("note: " + n)
    if args.list:
        print("\n== wrong findings (FP: warning, FP-i: info) and missed warn labels (FN), adjudicated labels")
        print(listing(adj), end="")
    if args.json:
        doc = {"schema": "trainlint-quality-score/1", "run": run, "summary": summary, "notes": notes,
               "adjudications": adjudications,
               "repos": [{k: m[k] for k in ("repo", "commit", "framework", "labeller", "files")} for m in repos],
               "figures": {"raw": {g: metrics(c) for g, c in raw["counts"].items()},
                           "adjudicated": {g: metrics(c) for g, c in adj["counts"].items()}},
               "findings": adj["findings"],
               "labels": [{k: lab.get(k) for k in ("repo", "path", "lines", "rule", "label", "note", "outcome",
                                                   "hit_warning", "hit_info", "adjudicated")}
                          for lab in adj["labels"]]}
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
