#!/usr/bin/env python3
"""test_quality.py - tests of the quality evaluation: score.py's matching and arithmetic on a small
synthetic labelled project, sample.py's determinism and summary, roots.py's reading of chains and
sheets, fetch.sh on local repositories.
No network. usage: test_quality.py [--trainlint PATH] (PATH adds a run of the real analyzer)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

QUALITY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, QUALITY)
import qualitylib as q  # noqa: E402
import roots  # noqa: E402
import sample  # noqa: E402
import score  # noqa: E402

TRAINLINT = None  # set from --trainlint
FAKE_SHA_TOY = "1" * 40
FAKE_SHA_PD = "2" * 40

# A catalogue as `trainlint rules --all` prints it: TL603 is opt-in.
RULES_TXT = "".join("%s  rule-%s  %s  -  %s\n" % (c, c.lower(), sev, on) for c, sev, on in [
    ("TL101", "warning", "on"), ("TL104", "warning", "on"), ("TL402", "warning", "on"),
    ("TL601", "warning", "on"), ("TL602", "info", "on"), ("TL603", "info", "off (opt-in)")])

TOY_LABELS = """# repo: acme/toy
# commit: %s
# framework: torch
# labeller: test
# file: train.py
# file: model.py
path\tlines\trule\tlabel\tnote
train.py\t5\tTL101\twarn\tL1
train.py\t8-10\tTL101\twarn\tL2
train.py\t12\tTL101\tinfo\tL3
train.py\t14\tTL101\tneg\tL4
train.py\t16\tTL101\tdc\tL5
train.py\t18\tTL101\twarn\tL6 missed
train.py\t3\tTL104\twarn\tL7 found at info severity
train.py\t*\tTL601\twarn\tL8
train.py\t*\tTL602\tdc\tL9
train.py\t6\tTL602\tneg\tL10 narrower than L9
train.py\t*\tTL603\twarn\tL11 opt-in rule
model.py\t2\tTL402\tneg\tL12
model.py\t50\tTL402\tneg\tL13 past the end of the file
""" % FAKE_SHA_TOY

PD_LABELS = """# repo: acme/pd
# commit: %s
# framework: paddle
# file: step.py
path\tlines\trule\tlabel\tnote
step.py\t2\tTL101\twarn\tM1
step.py\t4\tTL101\tneg\tM2
""" % FAKE_SHA_PD


def finding(path, line, code, severity="warning"):
    return {"code": code, "severity": severity, "path": path, "line": line, "column": 1,
            "message": "%s at %s:%d" % (code, path, line), "hot_path": []}


TOY_FINDINGS = [
    finding("train.py", 5, "TL101"),             # F1 right (L1)
    finding("./train.py", 8, "TL101"),           # F2 right (L2), path spelt with ./
    finding("train.py", 10, "TL101"),            # F3 right (L2 again)
    finding("train.py", 12, "TL101"),            # F4 wrong: on info
    finding("train.py", 14, "TL101"),            # F5 wrong: on neg
    finding("train.py", 16, "TL101"),            # F6 on dc: not scored
    finding("train.py", 19, "TL101"),            # F7 wrong: unlabelled
    finding("train.py", 3, "TL104", "info"),     # F8 info right (L7)
    finding("train.py", 1, "TL601"),             # F9 right (L8, whole file)
    finding("train.py", 6, "TL602", "info"),     # F10 info wrong (L10 neg wins over L9 dc)
    finding("train.py", 9, "TL602", "info"),     # F11 info on dc (L9)
    finding("model.py", 2, "TL402"),             # F12 wrong: on neg
    finding("other.py", 1, "TL101"),             # F13 outside the labelled files
    finding("train.py", 7, "TL603", "info"),     # F14 rule off by default
]
PD_FINDINGS = [finding("step.py", 2, "TL101"), finding("step.py", 4, "TL101")]

ADJ_HEADER = "# test\nrepo\tpath\tlines\trule\twas\tnow\tdate\treason\n"


class Scorer(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-quality-")
        self.labels = os.path.join(self.tmp, "labels")
        self.cache = os.path.join(self.tmp, "cache")
        self.found = os.path.join(self.tmp, "findings")
        for d in (self.labels, self.found):
            os.makedirs(d)
        write(os.path.join(self.labels, "acme__toy.tsv"), TOY_LABELS)
        write(os.path.join(self.labels, "acme__pd.tsv"), PD_LABELS)
        checkout(self.cache, "acme__toy", FAKE_SHA_TOY, {"train.py": 20, "model.py": 10, "other.py": 3})
        checkout(self.cache, "acme__pd", FAKE_SHA_PD, {"step.py": 5})
        write(os.path.join(self.found, "rules.txt"), RULES_TXT)
        write(os.path.join(self.found, "acme__toy.json"), json.dumps({"version": "test", "findings": TOY_FINDINGS}))
        write(os.path.join(self.found, "acme__pd.json"), json.dumps({"version": "test", "findings": PD_FINDINGS}))
        self.adj = os.path.join(self.tmp, "adjudications.tsv")
        write(self.adj, ADJ_HEADER)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_score(self, *extra, expect=0):
        out = os.path.join(self.tmp, "score.json")
        p = subprocess.run([sys.executable, os.path.join(QUALITY, "score.py"), "--findings-dir", self.found,
                            "--labels", self.labels, "--cache", self.cache, "--adjudications", self.adj,
                            "--json", out, "--list"] + list(extra), capture_output=True, text=True)
        self.assertEqual(p.returncode, expect, p.stderr)
        if expect:
            return None, p
        with open(out, encoding="utf-8") as f:
            return json.load(f), p

    def test_default_selection(self):
        doc, p = self.run_score()
        a = doc["figures"]["raw"]["all"]
        self.assertEqual(doc["figures"]["adjudicated"]["all"], a)
        want = {"warnings": 11, "warnings_on_dc": 1, "warnings_scored": 10, "warnings_right": 5,
                "warnings_wrong": 5, "warnings_wrong_on_info": 1, "warnings_wrong_on_neg": 3,
                "warnings_wrong_unlabelled": 1, "warn_labels": 6, "warn_labels_found": 4,
                "warn_labels_found_any": 5, "info_findings": 3, "info_on_dc": 1, "info_right": 1, "info_wrong": 1,
                "info_labels": 1, "info_labels_found_any": 1, "neg_labels": 5, "neg_labels_reported": 4,
                "dc_labels": 2, "labels_ignored": 1, "outside": 1, "not_enabled": 1}
        self.assertEqual({k: a[k] for k in want}, want)
        self.assertAlmostEqual(a["precision"], 0.5)
        self.assertAlmostEqual(a["recall"], 4 / 6)
        self.assertAlmostEqual(a["recall_any"], 5 / 6)
        fig = doc["figures"]["adjudicated"]
        self.assertEqual((fig["framework:paddle"]["warnings_right"], fig["framework:paddle"]["warnings_wrong"]), (1, 1))
        self.assertEqual((fig["framework:torch"]["warnings_right"], fig["framework:torch"]["warnings_wrong"]), (4, 4))
        self.assertEqual((fig["family:TL1"]["warnings"], fig["family:TL1"]["warnings_right"]), (9, 4))
        self.assertEqual(fig["rule:TL104"]["warn_labels_found"], 0)
        self.assertEqual(fig["rule:TL104"]["warn_labels_found_any"], 1)
        self.assertEqual(fig["rule:TL603"]["labels_ignored"], 1)
        self.assertIsNone(fig["rule:TL603"]["recall"])
        self.assertEqual(fig["repo:acme/toy"]["outside"], 1)
        outcomes = {(lab["path"], lab["lines"], lab["rule"]): lab["outcome"] for lab in doc["labels"]}
        self.assertEqual(outcomes[("train.py", "18", "TL101")], "missed")
        self.assertEqual(outcomes[("train.py", "3", "TL104")], "found at info severity only")
        self.assertEqual(outcomes[("train.py", "*", "TL603")], "ignored (rule not enabled)")
        self.assertEqual(outcomes[("train.py", "8-10", "TL101")], "found")
        self.assertIn("acme__toy.tsv:20: label past the end of the file (10 lines)", p.stdout)
        # --list: 5 wrong warnings, 1 wrong info finding, 2 missed warn labels (L6, L7)
        listed = [line.split()[0] for line in p.stdout.splitlines() if line[:3] in ("FP ", "FP-", "FN ")]
        self.assertEqual(sorted(listed), ["FN"] * 2 + ["FP"] * 5 + ["FP-i"])
        self.assertIn("FN   acme/toy train.py:18 TL101 warn (missed) | L6 missed", p.stdout)

    def test_select_all(self):
        doc, _ = self.run_score("--select", "ALL")
        a = doc["figures"]["adjudicated"]["all"]
        self.assertEqual((a["labels_ignored"], a["not_enabled"], a["warn_labels"], a["warn_labels_found_any"]),
                         (0, 0, 7, 6))
        self.assertEqual((a["info_findings"], a["info_right"], a["info_wrong"]), (4, 2, 1))
        self.assertEqual(doc["run"]["enabled"], ["TL101", "TL104", "TL402", "TL601", "TL602", "TL603"])

    def test_markdown(self):
        _, p = self.run_score("--markdown", "--repo", "acme/pd")
        self.assertIn("| all, raw labels | 2 | 0 | 1 | 1 | 0.50 | 1 | 1 | 1.00 | 1 | 1.00 | 0/0 | 0 |", p.stdout)

    def test_adjudications(self):
        write(self.adj, ADJ_HEADER
              + "acme/toy\ttrain.py\t14\tTL101\tneg\twarn\t2026-01-02\tthe tensor is on the GPU after all\n"
              + "acme/toy\ttrain.py\t19\tTL101\t-\tdc\t2026-01-02\tfrequency depends on a flag\n")
        doc, p = self.run_score()
        raw, adj = doc["figures"]["raw"]["all"], doc["figures"]["adjudicated"]["all"]
        self.assertEqual((raw["warnings_right"], raw["warnings_scored"], raw["warn_labels"]), (5, 10, 6))
        self.assertEqual((adj["warnings_right"], adj["warnings_scored"], adj["warn_labels"], adj["warn_labels_found"]),
                         (6, 9, 7, 5))
        self.assertAlmostEqual(adj["precision"], 6 / 9)
        self.assertIn("2 adjudications", p.stdout)
        # a row that names a label not as written is refused
        write(self.adj, ADJ_HEADER + "acme/toy\ttrain.py\t14\tTL101\twarn\tneg\t2026-01-02\twrong was\n")
        _, p = self.run_score(expect=2)
        self.assertIn("0 labels train.py 14 TL101 warn", p.stderr)

    def test_wrong_commit_stops(self):
        write(os.path.join(self.cache, "acme__pd", q.MARKER), "commit %s\n" % ("3" * 40))
        _, p = self.run_score(expect=2)
        self.assertIn("run bench/quality/fetch.sh", p.stderr)

    def test_assign_prefers_the_narrowest(self):
        labs = [q.make_label("f.py", lines, "TL101", label, "", "t:%d" % i)
                for i, (lines, label) in enumerate([("*", "dc"), ("3-9", "warn"), ("4", "neg"), ("2-8", "info")])]
        self.assertEqual(score.assign(4, labs)["label"], "neg")
        self.assertEqual(score.assign(5, labs)["label"], "warn")  # 3-9 and 2-8 are as wide: the first wins
        self.assertEqual(score.assign(2, labs)["label"], "info")
        self.assertEqual(score.assign(9, labs)["label"], "warn")
        self.assertEqual(score.assign(100, labs)["label"], "dc")
        self.assertIsNone(score.assign(1, labs[1:]))

    def test_label_format_errors(self):
        for bad, msg in [("train.py\t5-3\tTL101\twarn\tx", "empty range"), ("train.py\t5\tTL1\twarn\tx", "not a rule"),
                         ("train.py\t5\tTL101\tmaybe\tx", "label 'maybe'"), ("x.py\t5\tTL101\twarn\tx", "not among")]:
            write(os.path.join(self.labels, "acme__toy.tsv"), TOY_LABELS + bad + "\n")
            _, p = self.run_score(expect=2)
            self.assertIn(msg, p.stderr)


class Sampler(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-sample-")
        self.repos = os.path.join(self.tmp, "repos.tsv")
        write(self.repos, "repo\tcommit\nacme/big\t%s\n" % ("4" * 40))
        fs = [finding("pkg/m%02d.py" % (i % 7), i, "TL%d" % (101 + i % 3)) for i in range(1, 41)]
        fs += [finding("pkg/info.py", i, "TL107", "info") for i in range(1, 11)]
        self.findings = os.path.join(self.tmp, "findings.json")
        write(self.findings, json.dumps({"version": "test", "findings": fs}))
        self.root = os.path.join(self.tmp, "root")
        os.makedirs(os.path.join(self.root, "pkg"))
        for i in range(7):
            write(os.path.join(self.root, "pkg", "m%02d.py" % i), "".join("x%d = %d\n" % (j, j) for j in range(45)))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def draw(self, seed, n, name, *extra, expect=0):
        p = subprocess.run([sys.executable, os.path.join(QUALITY, "sample.py"), "--findings", self.findings,
                            "--repo", "acme/big", "--repos", self.repos, "--root", self.root, "--out", self.tmp,
                            "--seed", str(seed), "-n", str(n), "--name", name] + list(extra),
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, expect, p.stderr)
        return sample.read_sheet(os.path.join(self.tmp, name + ".tsv")) if not expect else p

    def key(self, rows):
        return [(r["path"], r["line"], r["rule"]) for r in rows]

    def test_same_seed_same_sample(self):
        h1, a = self.draw(3, 10, "a")
        _, b = self.draw(3, 10, "b")
        _, c = self.draw(4, 10, "c")
        _, d = self.draw(3, 15, "d")
        self.assertEqual(len(a), 10)
        self.assertEqual(self.key(a), self.key(b))
        self.assertNotEqual(self.key(a), self.key(c))
        self.assertEqual(self.key(d)[:10], self.key(a))  # a larger N extends the sample
        self.assertEqual(len(set(self.key(a))), 10)
        self.assertTrue(all(r["rule"] != "TL107" for r in d))  # info findings are not sampled
        self.assertEqual((h1["seed"], h1["n"], h1["population"]), ("3", "10", "40 warnings in 7 files"))
        self.assertEqual(h1["population by rule"], "TL101=13 TL102=14 TL103=13")
        with open(os.path.join(self.tmp, "a.tsv"), encoding="utf-8") as f:
            self.assertNotIn("x1 = 1", f.read())  # no code in the sheet
        self.assertEqual(sample.draw(list(range(40)), 3, 10), sample.draw(list(range(40)), 3, 10))

    def test_excerpt_and_refusal(self):
        self.draw(3, 5, "e")
        p = self.draw(3, 5, "e", expect=2)
        self.assertIn("exists", p.stderr)
        p = subprocess.run([sys.executable, os.path.join(QUALITY, "sample.py"), "--findings", self.findings,
                            "--repo", "acme/big", "--repos", self.repos, "--root", self.root, "--out", self.tmp,
                            "--seed", "3", "-n", "5", "--name", "e", "--force"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        first = sample.read_sheet(os.path.join(self.tmp, "e.tsv"))[1][0]
        self.assertIn(">%5d  x%d = %d" % (first["line"], first["line"] - 1, first["line"] - 1), p.stdout)

    def test_summarise(self):
        path = os.path.join(self.tmp, "j.tsv")
        self.draw(5, 8, "j")
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        out, n = [], 0
        for line in lines:
            cols = line.split("\t")
            if line and not line.startswith("#") and cols[0] != "repo":
                n += 1
                cols[6] = "right" if n <= 5 else ("wrong" if n <= 7 else "")
                cols[7] = "test"
            out.append("\t".join(cols))
        write(path, "\n".join(out))
        header, rows = sample.read_sheet(path)
        c = sample.summarise([(path, header, rows)])
        self.assertEqual((c["all"]["right"], c["all"]["wrong"], c["all"]["unjudged"], c["all"]["population"]),
                         (5, 2, 1, 40))
        self.assertEqual(sum(c["rule:" + r]["population"] for r in ("TL101", "TL102", "TL103")), 40)
        p = subprocess.run([sys.executable, os.path.join(QUALITY, "sample.py"), "--summarise", path, "--markdown"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| all | 40 | 8 | 5 | 2 | 1 | 0.71 | 0.36-0.92 |", p.stdout)
        lo, hi = sample.wilson(5, 7)
        self.assertAlmostEqual(lo, 0.3589, places=3)
        self.assertAlmostEqual(hi, 0.9178, places=3)
        write(path, "\n".join(out).replace("\tright\t", "\tmaybe\t", 1))
        p = subprocess.run([sys.executable, os.path.join(QUALITY, "sample.py"), "--summarise", path],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("verdict 'maybe'", p.stderr)


class Roots(unittest.TestCase):
    def test_root_of(self):
        chain = lambda *d: {"hot_path": [{"description": x} for x in d]}
        self.assertEqual(roots.root_of(chain("in `f`", "`Net.forward` runs every step (forward of a Module/Layer "
                                             "subclass)")), "forward of a Module")
        self.assertEqual(roots.root_of(chain("in the step loop")), "step loop")
        self.assertEqual(roots.root_of(chain("`learn` runs one training step per call (...), and it is called from "
                                             "outside the project")), "step function called from outside")
        self.assertEqual(roots.root_of({"hot_path": []}), "no chain")
        self.assertEqual(roots.root_of(chain("something new")), "other")

    def test_judged_rows(self):
        tmp = tempfile.mkdtemp(prefix="tl-roots-")
        try:
            path = os.path.join(tmp, "s.tsv")
            write(path, "# header\n" + "\t".join(sample.SHEET_COLUMNS) + "\n"
                  "acme/toy\t%s\ttrain.py\t5\tTL101\tm\tright\tr\n"
                  "acme/toy\t%s\ttrain.py\t5\tTL101\tm\twrong\tr\n"
                  "acme/toy\t%s\ttrain.py\t9\tTL104\tm\t\t\n" % (FAKE_SHA_TOY, FAKE_SHA_TOY, FAKE_SHA_TOY))
            rows = roots.judged_rows([path])
            self.assertEqual(dict(rows), {("acme/toy", "train.py", 5, "TL101"): ["right", "wrong"]})
        finally:
            shutil.rmtree(tmp)


@unittest.skipUnless(shutil.which("git"), "git not found")
class Fetch(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tl-fetch-")
        src = os.path.join(self.tmp, "src", "acme+toy")
        os.makedirs(src)
        git = lambda *a: subprocess.run(["git", "-C", src, "-c", "user.name=t", "-c", "user.email=t@t"] + list(a),
                                        check=True, capture_output=True, text=True).stdout.strip()
        git("init", "-q")
        write(os.path.join(src, "train.py"), "print(1)\n")
        write(os.path.join(src, "data.bin"), "not exported\n")
        os.makedirs(os.path.join(src, "cfg"))
        write(os.path.join(src, "cfg", "pyproject.toml"), "[tool.x]\n")
        git("add", "-A")
        git("commit", "-qm", "one")
        self.commit = git("rev-parse", "HEAD")
        write(os.path.join(src, "later.py"), "print(2)\n")
        git("add", "-A")
        git("commit", "-qm", "two")
        self.labels = os.path.join(self.tmp, "labels")
        os.makedirs(self.labels)
        write(os.path.join(self.labels, "acme__toy.tsv"),
              "# repo: acme/toy\n# commit: %s\n# framework: torch\n" % self.commit)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def fetch(self, cache, *extra, env=None, expect=0):
        p = subprocess.run(["bash", os.path.join(QUALITY, "fetch.sh"), "--labels", self.labels, "--wild-list",
                            os.devnull, "--cache", os.path.join(self.tmp, cache)] + list(extra),
                           capture_output=True, text=True, env=dict(os.environ, **(env or {})))
        self.assertEqual(p.returncode, expect, p.stdout + p.stderr)
        return p

    def test_from_local_git_dirs(self):
        pattern = os.path.join(self.tmp, "src", "{owner}+{name}", ".git")
        p = self.fetch("c1", "--git-dir-pattern", pattern)
        out = os.path.join(self.tmp, "c1", "acme__toy")
        self.assertIn("export", p.stdout)
        self.assertEqual(sorted(os.listdir(out)), [".trainlint-quality", "cfg", "train.py"])
        self.assertTrue(os.path.isfile(os.path.join(out, "cfg", "pyproject.toml")))
        q.check_checkout(out, "acme/toy", self.commit)
        p = self.fetch("c1", "--git-dir-pattern", pattern)
        self.assertIn("up to date", p.stdout)
        self.assertIn("0 materialised, 1 already up to date", p.stdout)

    def test_from_url(self):
        url = "file://" + os.path.join(self.tmp, "src", "{owner}+{name}")
        p = self.fetch("c2", "--url-pattern", url)
        self.assertIn("shallow fetch", p.stdout)
        out = os.path.join(self.tmp, "c2", "acme__toy")
        self.assertTrue(os.path.isfile(os.path.join(out, "train.py")))
        self.assertFalse(os.path.exists(os.path.join(out, "later.py")))
        q.check_checkout(out, "acme/toy", self.commit)
        # a server that refuses unadvertised commits: the full clone
        p = self.fetch("c3", "--url-pattern", url,
                       env={"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "protocol.version", "GIT_CONFIG_VALUE_0": "0"})
        self.assertIn("full clone", p.stdout)
        q.check_checkout(os.path.join(self.tmp, "c3", "acme__toy"), "acme/toy", self.commit)
        p = self.fetch("c4", "--url-pattern", "file://" + os.path.join(self.tmp, "none", "{name}"), expect=2)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "c4", "acme__toy")))

    def test_unknown_commit(self):
        write(os.path.join(self.labels, "acme__toy.tsv"), "# repo: acme/toy\n# commit: %s\n" % ("5" * 40))
        p = self.fetch("c5", "--git-dir-pattern", os.path.join(self.tmp, "src", "{owner}+{name}", ".git"), expect=2)
        self.assertIn("is not in", p.stderr)


@unittest.skipUnless(TRAINLINT or "--trainlint" in sys.argv, "no --trainlint given")
class RealRun(unittest.TestCase):
    """score.py over a tiny project with the real analyzer: its JSON is read, a plain case is found."""

    def test_item_in_the_step_loop(self):
        tmp = tempfile.mkdtemp(prefix="tl-real-")
        try:
            sha = "6" * 40
            labels = os.path.join(tmp, "labels")
            os.makedirs(labels)
            write(os.path.join(labels, "acme__real.tsv"),
                  "# repo: acme/real\n# commit: %s\n# framework: torch\n# file: train.py\n"
                  "path\tlines\trule\tlabel\tnote\ntrain.py\t9\tTL101\twarn\tloss.item() every step\n"
                  "train.py\t2\tTL101\tneg\tno sync at the import\n" % sha)
            root = os.path.join(tmp, "cache", "acme__real")
            os.makedirs(root)
            write(os.path.join(root, q.MARKER), "commit %s\n" % sha)
            write(os.path.join(root, "train.py"), "import torch\n"
                  "model = torch.nn.Linear(4, 4).cuda()\n"
                  "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                  "for step in range(100):\n"
                  "    x = torch.randn(8, 4, device='cuda')\n"
                  "    loss = model(x).sum()\n"
                  "    loss.backward()\n"
                  "    opt.step()\n"
                  "    print(loss.item())\n")
            out = os.path.join(tmp, "s.json")
            p = subprocess.run([sys.executable, os.path.join(QUALITY, "score.py"), "--trainlint", TRAINLINT,
                                "--labels", labels, "--cache", os.path.join(tmp, "cache"), "--adjudications",
                                os.devnull, "--json", out, "--keep-findings", os.path.join(tmp, "kept")],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out, encoding="utf-8") as f:
                doc = json.load(f)
            outcome = {(lab["lines"], lab["rule"]): lab["outcome"] for lab in doc["labels"]}
            self.assertEqual(outcome[("9", "TL101")], "found")
            self.assertEqual(outcome[("2", "TL101")], "not reported")
            self.assertTrue(os.path.isfile(os.path.join(tmp, "kept", "acme__real.json")))
            self.assertIn("TL101", open(os.path.join(tmp, "kept", "rules.txt"), encoding="utf-8").read())
        finally:
            shutil.rmtree(tmp)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def checkout(cache, key, commit, files):
    """A directory like fetch.sh's: the marker and files of the given line counts."""
    root = os.path.join(cache, key)
    os.makedirs(root)
    write(os.path.join(root, q.MARKER), "commit %s\nrepo x\nsource test\nmethod test\n" % commit)
    for name, n in files.items():
        write(os.path.join(root, name), "".join("pass  # %d\n" % i for i in range(1, n + 1)))


if __name__ == "__main__":
    if "--trainlint" in sys.argv:
        i = sys.argv.index("--trainlint")
        TRAINLINT = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    unittest.main()
