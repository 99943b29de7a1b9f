#!/usr/bin/env python3
"""test_run_nogpu.py - bench/run end to end on a machine without a GPU: skip lines, no results file, exit 0 (exits 77 where a GPU is visible)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def gpu_visible(cudabench):
    smi = shutil.which("nvidia-smi")
    if smi:
        p = subprocess.run([smi, "-L"], capture_output=True, text=True)
        if p.returncode == 0 and "GPU" in p.stdout:
            return True
    if cudabench:
        out = subprocess.run([cudabench, "--only", "cuda/launch-latency", "--quick"], capture_output=True,
                             text=True).stdout
        return any(json.loads(l).get("present") for l in out.splitlines() if '"kind":"device"' in l)
    return False


def main():
    args = sys.argv[1:]
    cudabench = args[1] if args[:1] == ["--cudabench"] else None
    if gpu_visible(cudabench):
        print("a GPU is visible: run bench/run itself to measure")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "results")
        cmd = [sys.executable, os.path.join(BENCH, "run"), "--quick", "--results-dir", results] + args
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        if p.returncode != 0:
            fail("exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr))
        if os.path.exists(results):
            fail("a results file was written without a GPU: %s" % os.listdir(results))
    out = p.stdout
    torch_ids = sorted("torch/" + f[:-3] for f in os.listdir(os.path.join(BENCH, "torch"))
                       if f.endswith(".py") and not f.startswith("_"))
    for i in torch_ids:
        if "%s: skipped: no torch with CUDA" % i not in out:
            fail("no skip line for %s:\n%s" % (i, out))
    if cudabench:
        ids = [l.split("\t")[0] for l in subprocess.run([cudabench, "--list"], capture_output=True,
                                                        text=True).stdout.splitlines()]
        for i in ids:
            if "%s: no CUDA device: skipped" % i not in out:
                fail("no skip line for %s:\n%s" % (i, out))
    with open(os.path.join(BENCH, "claims.json"), encoding="utf-8") as f:
        claims = json.load(f)["claims"]
    for c in claims:
        if c["test"]["type"] == "none":
            continue
        shown = (c["id"], c["id"][:29] + "…")  # the table cuts ids longer than 30 characters
        row = [l for l in out.splitlines() if l.split(" ", 1)[0] in shown]
        if len(row) != 1 or not row[0].endswith("not measurable here: no CUDA device"):
            fail("claim %s: %r" % (c["id"], row))
    if "0 confirmed, 0 refuted, %d not measurable here" % len(claims) not in out:
        fail("summary line missing:\n" + out)
    if "no results file written" not in out:
        fail("the runner should say that it wrote nothing")
    print("bench/run without a GPU: %d claims not measurable, exit 0, nothing written" % len(claims))


if __name__ == "__main__":
    main()
