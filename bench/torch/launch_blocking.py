#!/usr/bin/env python3
"""launch_blocking.py - TL405: the same training steps in a process started with CUDA_LAUNCH_BLOCKING=1, and in one with deterministic algorithms (use_deterministic_algorithms(True), cudnn.deterministic), against a process with neither."""
import json
import os
import subprocess
import sys

MODES = {
    # mode: environment set before torch is imported
    "default": {},
    "launch-blocking": {"CUDA_LAUNCH_BLOCKING": "1"},
    "deterministic": {"CUBLAS_WORKSPACE_CONFIG": ":4096:8"},
}
if "--child" in sys.argv:  # the environment must be in place before CUDA starts
    os.environ.update(MODES.get(sys.argv[sys.argv.index("--child") + 1], {}))

from _tlbench import start, two_sizes  # noqa: E402

b = start("torch/launch_blocking", "TL405", "launch-blocking-enabled",
          "three workloads, each in three processes: plain; CUDA_LAUNCH_BLOCKING=1 in the environment; "
          "torch.use_deterministic_algorithms(True, warn_only=True) with cudnn.deterministic=True and "
          "cudnn.benchmark=False (CUBLAS_WORKSPACE_CONFIG=:4096:8). Workloads: a transformer training "
          "step (batch 32, seq 256), the same on a small batch (4, 64), a CNN training step "
          "(batch 64, 3x64x64) and a graph-style step aggregating 1 M messages with index_add_ "
          "(atomics unless deterministic)", "ms/step")
torch = b.torch
nn = torch.nn
mode = b.child or "default"
if mode == "deterministic":
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False

big, small = two_sizes(b).values()
cnn = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.Conv2d(64, 128, 3, 2, 1),
                    nn.BatchNorm2d(128), nn.ReLU(), nn.Conv2d(128, 256, 3, 2, 1), nn.ReLU(),
                    nn.Flatten(2)).to(b.dev)
head = nn.Linear(256, 10).to(b.dev)
copt = torch.optim.SGD(list(cnn.parameters()) + list(head.parameters()), 0.01)
side = b.pick(64, 64, 8)
cx = torch.randn(b.pick(64, 32, 2), 3, side, side, device=b.dev)
cy = torch.randint(0, 10, (cx.shape[0],), device=b.dev)
nodes, edges, feat = b.pick(100_000, 100_000, 50), b.pick(1_000_000, 1_000_000, 200), b.pick(64, 64, 4)
gx = torch.randn(nodes, feat, device=b.dev)
src = torch.randint(0, nodes, (edges,), device=b.dev)
dst = torch.randint(0, nodes, (edges,), device=b.dev)
lin = nn.Linear(feat, feat).to(b.dev)
gopt = torch.optim.SGD(lin.parameters(), 0.01)


def transformer_step(tr):
    def step(i):
        tr.step()
    return step


def cnn_step(i):
    copt.zero_grad(set_to_none=True)
    nn.functional.cross_entropy(head(cnn(cx).mean(-1)), cy).backward()
    copt.step()


def graph_step(i):
    gopt.zero_grad(set_to_none=True)
    msg = lin(gx)[src]
    out = torch.zeros(nodes, feat, device=b.dev).index_add_(0, dst, msg)
    out.square().mean().backward()
    gopt.step()


steps, reps = b.pick(30, 20, 3), b.pick(5, 3, 1)
workloads = [("transformer", transformer_step(big)), ("small-transformer", transformer_step(small)),
             ("cnn", cnn_step), ("graph-index_add", graph_step)]
for name, fn in workloads:
    try:
        b.add("%s:%s" % (name, mode), "ref", b.time_loop(fn, steps, reps), mode=mode, env=MODES[mode])
    except RuntimeError as e:  # an operation without a deterministic implementation, say
        b.param(**{"%s:%s_error" % (name, mode): str(e).splitlines()[0][:300]})

if b.child:
    print(json.dumps({"kind": "child", "variants": b.variants, "params": b.params}))
    sys.exit(0)

for child_mode in ("launch-blocking", "deterministic"):
    cmd = [sys.executable, __file__, "--child", child_mode] + (["--quick"] if b.quick else [])
    child = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    sys.stderr.write(child.stderr)
    got = [json.loads(l) for l in child.stdout.splitlines() if l.startswith('{"kind": "child"')]
    if child.returncode != 0 or not got:
        b.param(**{"%s_child_error" % child_mode: "child exited %d" % child.returncode})
        continue
    b.variants.extend(got[0]["variants"])
    b.params.update({k: v for k, v in got[0]["params"].items() if k.endswith("_error")})
b.param(steps=steps, cnn_input=list(cx.shape), graph=[nodes, edges, feat])
b.emit("transformer:launch-blocking", "transformer:default")
