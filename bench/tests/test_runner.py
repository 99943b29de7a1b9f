#!/usr/bin/env python3
"""test_runner.py - unit tests of bench/run's logic (claims, verdicts, results files, table, SVG) on recorded synthetic data."""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)
import benchlib  # noqa: E402

EXAMPLE = os.path.join(BENCH, "tests", "data", "example-synthetic.json")
CLAIMS = os.path.join(BENCH, "claims.json")
SVG_NS = "{http://www.w3.org/2000/svg}"
TYPES = {"speedup", "direction", "removes_sync", "memory_reduction", "memory_saving_bytes",
         "count_ratio", "metric_difference", "none"}


def load_example():
    with open(EXAMPLE, encoding="utf-8") as f:
        return json.load(f)


def judged(claims=None, example=None, env=None):
    claims = claims or benchlib.load_claims(CLAIMS)
    example = example or load_example()
    benches = {b["id"]: b for b in example["benchmarks"]}
    rows = benchlib.evaluate_all(claims, benches, env or example["environment"])
    return {r["id"]: r for r in rows}, rows


def var(name, median, spread=0.02, **extra):
    d = {"name": name, "reps": 5, "median": median, "min": median * (1 - spread),
         "max": median * (1 + spread), "p10": median * (1 - spread / 2), "p90": median * (1 + spread / 2)}
    d.update(extra)
    return d


def one(test, variants, gpus=1, status="ok"):
    """Evaluates a single claim with the given test against one bench 'b' holding variants."""
    claim = {"id": "c", "test": dict(test, bench="b")}
    bench = {"id": "b", "status": status, "unit": "ms", "variants": variants}
    return benchlib.evaluate(claim, {"b": bench}, {"gpu_count": gpus}, 0.05)


class ClaimsFile(unittest.TestCase):
    def test_claims_are_well_formed(self):
        doc = benchlib.load_claims(CLAIMS)
        self.assertEqual(doc["schema"], "trainlint-bench-claims/1")
        studies = set()
        for c in doc["claims"]:
            t = c["test"]
            self.assertIn(t["type"], TYPES, c["id"])
            for key in ("id", "source", "rule_name", "claim", "claimed"):
                self.assertTrue(c.get(key), "%s lacks %s" % (c["id"], key))
            if c.get("rule") is not None:
                self.assertRegex(c["rule"], r"^TL\d{3}$")
            self.assertLessEqual(len(c["id"]), 30, "the text table shows 30 characters of an id")
            if t["type"] != "none":
                self.assertTrue(t["bench"].startswith(("cuda/", "torch/")), c["id"])
            if "range" in t:
                self.assertLessEqual(t["range"][0], t["range"][1], c["id"])
            if c["source"].startswith("case study "):
                studies.add(c["source"])
                self.assertTrue(c.get("quote"), "%s: a case study's claim needs its quote" % c["id"])
                # claim ids 000-* .. 004-* belong to CS1 .. CS5 (docs/case-studies.md)
                self.assertEqual(c["source"], "case study CS%d" % (int(c["id"][:3]) + 1), c["id"])
        self.assertEqual(studies, {"case study CS%d" % n for n in range(1, 6)})

    def test_claims_name_benchmarks_and_variants_that_exist(self):
        """Every bench and variant a claim names is in the benchmark's source, so a renamed variant
        cannot silently turn a claim into 'not measurable'."""
        with open(os.path.join(BENCH, "cuda", "tl_cudabench.cu"), encoding="utf-8") as f:
            cuda_src = f.read()
        for c in benchlib.load_claims(CLAIMS)["claims"]:
            t = c["test"]
            if t["type"] == "none":
                continue
            if t["bench"].startswith("cuda/"):
                src = cuda_src
                self.assertIn('"%s"' % t["bench"], src, c["id"])
            else:
                path = os.path.join(BENCH, "torch", t["bench"].split("/", 1)[1] + ".py")
                self.assertTrue(os.path.exists(path), "%s: no %s" % (c["id"], path))
                with open(path, encoding="utf-8") as f:
                    src = f.read()
            for key in ("anti", "fix"):
                name = t[key]
                # composed names: assert_sync.py adds " (python -O)", apply_prompt.py a "step:" prefix
                base = name.replace(" (python -O)", "")
                self.assertTrue('"%s"' % base in src or '"%s"' % base.split(":", 1)[-1] in src,
                                "%s: variant %r not found in the source of %s" % (c["id"], name, t["bench"]))

    def test_example_is_marked_synthetic_and_covers_every_claimed_bench(self):
        ex = load_example()
        self.assertIs(ex["synthetic"], True)
        self.assertIn("NOT a measurement", ex["about"])
        ids = {b["id"] for b in ex["benchmarks"]}
        for c in benchlib.load_claims(CLAIMS)["claims"]:
            bench = c["test"].get("bench")
            if bench and bench != "torch/detect_anomaly":  # left out on purpose: "did not run"
                self.assertIn(bench, ids, c["id"])

    def test_readme_claims_table_is_current(self):
        with open(os.path.join(BENCH, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        i, j = readme.find(benchlib.CLAIMS_TABLE_BEGIN), readme.find(benchlib.CLAIMS_TABLE_END)
        self.assertTrue(0 <= i < j, "README.md lacks the claims-table markers")
        got = readme[i:j + len(benchlib.CLAIMS_TABLE_END)] + "\n"
        self.assertEqual(got, benchlib.claims_markdown(benchlib.load_claims(CLAIMS)),
                         "bench/README.md's claims table is stale: paste `bench/run --claims-table`")

    def test_duplicate_claim_ids_are_refused(self):
        doc = benchlib.load_claims(CLAIMS)
        doc["claims"].append(copy.deepcopy(doc["claims"][0]))
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        try:
            with self.assertRaises(ValueError):
                benchlib.load_claims(f.name)
        finally:
            os.unlink(f.name)


class Verdicts(unittest.TestCase):
    def setUp(self):
        self.rows, self.list = judged()

    def check(self, cid, verdict, why):
        r = self.rows[cid]
        self.assertEqual(r["verdict"], verdict, "%s: %r" % (cid, r))
        self.assertIn(why, r["why"], cid)

    def test_speedup_within_above_below(self):
        self.check("000-workers", "confirmed", "within the claimed 1.5–2×")
        self.assertAlmostEqual(self.rows["000-workers"]["value"], 30 / 17.6)
        self.check("001-prenormalise", "confirmed", "larger than the claimed 2–5×")
        self.check("002-metrics-every-10", "confirmed", "larger than the claimed")
        self.check("002-profiler", "refuted", "smaller than the claimed 1.2–1.5×")
        self.check("004-compile", "refuted", "the fix is not faster")
        self.check("004-amp-speed", "confirmed", "within")

    def test_speedup_whose_spread_straddles_the_claim_is_inconclusive(self):
        self.check("000-stats-every-10", "inconclusive", "the spread 0.685–2.36× straddles the claimed 1.25×")
        self.check("002-wandb-every-50", "inconclusive", "straddles the claimed 1.03–1.08×")

    def test_fewer_than_five_repetitions_is_inconclusive(self):
        # the example's dataloader_epochs variants have 3 repetitions each
        self.check("004-dataloader", "inconclusive", "3 timed repetitions, a verdict needs 5")
        t = {"type": "direction", "anti": "a", "fix": "f"}
        r = one(t, [var("a", 3.0, reps=4), var("f", 1.0)])
        self.assertEqual((r["verdict"], r["why"]), ("inconclusive", "4 timed repetitions, a verdict needs 5"))
        self.assertEqual(one(t, [var("a", 3.0), var("f", 1.0)])["verdict"], "confirmed")

    def test_interleaved_rounds_give_the_spread_of_their_own_ratios(self):
        # each round is 20 % slower than the one before for both variants: apart, the ranges
        # overlap (inconclusive); round by round the anti-pattern is 1.10x the fix every time
        fix = [10.0 * 1.2 ** r for r in range(5)]
        anti = [x * 1.1 for x in fix]
        t = {"type": "direction", "anti": "a", "fix": "f"}

        def v(name, xs, keep):
            s = sorted(xs)
            d = {"name": name, "reps": 5, "median": s[2], "min": s[0], "max": s[-1], "p10": s[0], "p90": s[-1]}
            if keep:
                d["samples"] = xs
            return d
        apart = one(t, [v("a", anti, False), v("f", fix, False)])
        self.assertEqual(apart["verdict"], "inconclusive")
        paired = one(t, [v("a", anti, True), v("f", fix, True)])
        self.assertEqual(paired["verdict"], "confirmed", paired)
        lo, hi = paired["spread"]
        self.assertAlmostEqual(lo, 1.1)
        self.assertAlmostEqual(hi, 1.1)
        # a round where the fix was the slower one widens the spread past 1
        anti[2] = fix[2] * 0.95
        self.assertEqual(one(t, [v("a", anti, True), v("f", fix, True)])["verdict"], "inconclusive")
        # samples of unequal counts are not rounds: the ranges decide
        self.assertEqual(one(t, [v("a", anti[:4] + [anti[4]], True), v("f", fix[:4], True)])["verdict"],
                         "inconclusive")

    def test_sync_claims(self):
        self.check("000-max-sync", "refuted", "the fix still syncs (1 per step)")
        self.check("000-debug-assert", "refuted", "still syncs")
        self.check("000-assert-under-O", "confirmed", "the sync is gone")
        self.check("TL102-python-size", "confirmed", "the sync is gone")

    def test_memory_claims(self):
        self.check("003-scratch-memory", "confirmed", "within the claimed 1.3 GB")
        self.assertEqual(self.rows["003-scratch-memory"]["value"], 4153933824 - 2769289216)
        self.check("004-amp-memory", "refuted", "smaller than the claimed 50 %")
        self.assertAlmostEqual(self.rows["004-amp-memory"]["value"], 0.3)

    def test_direction_claims(self):
        self.check("TL301-launches", "confirmed", "across the whole spread")
        self.check("004-tf32", "confirmed", "the fix is faster")
        self.check("empty-cache", "inconclusive", "the spread 0.931–1.09× straddles 1.05×")
        self.check("004-cudnn-benchmark", "inconclusive", "straddles 1.05×")

    def test_not_measurable_reasons(self):
        self.check("003-no-sync", "not measurable here", "needs two GPUs (found 1)")
        self.check("001-compile", "not measurable here", "tcn-train:compile-reduce-overhead' not measured")
        self.assertIn("SYNTHETIC: compiler failed", self.rows["001-compile"]["why"])
        self.check("000-overall", "not measurable here", "the suite does not have")
        self.check("001-throughput", "not measurable here", "the suite does not have")
        self.check("detect-anomaly", "not measurable here", "did not run")
        self.check("host-then-cuda", "not measurable here", "skipped: no torch with CUDA")
        self.check("TL202-torch", "not measurable here", "benchmark failed: exit 1: SYNTHETIC failure")

    def test_two_gpus_found_makes_the_no_sync_claim_measurable(self):
        ex = load_example()
        for b in ex["benchmarks"]:
            if b["id"] == "torch/ddp_no_sync":
                b.clear()
                b.update({"id": "torch/ddp_no_sync", "status": "ok", "unit": "ms/opt-step", "variants": [
                    var("allreduce-every-micro-step", 40.0, allreduce_calls_per_opt_step=8.0),
                    var("no_sync-on-accumulation", 30.0, allreduce_calls_per_opt_step=2.0)]})
        rows, _ = judged(example=ex, env=dict(ex["environment"], gpu_count=2))
        self.assertEqual(rows["003-no-sync"]["verdict"], "confirmed", rows["003-no-sync"])
        self.assertAlmostEqual(rows["003-no-sync"]["value"], 4.0)

    def test_one_gpu_counts_all_reduces_and_estimates_the_time_on_two(self):
        ex = load_example()
        for b in ex["benchmarks"]:
            if b["id"] == "torch/ddp_no_sync":
                b.clear()
                b.update({"id": "torch/ddp_no_sync", "status": "ok", "unit": "ms/opt-step",
                          "params": {"gpus_used": 1, "accumulation_steps": 4, "grad_bytes": 400e6,
                                     "micro_step_ms": 10.0, "backward_ms": 6.0},
                          "variants": [var("allreduce-every-micro-step", 40.2, allreduce_calls_per_opt_step=8.0),
                                       var("no_sync-on-accumulation", 40.0, allreduce_calls_per_opt_step=2.0)]})
        rows, _ = judged(example=ex)
        self.assertEqual(rows["003-no-sync"]["verdict"], "confirmed", rows["003-no-sync"])
        r = rows["TL501-no-sync-time"]
        self.assertEqual(r["verdict"], "estimated", r)
        self.assertIn("needs two GPUs (found 1): a paper estimate", r["why"])
        # NVLink 4 at 450 GB/s: t = 400 MB / 450 GB/s = 0.889 ms, under the 6 ms backward: from
        # 1.00x (hidden) to (40 + 4t) / (40 + t) = 1.065x; 12.5 GB/s: t = 32 ms, exposed 26 ms:
        # (40 + 104) / (40 + 26) = 2.18x to (40 + 128) / (40 + 32) = 2.33x
        links = {e["link"]: e["ratio"] for e in r["estimate"]}
        self.assertAlmostEqual(links["NVLink 4"][0], 1.0)
        self.assertAlmostEqual(links["NVLink 4"][1], (40 + 4 * 0.4 / 0.45) / (40 + 0.4 / 0.45))
        self.assertAlmostEqual(links["a 100 Gb/s network"][0], 144 / 66)
        self.assertAlmostEqual(links["a 100 Gb/s network"][1], 168 / 72)
        self.assertTrue(r["measured"].startswith("for 2 GPUs: 1–1.07× over NVLink 4 (450 GB/s), "), r["measured"])
        self.assertIsNone(r["value"])
        _, lst = judged(example=ex)
        table = benchlib.severity_markdown(benchlib.load_claims(CLAIMS), {"card": {"claims": lst}},
                                           {"TL501": ("warning", True)})
        self.assertIn("| TL501 | warning | estimated 1×–2.33× (on paper, two GPUs) | 0 | not measured: "
                      "1–1.07× over NVLink 4, ", table)
        # with two GPUs the time is measured and no estimate is made
        rows, _ = judged(example=ex, env=dict(ex["environment"], gpu_count=2))
        self.assertNotEqual(rows["TL501-no-sync-time"]["verdict"], "estimated")
        # a one-GPU run that recorded no inputs for an estimate: not measurable, as before
        for b in ex["benchmarks"]:
            if b["id"] == "torch/ddp_no_sync":
                b["params"] = {}
        rows, _ = judged(example=ex)
        self.assertEqual(rows["TL501-no-sync-time"]["verdict"], "not measurable here")

    def test_no_device_means_nothing_is_judged(self):
        rows, lst = judged(env={"gpu_count": 0})
        for r in lst:
            self.assertEqual(r["verdict"], "not measurable here", r["id"])
            if r["id"] not in ("000-overall", "001-throughput"):  # type none: their own reason
                self.assertEqual(r["why"], "no CUDA device", r["id"])
            self.assertEqual(r["measured"], "")
        self.assertEqual(benchlib.summary(lst)["not measurable here"], len(lst))


class EdgeCases(unittest.TestCase):
    def test_tolerance_applies_to_the_effect_not_the_ratio(self):
        t = {"type": "speedup", "anti": "a", "fix": "f", "range": [1.20, 1.40]}
        # effect 0.19 >= 0.20 * 0.95 = 0.19: confirmed; 0.18 is not
        self.assertEqual(one(t, [var("a", 1.19, 0), var("f", 1.0, 0)])["verdict"], "confirmed")
        self.assertEqual(one(t, [var("a", 1.18, 0), var("f", 1.0, 0)])["verdict"], "refuted")
        # the same medians with a spread across the claim's lower end: no verdict
        self.assertEqual(one(t, [var("a", 1.19, 0.02), var("f", 1.0, 0.02)])["verdict"], "inconclusive")

    def test_two_sided_range_refutes_too_large(self):
        t = {"type": "count_ratio", "anti": "a", "fix": "f", "metric": "n", "range": [4, 4], "two_sided": True}
        r = one(t, [var("a", 1.0, n=10.0), var("f", 1.0, n=1.0)])
        self.assertEqual((r["verdict"], r["why"]), ("refuted", "larger than the claimed 4×"))
        r = one(t, [var("a", 1.0, n=4.0), var("f", 1.0, n=1.0)])
        self.assertEqual(r["verdict"], "confirmed")

    def test_one_sided_range_accepts_larger(self):
        t = {"type": "speedup", "anti": "a", "fix": "f", "range": [1.1, 1.2]}
        r = one(t, [var("a", 3.0), var("f", 1.0)])
        self.assertEqual((r["verdict"], r["why"]), ("confirmed", "larger than the claimed 1.1–1.2×"))

    def test_removes_sync_when_the_anti_pattern_does_not_sync(self):
        t = {"type": "removes_sync", "anti": "a", "fix": "f"}
        r = one(t, [var("a", 1.0, syncs_per_step=0), var("f", 1.0, syncs_per_step=0)])
        self.assertEqual((r["verdict"], r["why"]), ("refuted", "the anti-pattern does not sync either"))
        r = one(t, [var("a", 1.0), var("f", 1.0)])
        self.assertEqual(r["verdict"], "not measurable here")
        self.assertIn("sync counts not recorded", r["why"])

    def test_direction_fix_slower(self):
        r = one({"type": "direction", "anti": "a", "fix": "f"}, [var("a", 1.0), var("f", 2.0)])
        self.assertEqual((r["verdict"], r["why"]), ("refuted", "the fix is slower across the whole spread"))

    def test_direction_under_the_tolerance_is_refuted_only_when_the_spread_is(self):
        t = {"type": "direction", "anti": "a", "fix": "f"}
        r = one(t, [var("a", 1.02, 0.001), var("f", 1.0, 0.001)])
        self.assertEqual((r["verdict"], r["why"]), ("refuted", "under 5 % across the whole spread"))
        self.assertEqual(r["measured"], "1.02× [1.02–1.02] (1.02 → 1 ms)")
        r = one(t, [var("a", 1.02, 0.03), var("f", 1.0, 0.03)])
        self.assertEqual(r["verdict"], "inconclusive")
        r = one(t, [var("a", 1.10, 0.01), var("f", 1.0, 0.01)])
        self.assertEqual(r["verdict"], "confirmed")

    def test_metric_difference(self):
        t = {"type": "metric_difference", "anti": "a", "fix": "f", "metric": "kept", "min": 1e6}
        r = one(t, [var("a", 5.0, kept=3e8), var("f", 5.0, kept=0)])
        self.assertEqual((r["verdict"], r["value"]), ("confirmed", 3e8))
        r = one(t, [var("a", 5.0, kept=2e5), var("f", 5.0, kept=1e5)])
        self.assertEqual(r["verdict"], "refuted")
        self.assertIn("under", r["why"])
        r = one(t, [var("a", 5.0), var("f", 5.0, kept=0)])
        self.assertEqual(r["verdict"], "not measurable here")

    def test_unknown_type_is_an_error(self):
        with self.assertRaises(ValueError):
            one({"type": "bogus", "anti": "a", "fix": "f"}, [var("a", 1.0), var("f", 1.0)])


class ResultsFiles(unittest.TestCase):
    def test_slug(self):
        self.assertEqual(benchlib.slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3")
        self.assertEqual(benchlib.slug(None), "unknown-gpu")

    def test_write_results(self):
        ex = load_example()
        _, rows = judged(example=ex)
        doc = benchlib.build_results(ex["environment"], ex["benchmarks"], rows, date="2026-11-25",
                                     synthetic=True)
        with tempfile.TemporaryDirectory() as tmp:
            j1, s1 = benchlib.write_results(doc, rows, tmp)
            j2, _ = benchlib.write_results(doc, rows, tmp)
            self.assertEqual(os.path.basename(j1), "synthetic-gpu-not-a-measurement-2026-11-25.json")
            self.assertEqual(os.path.basename(s1), "synthetic-gpu-not-a-measurement-2026-11-25.svg")
            self.assertEqual(os.path.basename(j2), "synthetic-gpu-not-a-measurement-2026-11-25-2.json")
            with open(j1, encoding="utf-8") as f:
                back = json.load(f)
        self.assertEqual(back["schema"], "trainlint-bench-results/1")
        self.assertIs(back["synthetic"], True)
        self.assertEqual(back["date"], "2026-11-25")
        self.assertEqual(len(back["claims"]), len(rows))
        self.assertNotIn("plot", back["claims"][0])
        for key in ("id", "rule", "claim", "claimed", "measured", "verdict", "why", "value", "bench"):
            self.assertIn(key, back["claims"][0])
        s = back["summary"]
        self.assertEqual(sum(s.values()), len(rows))
        self.assertEqual(s["confirmed"], sum(r["verdict"] == "confirmed" for r in rows))
        self.assertEqual([b["id"] for b in back["benchmarks"]], [b["id"] for b in ex["benchmarks"]])


    def test_infinite_ratio_is_written_as_null(self):
        t = {"type": "speedup", "anti": "a", "fix": "f", "range": [2, 3]}
        claim = {"id": "c", "test": dict(t, bench="b")}
        bench = {"id": "b", "status": "ok", "unit": "us", "variants": [var("a", 5.0), var("f", 0.0)]}
        rows = benchlib.evaluate_all({"claims": [claim]}, {"b": bench}, {"gpu_count": 1})
        self.assertEqual(rows[0]["value"], float("inf"))
        doc = benchlib.build_results({"gpu_name": "x"}, [bench], rows, date="2026-11-25")
        with tempfile.TemporaryDirectory() as tmp:
            jpath, spath = benchlib.write_results(doc, rows, tmp)
            with open(jpath, encoding="utf-8") as f:
                self.assertIsNone(json.load(f)["claims"][0]["value"])
            ET.parse(spath)


class Table(unittest.TestCase):
    def test_table_rows(self):
        _, rows = judged()
        text = benchlib.render_table(rows)
        lines = text.splitlines()
        self.assertEqual(lines[0].split(), ["claim", "rule", "claimed", "measured", "verdict"])
        self.assertTrue(set(lines[1]) <= {"-", " "})
        body = lines[2:2 + len(rows)]
        self.assertEqual(len(body), len(rows))
        for r, line in zip(rows, body):
            self.assertTrue(line.startswith(r["id"][:19]), (r["id"], line))
            self.assertIn(r["verdict"], line)
        self.assertIn("refuted: the fix still syncs (1 per step)", text)
        self.assertIn("1.7× [1.64–1.77] (30 → 17.6 ms/batch)", text)
        s = benchlib.summary(rows)
        self.assertEqual(lines[-1], "%d confirmed, %d refuted, %d inconclusive, %d not measurable here"
                         % (s["confirmed"], s["refuted"], s["inconclusive"], s["not measurable here"]))

    def test_markdown_rows(self):
        _, rows = judged()
        rows = rows + [dict(rows[0], id="x|y", why="a | b")]  # a pipe must not split a cell
        lines = benchlib.render_markdown(rows).splitlines()
        self.assertEqual(lines[:2], ["| claim | rule | claimed | measured | verdict |", "| --- | --- | --- | --- | --- |"])
        body = lines[2:2 + len(rows)]
        for r, line in zip(rows, body):
            self.assertEqual(len(re.split(r"(?<!\\)\|", line)), 7, line)
            self.assertIn("**%s**" % r["verdict"], line)
        self.assertIn("| 1.7× [1.64–1.77] (30 → 17.6 ms/batch) |", "\n".join(body))
        self.assertRegex(lines[-1], r"^\d+ confirmed, \d+ refuted, (\d+ inconclusive, )?(\d+ estimated, )?\d+ not measurable here$")


class Chart(unittest.TestCase):
    def test_svg_is_well_formed_and_has_a_bar_per_measured_claim(self):
        _, rows = judged()
        svg = benchlib.render_svg(rows, "test <chart> & more")
        root = ET.fromstring(svg)
        self.assertEqual(root.tag, SVG_NS + "svg")
        bars = [r for r in root.iter(SVG_NS + "rect") if r.find(SVG_NS + "title") is not None]
        plotted = [r for r in rows if r.get("plot")]
        self.assertEqual(len(bars), len(plotted))
        titles = [b.find(SVG_NS + "title").text for b in bars]
        for r, title in zip(plotted, titles):
            self.assertTrue(title.startswith(r["id"] + ":"), title)
            self.assertIn(r["verdict"], title)
        fills = {t.split(":")[0]: b.get("fill") for t, b in zip(titles, bars)}
        self.assertEqual(fills["000-workers"], benchlib.COLORS["confirmed"])
        self.assertEqual(fills["002-profiler"], benchlib.COLORS["refuted"])
        self.assertEqual(fills["000-stats-every-10"], benchlib.COLORS["inconclusive"])
        texts = "".join(t.text or "" for t in root.iter(SVG_NS + "text"))
        self.assertIn("test <chart> & more", texts)
        self.assertIn("1×", texts)

    def test_empty_chart(self):
        _, rows = judged(env={"gpu_count": 0})
        root = ET.fromstring(benchlib.render_svg(rows, "none"))
        self.assertIn("nothing measured", "".join(t.text or "" for t in root.iter(SVG_NS + "text")))


class ReplayCli(unittest.TestCase):
    def run_cli(self, *args):
        return subprocess.run([sys.executable, os.path.join(BENCH, "run")] + list(args),
                              capture_output=True, text=True, timeout=120)

    def test_replay_writes_where_asked(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = self.run_cli("--replay", EXAMPLE, "--out", tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("SYNTHETIC input", p.stdout)
            self.assertRegex(p.stdout, r"\d+ confirmed, \d+ refuted, \d+ inconclusive, \d+ not measurable here")
            files = sorted(os.listdir(tmp))
            self.assertEqual(files, ["synthetic-gpu-not-a-measurement-2026-11-25.json",
                                     "synthetic-gpu-not-a-measurement-2026-11-25.svg"])
            with open(os.path.join(tmp, files[0]), encoding="utf-8") as f:
                self.assertIs(json.load(f)["synthetic"], True)

    def test_replay_merges_split_runs_later_file_wins(self):
        ex = load_example()
        part = copy.deepcopy(ex)
        part["benchmarks"] = [b for b in part["benchmarks"] if b["id"] == "torch/empty_cache"]
        for v in part["benchmarks"][0]["variants"]:  # the second part measured a clear difference
            if v["name"] == "no-empty_cache":
                v.update(median=6.0, min=5.9, max=6.1, p10=5.95, p90=6.05)
        other_gpu = copy.deepcopy(part)
        other_gpu["environment"]["gpu_name"] = "another synthetic GPU"
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, d in enumerate((part, other_gpu)):
                paths.append(os.path.join(tmp, "part%d.json" % i))
                with open(paths[-1], "w", encoding="utf-8") as f:
                    json.dump(d, f)
            p = self.run_cli("--replay", EXAMPLE, "--replay", paths[0], "--out", os.path.join(tmp, "out"))
            self.assertEqual(p.returncode, 0, p.stderr)
            row = [l for l in p.stdout.splitlines() if l.startswith("empty-cache ")]
            self.assertEqual(len(row), 1)
            self.assertIn("confirmed", row[0])
            self.assertIn("2.02× [1.9–2.13] (12.1 → 6 ms/step)", row[0])
            self.assertIn("detect-anomaly", p.stdout)  # benchmarks of the first file are kept
            p = self.run_cli("--replay", EXAMPLE, "--replay", paths[1])
            self.assertEqual(p.returncode, 2)
            self.assertIn("different GPUs", p.stderr)

    def test_replay_keeps_the_parts_of_a_merged_file(self):
        ex = load_example()
        first, second = copy.deepcopy(ex), copy.deepcopy(ex)
        ids = [b["id"] for b in ex["benchmarks"]]
        first["created"], second["created"] = "2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00"
        first["date"], second["date"] = "2026-01-01", "2026-01-02"
        second["benchmarks"] = [b for b in second["benchmarks"] if b["id"] == ids[0]]
        later = copy.deepcopy(second)
        later["created"], later["date"] = "2026-01-03T00:00:00+00:00", "2026-01-03"
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, d in enumerate((first, second, later)):
                paths.append(os.path.join(tmp, "run%d.json" % i))
                with open(paths[-1], "w", encoding="utf-8") as f:
                    json.dump(d, f)
            p = self.run_cli("--replay", paths[0], "--replay", paths[1], "--out", os.path.join(tmp, "m1"))
            self.assertEqual(p.returncode, 0, p.stderr)
            merged = [os.path.join(tmp, "m1", f) for f in os.listdir(os.path.join(tmp, "m1")) if f.endswith(".json")][0]
            self.assertTrue(merged.endswith("-2026-01-02.json"), merged)  # named by its newest run
            p = self.run_cli("--replay", merged, "--replay", paths[2], "--out", os.path.join(tmp, "m2"))
            self.assertEqual(p.returncode, 0, p.stderr)
            out = [f for f in os.listdir(os.path.join(tmp, "m2")) if f.endswith(".json")][0]
            self.assertTrue(out.endswith("-2026-01-03.json"), out)
            with open(os.path.join(tmp, "m2", out), encoding="utf-8") as f:
                parts = json.load(f)["parts"]
            # the first run keeps all but ids[0], which the third run measured last
            self.assertEqual([p["created"] for p in parts], [first["created"], later["created"]])
            self.assertEqual(parts[0]["benchmarks"], ids[1:])
            self.assertEqual(parts[1]["benchmarks"], [ids[0]])
            # judging a merged file again on its own keeps its parts
            p = self.run_cli("--replay", os.path.join(tmp, "m2", out), "--out", os.path.join(tmp, "m3"))
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(tmp, "m3", out), encoding="utf-8") as f:
                self.assertEqual(json.load(f)["parts"], parts)

    def test_replay_refuses_to_put_synthetic_data_in_results(self):
        results = os.path.join(BENCH, "results")
        before = sorted(os.listdir(results)) if os.path.isdir(results) else None
        p = self.run_cli("--replay", EXAMPLE, "--out", results)
        self.assertEqual(p.returncode, 2)
        self.assertIn("refusing", p.stderr)
        after = sorted(os.listdir(results)) if os.path.isdir(results) else None
        self.assertEqual(before, after)



def newest_results_docs():
    """{card: results document} of the newest committed results file of each card."""
    docs = {}
    for card, path in benchlib.newest_results_files(os.path.join(BENCH, "results")).items():
        with open(path, encoding="utf-8") as f:
            docs[card] = json.load(f)
    return docs


def generated_section(test, path, begin, end):
    """The text of `path` from the line `begin` to the line `end`, both included (a table a test
    keeps current), with a final newline."""
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    i, j = doc.find(begin), doc.find(end)
    test.assertTrue(0 <= i < j, "%s lacks the markers %r ... %r" % (path, begin[:30], end))
    return doc[i:j + len(end)] + "\n"


class CardsTable(unittest.TestCase):
    def test_bench_readme_holds_the_current_table(self):
        got = generated_section(self, os.path.join(BENCH, "README.md"), benchlib.CARDS_TABLE_BEGIN,
                                benchlib.CARDS_TABLE_END)
        self.assertEqual(got, benchlib.cards_markdown(newest_results_docs()),
                         "bench/README.md's cards table is stale: paste `bench/run --cards-table`")

    def test_rows_columns_and_differences(self):
        def doc(verdicts):
            return {"claims": [{"id": cid, "rule": "TL900", "claimed": "faster", "measured": "1.1×",
                                "verdict": v} for cid, v in verdicts]}
        a = doc([("x", "confirmed"), ("y", "refuted"), ("only-a", "confirmed")])
        b = doc([("y", "confirmed"), ("x", "confirmed")])
        out = benchlib.cards_markdown({"card-b": b, "card-a": a})
        lines = out.splitlines()
        self.assertEqual(lines[1], "| claim | rule | claimed | card-a measured | card-a verdict | "
                                   "card-b measured | card-b verdict |")
        self.assertEqual(lines[2], "| --- | --- | --- | --- | --- | --- | --- |")
        rows = [l.split(" | ")[0] for l in lines[3:] if l.startswith("| ")]
        self.assertEqual(rows, ["| x", "| y"])  # the first card's order, claims on every card only
        self.assertIn("2 claims measured on every card; the verdicts differ on 1.", out)


class SeverityTable(unittest.TestCase):
    def test_docs_bench_md_holds_the_current_table(self):
        root = os.path.dirname(BENCH)
        got = generated_section(self, os.path.join(root, "docs", "bench.md"), benchlib.SEVERITY_TABLE_BEGIN,
                                benchlib.SEVERITY_TABLE_END)
        want = benchlib.severity_markdown(benchlib.load_claims(CLAIMS), newest_results_docs(),
                                          benchlib.rule_severities(os.path.join(root, "rules")))
        self.assertEqual(got, want, "docs/bench.md's severity table is stale: paste `bench/run --severity-table`")

    def test_readings(self):
        claims = {"claims": [
            {"id": "a", "rule": "TL900", "test": {"type": "direction", "bench": "torch/x"}},
            {"id": "b", "rule": "TL900", "test": {"type": "direction", "bench": "torch/y"}},
            {"id": "c", "rule": "TL901", "test": {"type": "speedup", "bench": "torch/z"}},
            {"id": "d", "rule": "TL902", "test": {"type": "speedup", "bench": "cuda/micro"}}]}
        docs = {"card-a": {"claims": [{"id": "a", "rule": "TL900", "value": 1.01, "spread": [1.0, 1.015]},
                                      {"id": "b", "rule": "TL900", "value": 0.95, "spread": [0.9, 0.99]},
                                      {"id": "c", "rule": "TL901", "value": 1.30, "spread": [1.25, 1.35]},
                                      {"id": "d", "rule": "TL902", "value": 400.0, "spread": [300, 500]},
                                      {"id": "e", "rule": "TL904", "value": 1.10, "spread": [0.9, 1.3]},
                                      {"id": "f", "rule": "TL905", "value": 1.01, "spread": [0.95, 1.06]}]},
                "card-b": {"claims": [{"id": "c", "rule": "TL901", "value": 1.01, "spread": [1.0, 1.02]}]}}
        claims["claims"] += [{"id": "e", "rule": "TL904", "test": {"type": "direction", "bench": "torch/e"}},
                             {"id": "f", "rule": "TL905", "test": {"type": "direction", "bench": "torch/f"}}]
        sevs = {"TL900": ("warning", True), "TL901": ("warning", True), "TL902": ("warning", True),
                "TL903": ("info", False), "TL904": ("warning", True), "TL905": ("warning", True)}
        table = benchlib.severity_markdown(claims, docs, sevs)
        rows = {l.split(" | ")[0][2:]: l for l in table.splitlines() if l.startswith("| TL")}
        self.assertIn("under 2 % everywhere measured: no warning by default", rows["TL900"])
        self.assertIn("0.95×–1.01×", rows["TL900"])
        self.assertIn("over 2 % across the whole spread in at least one configuration", rows["TL901"])
        self.assertIn("not measured on a step", rows["TL902"])  # a microbenchmark is no step
        self.assertIn("info, off", rows["TL903"])
        # a median over 2 % whose spread reaches under it establishes nothing, nor does a spread
        # that straddles 2 % around a small median
        self.assertIn("not established: medians reach 1.1×, but no spread clears 2 %", rows["TL904"])
        self.assertIn("not established: medians under 2 %, spreads reach past it", rows["TL905"])
        self.assertIn("card-a and card-b", table)

if __name__ == "__main__":
    unittest.main(verbosity=1)
