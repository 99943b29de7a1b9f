"""qualitylib.py - label files, adjudications, the cache of checkouts and trainlint runs, shared by
score.py and sample.py (standard library only)."""
import datetime
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS_DIR = os.path.join(HERE, "labels")
ADJUDICATIONS = os.path.join(HERE, "adjudications.tsv")
WILD_DIR = os.path.join(HERE, "wild")
WILD_REPOS = os.path.join(WILD_DIR, "repos.tsv")
MARKER = ".trainlint-quality"  # written by fetch.sh into each checkout

LABELS = ("warn", "info", "neg", "dc")
FAMILIES = {
    "TL1": "host-device syncs",
    "TL2": "data loading",
    "TL3": "Python loops",
    "TL4": "instrumentation",
    "TL5": "distributed",
    "TL6": "settings",
    "TL7": "memory",
}
WHOLE_FILE = 10 ** 9  # the upper end of a `*` label
_RULE = re.compile(r"^TL[0-9]{3}$")
_LINES = re.compile(r"^(?:\*|[1-9][0-9]*(?:-[1-9][0-9]*)?)$")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


class FormatError(Exception):
    """A label, adjudication or sheet file that breaks its format; the message names file and line."""


def family(code):
    return code[:3]


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "trainlint-quality")


def repo_key(repo):
    """owner/name -> owner__name, the name of its label file and of its checkout."""
    return repo.replace("/", "__", 1)


def parse_lines(text, where):
    """'12' -> (12, 12); '12-15' -> (12, 15); '*' -> (0, WHOLE_FILE)."""
    if not _LINES.match(text):
        raise FormatError("%s: lines must be N, A-B or *, not %r" % (where, text))
    if text == "*":
        return 0, WHOLE_FILE
    lo, _, hi = text.partition("-")
    lo, hi = int(lo), int(hi or lo)
    if hi < lo:
        raise FormatError("%s: empty range %r" % (where, text))
    return lo, hi


def make_label(path, lines, rule, label, note, where):
    if not _RULE.match(rule):
        raise FormatError("%s: %r is not a rule code" % (where, rule))
    if label not in LABELS:
        raise FormatError("%s: label %r is not one of %s" % (where, label, "/".join(LABELS)))
    lo, hi = parse_lines(lines, where)
    return {"path": path, "lines": lines, "lo": lo, "hi": hi, "rule": rule, "label": label,
            "note": note, "where": where}


def read_label_file(path):
    """Returns {"repo", "commit", "framework", "labeller", "files": [...], "labels": [...]}."""
    meta = {"repo": None, "commit": None, "framework": None, "labeller": None, "files": [],
            "labels": [], "source": path}
    seen_header = False
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = "%s:%d" % (path, n)
            if not line.strip():
                continue
            if line.startswith("#"):
                m = re.match(r"^#\s*(repo|commit|framework|labeller|file):\s*(\S+)", line)
                if m and m.group(1) == "file":
                    meta["files"].append(m.group(2))
                elif m:
                    meta[m.group(1)] = m.group(2)
                continue
            cols = line.split("\t")
            if not seen_header and cols[:4] == ["path", "lines", "rule", "label"]:
                seen_header = True
                continue
            if len(cols) < 4:
                raise FormatError("%s: %d columns, want path, lines, rule, label, note" % (where, len(cols)))
            note = "\t".join(cols[4:]).strip()
            meta["labels"].append(make_label(cols[0], cols[1], cols[2], cols[3], note, where))
    if not meta["repo"] or not _REPO.match(meta["repo"]):
        raise FormatError("%s: no valid '# repo: owner/name' line" % path)
    if not meta["commit"] or not _COMMIT.match(meta["commit"]):
        raise FormatError("%s: no valid '# commit: <40 hex>' line" % path)
    if meta["framework"] not in ("torch", "paddle"):
        raise FormatError("%s: '# framework:' must be torch or paddle" % path)
    files = set(meta["files"])
    for lab in meta["labels"]:
        if lab["path"] not in files:
            raise FormatError("%s: %s is not among the '# file:' lines" % (lab["where"], lab["path"]))
    return meta


def read_label_dir(directory):
    out = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".tsv"):
            meta = read_label_file(os.path.join(directory, name))
            if repo_key(meta["repo"]) + ".tsv" != name:
                raise FormatError("%s: names repo %s; the file should be %s.tsv"
                                  % (name, meta["repo"], repo_key(meta["repo"])))
            out.append(meta)
    if not out:
        raise FormatError("no label files (*.tsv) in %s" % directory)
    return out


ADJ_COLUMNS = ["repo", "path", "lines", "rule", "was", "now", "date", "reason"]


def read_adjudications(path):
    """Rows of adjudications.tsv: a later decision that a blind label was wrong. `was` is the label
    as written ('-': there was none, the row adds one); `now` the decided label ('-': no label)."""
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = "%s:%d" % (path, n)
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if cols[:len(ADJ_COLUMNS)] == ADJ_COLUMNS:
                continue
            if len(cols) != len(ADJ_COLUMNS):
                raise FormatError("%s: %d columns, want %s" % (where, len(cols), " ".join(ADJ_COLUMNS)))
            row = dict(zip(ADJ_COLUMNS, cols))
            row["where"] = where
            for key in ("was", "now"):
                if row[key] != "-" and row[key] not in LABELS:
                    raise FormatError("%s: %s must be one of %s or -" % (where, key, "/".join(LABELS)))
            if row["was"] == row["now"]:
                raise FormatError("%s: was and now are both %s" % (where, row["was"]))
            if not row["reason"].strip():
                raise FormatError("%s: an adjudication needs its reason" % where)
            if not re.match(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", row["date"]):
                raise FormatError("%s: date must be YYYY-MM-DD" % where)
            parse_lines(row["lines"], where)
            if not _RULE.match(row["rule"]):
                raise FormatError("%s: %r is not a rule code" % (where, row["rule"]))
            rows.append(row)
    return rows


def adjudicate(repos, adjudications):
    """Returns a copy of `repos` (read_label_dir's list) with the adjudications applied. Every row
    must find the label it names, as written (raises FormatError otherwise)."""
    out = []
    by_repo = {}
    for row in adjudications:
        by_repo.setdefault(row["repo"], []).append(row)
    known = {m["repo"] for m in repos}
    for repo in by_repo:
        if repo not in known:
            raise FormatError("%s: no label file for %s" % (by_repo[repo][0]["where"], repo))
    for meta in repos:
        labels = [dict(lab) for lab in meta["labels"]]
        for row in by_repo.get(meta["repo"], []):
            if row["path"] not in meta["files"]:
                raise FormatError("%s: %s is not a labelled file of %s" % (row["where"], row["path"], meta["repo"]))
            hits = [i for i, lab in enumerate(labels)
                    if (lab["path"], lab["lines"], lab["rule"]) == (row["path"], row["lines"], row["rule"])]
            if row["was"] == "-":
                if hits:
                    raise FormatError("%s: says there was no label, but %s has one"
                                      % (row["where"], labels[hits[0]]["where"]))
                lab = make_label(row["path"], row["lines"], row["rule"], row["now"], row["reason"], row["where"])
                lab["adjudicated"] = "-"
                labels.append(lab)
                continue
            hits = [i for i in hits if labels[i]["label"] == row["was"]]
            if len(hits) != 1:
                raise FormatError("%s: %d labels %s %s %s %s (want exactly one)"
                                  % (row["where"], len(hits), row["path"], row["lines"], row["rule"], row["was"]))
            if row["now"] == "-":
                del labels[hits[0]]
            else:
                labels[hits[0]] = dict(labels[hits[0]], label=row["now"], adjudicated=row["was"],
                                       note=labels[hits[0]]["note"] + " [adjudicated: " + row["reason"] + "]")
        out.append(dict(meta, labels=labels))
    return out


def read_repo_list(path):
    """wild/repos.tsv: (owner/name, commit) rows."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            cols = raw.rstrip("\n").split("\t")
            if not cols[0] or cols[0].startswith("#") or cols[0] == "repo":
                continue
            if len(cols) < 2 or not _REPO.match(cols[0]) or not _COMMIT.match(cols[1]):
                raise FormatError("%s:%d: want owner/name<TAB>40-hex commit" % (path, n))
            rows.append((cols[0], cols[1]))
    return rows


def checkout_dir(cache, repo, wild=False):
    return os.path.join(cache, "wild" if wild else "", repo_key(repo))


def check_checkout(directory, repo, commit):
    """Raises FileNotFoundError/ValueError unless fetch.sh put `repo` at `commit` in `directory`."""
    marker = os.path.join(directory, MARKER)
    if not os.path.isfile(marker):
        raise FileNotFoundError("%s: no checkout of %s (run bench/quality/fetch.sh)" % (directory, repo))
    with open(marker, encoding="utf-8") as f:
        fields = dict(line.rstrip("\n").partition(" ")[::2] for line in f if line.strip())
    if fields.get("commit") != commit:
        raise ValueError("%s holds %s at %s, not %s (run bench/quality/fetch.sh)"
                         % (directory, repo, fields.get("commit"), commit))


# --- trainlint ------------------------------------------------------------------------------------

def rules_text(trainlint):
    """The output of `trainlint rules --all`: one line per rule of the catalogue."""
    return subprocess.run([trainlint, "rules", "--all"], check=True, capture_output=True, text=True).stdout


def parse_catalogue(text):
    """rules_text's lines -> [{"code", "name", "severity", "default": bool}] in catalogue order."""
    rules = []
    for line in text.splitlines():
        cols = line.split()
        if len(cols) >= 4 and _RULE.match(cols[0]):
            # code, name, severity, fix kind, then "on" or "off (opt-in)"
            rules.append({"code": cols[0], "name": cols[1], "severity": cols[2], "default": "on" in cols[3:]})
    if not rules:
        raise FormatError("no rules in the catalogue text")
    return rules


def enabled_rules(catalogue, select=None):
    """The codes a `check` run reports: the default ones, or those `--select` names (codes,
    prefixes, ALL)."""
    if not select:
        return {r["code"] for r in catalogue if r["default"]}
    parts = [p.strip() for p in select.split(",") if p.strip()]
    return {r["code"] for r in catalogue
            if any(p.upper() == "ALL" or r["code"].startswith(p) for p in parts)}


def describe_binary(trainlint):
    """'trainlint <version>, built <mtime>' for the record (the binary carries no source revision)."""
    version = subprocess.run([trainlint, "version"], check=True, capture_output=True, text=True).stdout.strip()
    built = datetime.datetime.fromtimestamp(os.path.getmtime(trainlint)).astimezone()
    return "%s, built %s" % (version, built.strftime("%Y-%m-%d %H:%M:%S %Z"))


def run_check(trainlint, directory, select=None, jobs=None):
    """Runs `trainlint check --format json --exit-zero --no-cache` over `directory` (no cache
    directory is left in the labelled repositories). Returns (document, stderr text, exit code);
    exit code 2 (some input not analysed) is returned, anything else raises."""
    cmd = [trainlint, "check", "--format", "json", "--exit-zero", "--no-cache"]
    if select:
        cmd += ["--select", select]
    if jobs:
        cmd += ["-j", str(jobs)]
    cmd.append(directory)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 2):
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-2000:]))
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        raise RuntimeError("%s printed no JSON document (%s): %s" % (" ".join(cmd), e, p.stderr.strip()[-2000:]))
    return doc, p.stderr, p.returncode


def input_errors(stderr):
    """The inputs trainlint could not analyse: one 'PATH[:L:C]: error: ...' line each."""
    return [line for line in stderr.splitlines() if ": error: " in line]


def relative_path(path, root):
    """A finding's path relative to the checkout root (trainlint keeps the argument's spelling)."""
    if os.path.isabs(path) and root:
        path = os.path.relpath(path, os.path.abspath(root))
    path = os.path.normpath(path).replace(os.sep, "/")
    return path[2:] if path.startswith("./") else path


def table(headers, rows, markdown):
    """Rows of strings as a Markdown table or aligned text (first column left, the rest right)."""
    if markdown:
        lines = ["| " + " | ".join(headers) + " |",
                 "| " + " | ".join(["---"] + ["---:"] * (len(headers) - 1)) + " |"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    width = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    fmt = lambda r: "  ".join(s.ljust(w) if i == 0 else s.rjust(w) for i, (s, w) in enumerate(zip(r, width)))
    return "\n".join([fmt(headers), fmt(["-" * w for w in width])] + [fmt(r) for r in rows])


def is_warning(finding):
    return finding.get("severity") in ("warning", "error")
