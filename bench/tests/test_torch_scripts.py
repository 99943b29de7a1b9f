#!/usr/bin/env python3
"""test_torch_scripts.py - every bench/torch script compiles, and without torch+CUDA prints its skip line and exits 0.

Usage: test_torch_scripts.py [PYTHON]. Where PYTHON has torch but no CUDA, each script is also run
in CPU smoke mode (TL_BENCH_SMOKE=1, tiny sizes) to check its code paths; with CUDA nothing is run
here (bench/run does that).
"""
import ast
import glob
import json
import os
import py_compile
import subprocess
import sys
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = sorted(p for p in glob.glob(os.path.join(BENCH, "torch", "*.py"))
                 if not os.path.basename(p).startswith("_"))
PYTHON = sys.executable


def probe():
    code = ("import json\ntry:\n import torch\n print(json.dumps([True, torch.cuda.is_available()]))\n"
            "except Exception:\n print(json.dumps([False, False]))\n")
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=300).stdout
    return json.loads(out.strip().splitlines()[-1])


def bench_lines(stdout):
    return [json.loads(l) for l in stdout.splitlines() if l.startswith("{")]


class TorchScripts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.has_torch, cls.has_cuda = probe()

    def test_there_are_scripts(self):
        self.assertGreaterEqual(len(SCRIPTS), 10)

    def test_compile_and_header(self):
        for s in SCRIPTS + [os.path.join(BENCH, "torch", "_tlbench.py")]:
            py_compile.compile(s, doraise=True)
            with open(s, encoding="utf-8") as f:
                head = f.read(400)
            self.assertRegex(head, r'"""%s - ' % os.path.basename(s).replace(".", r"\."), s)

    def test_at_least_five_timed_repetitions(self):
        """Every script names its repetitions `reps` and picks them with b.pick(full, ...): the full
        size must be 5 or more, the fewest a verdict accepts (benchlib.MIN_REPS)."""
        sys.path.insert(0, BENCH)
        import benchlib
        for s in SCRIPTS:
            with open(s, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            full = []
            for n in ast.walk(tree):
                if not isinstance(n, ast.Assign):
                    continue
                for target in n.targets:
                    names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
                    values = [n.value] if isinstance(target, ast.Name) else getattr(n.value, "elts", [])
                    for name, value in zip(names, values):
                        if getattr(name, "id", None) == "reps":
                            self.assertEqual(getattr(value.func, "attr", None), "pick", s)
                            full.append(ast.literal_eval(value.args[0]))
            with self.subTest(script=os.path.basename(s)):
                self.assertTrue(full, "no `reps = b.pick(...)` in %s" % s)
                self.assertGreaterEqual(min(full), benchlib.MIN_REPS)

    def test_skip_without_torch_cuda(self):
        if self.has_cuda:
            self.skipTest("this python has torch with CUDA: bench/run measures instead")
        env = dict(os.environ, TL_BENCH_SMOKE="0")
        for s in SCRIPTS:
            with self.subTest(script=os.path.basename(s)):
                p = subprocess.run([PYTHON, s, "--quick"], capture_output=True, text=True, timeout=300, env=env)
                self.assertEqual(p.returncode, 0, p.stderr)
                lines = bench_lines(p.stdout)
                self.assertEqual(len(lines), 1, p.stdout)
                line = lines[0]
                self.assertEqual(line["id"], "torch/" + os.path.basename(s)[:-3])
                self.assertEqual(line["status"], "skipped")
                self.assertEqual(line["reason"], "skipped: no torch with CUDA")
                self.assertIn("skipped: no torch with CUDA", p.stderr)

    def test_smoke_on_cpu(self):
        if not self.has_torch or self.has_cuda:
            self.skipTest("needs a python with torch and without CUDA")
        env = dict(os.environ, TL_BENCH_SMOKE="1")
        for s in SCRIPTS:
            with self.subTest(script=os.path.basename(s)):
                p = subprocess.run([PYTHON, s], capture_output=True, text=True, timeout=600, env=env)
                self.assertEqual(p.returncode, 0, p.stderr[-2000:])
                lines = bench_lines(p.stdout)
                self.assertEqual(len(lines), 1, p.stdout)
                line = lines[0]
                if line["status"] == "not_measurable":  # ddp_no_sync without two GPUs
                    self.assertIn("needs two GPUs", line["reason"])
                    continue
                self.assertEqual(line["status"], "smoke")
                names = [v["name"] for v in line["variants"]]
                self.assertEqual(len(names), len(set(names)), names)
                self.assertIn(line["ratio"]["anti"], names)
                if "compile_error" not in line["params"]:
                    self.assertIn(line["ratio"]["fix"], names)
                for v in line["variants"]:
                    self.assertIn(v["role"], ("anti", "fix", "ref"))
                    self.assertTrue(0 <= v["min"] <= v["median"] <= v["max"], v)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        PYTHON = sys.argv.pop(1)
    unittest.main(verbosity=1)
