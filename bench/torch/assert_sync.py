#!/usr/bin/env python3
"""assert_sync.py - TL101: assert (x == y).sum().item() == 0 vs none vs `if __debug__: assert` (case study CS1), also under python -O."""
import json
import subprocess
import sys

from _tlbench import start

b = start("torch/assert_sync", "TL101", "sync-in-hot-path",
          "per step: queued matmul work, then a pad check with .item(): bare assert, `if __debug__:` "
          "assert (case study CS1's fix), no assert; the first two again in a `python -O` child", "ms/step")
torch = b.torch
dim, pad = b.pick(2048, 2048, 32), 0
x = torch.randn(b.pick(4096, 4096, 8), dim, device=b.dev)
w = torch.randn(dim, dim, device=b.dev) / dim ** 0.5
y = torch.randint(1, 1000, (64, 512), device=b.dev)  # no padding: every assert passes
steps, reps, k = b.pick(50, 20, 3), b.pick(5, 3, 1), 4


def work():
    h = x
    for _ in range(k):
        h = torch.tanh(h @ w)
    return h


def bare(i):
    h = work()
    assert (y == pad).sum().item() == 0
    return h


def guarded(i):
    h = work()
    if __debug__:  # case study CS1's "fix"
        assert (y == pad).sum().item() == 0
    return h


def none(i):
    return work()


def measure(variants, suffix=""):
    for name, role, fn in variants:
        samples = b.time_loop(fn, steps, reps)
        syncs = b.count_syncs(lambda: [fn(i) for i in range(5)])
        b.add(name + suffix, role, samples, syncs_per_step=None if syncs is None else syncs / 5,
              optimize_flag=sys.flags.optimize)


if b.child == "optimized":  # running under python -O: report the variants to the parent
    measure([("bare-assert", "ref", bare), ("debug-assert", "ref", guarded)], " (python -O)")
    print(json.dumps({"kind": "child", "variants": b.variants}))
    sys.exit(0)

b.param(steps=steps, matmuls_per_step=k, checked_shape=list(y.shape))
measure([("bare-assert", "anti", bare), ("debug-assert", "ref", guarded), ("no-assert", "fix", none)])
cmd = [sys.executable, "-O", __file__, "--child", "optimized"] + (["--quick"] if b.quick else [])
child = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
sys.stderr.write(child.stderr)
got = [json.loads(l) for l in child.stdout.splitlines() if l.startswith('{"kind": "child"')]
if child.returncode != 0 or not got:
    b.param(optimized_child_error="python -O child exited %d" % child.returncode)
else:
    b.variants.extend(got[0]["variants"])
b.emit("bare-assert", "no-assert")
