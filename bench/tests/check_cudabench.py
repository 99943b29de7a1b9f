#!/usr/bin/env python3
"""check_cudabench.py - CTest check of tl_cudabench: exit 0 and skip lines with no GPU, valid results with one."""
import json
import math
import subprocess
import sys

SKIP = "no CUDA device: skipped"


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: check_cudabench.py PATH-TO-tl_cudabench")
    exe = sys.argv[1]

    listed = subprocess.run([exe, "--list"], capture_output=True, text=True, timeout=60)
    if listed.returncode != 0:
        fail("--list exited %d" % listed.returncode)
    ids = [line.split("\t")[0] for line in listed.stdout.splitlines() if line.strip()]
    if len(ids) < 6 or not all(i.startswith("cuda/") for i in ids):
        fail("unexpected --list output: %r" % listed.stdout)

    bad = subprocess.run([exe, "--no-such-option"], capture_output=True, text=True, timeout=60)
    if bad.returncode != 2:
        fail("an unknown option should exit 2, got %d" % bad.returncode)

    run = subprocess.run([exe, "--quick"], capture_output=True, text=True, timeout=1200)
    if run.returncode != 0:
        fail("exit status %d\nstdout:\n%s\nstderr:\n%s" % (run.returncode, run.stdout, run.stderr))
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    if not lines or lines[0].get("kind") != "device":
        fail("first line is not the device line: %r" % run.stdout[:300])
    benches = lines[1:]
    if [b.get("id") for b in benches] != ids:
        fail("benchmarks printed %r, --list says %r" % ([b.get("id") for b in benches], ids))

    if not lines[0]["present"]:
        for b in benches:
            if b.get("status") != "skipped" or b.get("reason") != SKIP:
                fail("without a device every benchmark must say %r: %r" % (SKIP, b))
            if not b.get("rule", "").startswith("TL"):
                fail("benchmark without a rule id: %r" % b)
        if run.stderr.count(SKIP) != len(ids):
            fail("stderr should say %r once per benchmark:\n%s" % (SKIP, run.stderr))
        print("no CUDA device: %d benchmarks skipped, exit 0" % len(benches))
        return

    for b in benches:
        if b.get("status") != "ok":
            fail("benchmark did not run: %r" % b)
        names = [v["name"] for v in b["variants"]]
        for key in ("anti", "fix"):
            if b["ratio"][key] not in names:
                fail("%s: ratio.%s %r is not a variant" % (b["id"], key, b["ratio"][key]))
        for v in b["variants"]:
            if not (v["reps"] > 0 and v["min"] <= v["median"] <= v["max"] and v["min"] >= 0):
                fail("%s/%s: inconsistent statistics %r" % (b["id"], v["name"], v))
        value = b["ratio"]["value"]
        if value is None or not math.isfinite(value) or value <= 0:
            fail("%s: bad ratio %r" % (b["id"], value))
    print("measured on %s: %d benchmarks" % (lines[0].get("name"), len(benches)))


if __name__ == "__main__":
    main()
