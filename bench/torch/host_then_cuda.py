#!/usr/bin/env python3
"""host_then_cuda.py - tensors made on the host then moved with .cuda() every step vs created with device=."""
from _tlbench import start

b = start("torch/host_then_cuda", None, "host-tensor-then-cuda",
          "per step: queued matmul work (4 matmuls, or 32 in the heavy: configuration), then positions (arange), an attention mask (ones) and noise "
          "(randn, 64x512x32) made on the CPU and moved with .cuda(), vs made with device=",
          "ms/step")
torch = b.torch
dim, bs, seq, hid = b.pick(2048, 2048, 32), b.pick(64, 64, 2), b.pick(512, 512, 8), b.pick(32, 32, 8)
x = torch.randn(b.pick(4096, 4096, 8), dim, device=b.dev)
w = torch.randn(dim, dim, device=b.dev) / dim ** 0.5
cuda = (lambda t: t.cuda()) if b.dev.type == "cuda" else (lambda t: t)


def work(n=4):
    h = x
    for _ in range(n):
        h = torch.tanh(h @ w)
    return h


def host_then_cuda(i, n=4):
    h = work(n)
    pos = cuda(torch.arange(seq).unsqueeze(0).expand(bs, -1))
    mask = cuda(torch.ones(bs, seq, dtype=torch.bool))
    noise = cuda(torch.randn(bs, seq, hid))
    return h.sum() + pos.sum() + mask.sum() + noise.sum()


def on_device(i, n=4):
    h = work(n)
    pos = torch.arange(seq, device=b.dev).unsqueeze(0).expand(bs, -1)
    mask = torch.ones(bs, seq, dtype=torch.bool, device=b.dev)
    noise = torch.randn(bs, seq, hid, device=b.dev)
    return h.sum() + pos.sum() + mask.sum() + noise.sum()


steps, reps = b.pick(30, 10, 2), b.pick(5, 3, 1)
b.param(steps=steps, noise_shape=[bs, seq, hid], mask_shape=[bs, seq])
heavy = b.pick(32, 32, 2)  # matmuls per step in the GPU-heavier configuration
b.param(heavy_matmuls=heavy)
for name, role, fn in [("host-then-.cuda()", "anti", host_then_cuda), ("device=", "fix", on_device),
                       ("heavy:host-then-.cuda()", "ref", lambda i: host_then_cuda(i, heavy)),
                       ("heavy:device=", "ref", lambda i: on_device(i, heavy))]:
    samples = b.time_loop(fn, steps, reps)
    syncs = b.count_syncs(lambda: [fn(i) for i in range(5)])
    b.add(name, role, samples, syncs_per_step=None if syncs is None else syncs / 5)
b.emit("host-then-.cuda()", "device=")
