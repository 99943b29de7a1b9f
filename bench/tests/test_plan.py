#!/usr/bin/env python3
"""test_plan.py - unit tests of bench/plan: packing into calls, the budget, estimates, the commands."""
import importlib.machinery
import importlib.util
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_loader = importlib.machinery.SourceFileLoader("bench_plan", os.path.join(BENCH, "plan"))
_spec = importlib.util.spec_from_loader("bench_plan", _loader)
plan = importlib.util.module_from_spec(_spec)
_loader.exec_module(plan)


def results_file(d, name, times, cuda=()):
    benches = [{"kind": "bench", "id": i, "status": "ok", "seconds": s} for i, s in times.items()]
    benches += [{"kind": "bench", "id": i, "status": "ok"} for i in cuda]
    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
        json.dump({"environment": {"gpu_name": "x"}, "benchmarks": benches}, f)


class Pack(unittest.TestCase):
    def test_calls_fit_the_limit(self):
        items = [("a", 300), ("b", 250), ("c", 200), ("d", 100), ("e", 50)]
        calls = plan.pack(items, 400)
        self.assertEqual(sorted(i for c in calls for i, _ in c), ["a", "b", "c", "d", "e"])
        for c in calls:
            self.assertLessEqual(sum(s for _, s in c), 400)
        self.assertEqual(len(calls), 3)  # 900 s in calls of 400 s at most

    def test_a_long_benchmark_gets_a_call_of_its_own(self):
        calls = plan.pack([("long", 700), ("short", 10)], 400)
        self.assertIn([("long", 700)], calls)


class Plan(unittest.TestCase):
    def test_budget_keeps_what_has_no_time_first(self):
        times = {"torch/a": 100.0, "torch/b": 100.0}
        calls, left = plan.plan(["torch/a", "torch/b", "torch/new"], times, 480, 200, 60, 10)
        planned = [b for c in calls for b, _, _ in c]
        self.assertIn("torch/new", planned)  # no time on this card yet: coverage first
        self.assertEqual(len(planned) + len(left), 3)
        self.assertTrue(left)
        est = {b: e for c in calls for b, _, e in c}
        self.assertTrue(est["torch/new"])
        self.assertFalse(est.get("torch/a", False))

    def test_start_costs_count(self):
        # three 150 s benchmarks, calls of 160 s: three calls; with 50 s a call, 600 s do not fit
        times = {"torch/a": 150.0, "torch/b": 150.0, "torch/c": 150.0}
        calls, left = plan.plan(sorted(times), times, 160, 560, 60, 50)
        self.assertEqual(len(left), 1)
        self.assertLessEqual(sum(s for c in calls for _, s, _ in c) + 50 * len(calls), 560)

    def test_commands_say_which_programs_run(self):
        self.assertIn("--no-cuda", plan.command([("torch/a", 1, False)], 1, "card"))
        self.assertIn("--no-torch", plan.command([("cuda/x", 1, False)], 1, "card"))
        both = plan.command([("cuda/x", 1, False), ("torch/a", 1, False)], 2, "card")
        self.assertNotIn("--no-", both)
        self.assertIn("--progress part2-card.json", both)


class Main(unittest.TestCase):
    def test_newest_file_of_the_card_and_its_times(self):
        with tempfile.TemporaryDirectory() as d:
            results_file(d, "nvidia-h100-2026-01-01.json", {"torch/amp": 999.0})
            results_file(d, "nvidia-h100-2026-02-01.json", {"torch/amp": 12.5}, cuda=["cuda/launch-latency"])
            out = io.StringIO()
            with redirect_stdout(out):
                rc = plan.main(["--results-dir", d, "--card", "nvidia-h100", "--only", "torch/amp",
                                "--only", "cuda/launch-latency", "--json"])
            self.assertEqual(rc, 0)
            doc = json.loads(out.getvalue())
            self.assertTrue(doc["source"].endswith("nvidia-h100-2026-02-01.json"))
            got = {b["id"]: b for c in doc["calls"] for b in c["benchmarks"]}
            self.assertEqual(got["torch/amp"]["seconds"], 12.5)
            self.assertFalse(got["torch/amp"]["estimated"])
            self.assertTrue(got["cuda/launch-latency"]["estimated"])  # no time recorded for it
            self.assertEqual(got["cuda/launch-latency"]["seconds"], 10.0)

    def test_unknown_card_is_an_error(self):
        with tempfile.TemporaryDirectory() as d, self.assertRaises(SystemExit) as e:
            with redirect_stdout(io.StringIO()), open(os.devnull, "w") as null:
                import contextlib
                with contextlib.redirect_stderr(null):
                    plan.main(["--results-dir", d, "--card", "nope"])
        self.assertEqual(e.exception.code, 2)

    def test_the_recorded_suite_plans_within_the_limits(self):
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(plan.main(["--json"]), 0)
        doc = json.loads(out.getvalue())
        for c in doc["calls"]:
            if len(c["benchmarks"]) > 1:
                self.assertLessEqual(c["seconds"], doc["per_call"])
        self.assertLessEqual(sum(c["seconds"] for c in doc["calls"]), doc["budget"])


if __name__ == "__main__":
    unittest.main()
