#!/usr/bin/env python3
"""arange_max.py - TL102: torch.arange(x.max()) vs torch.arange(torch.max(x)) (case study CS1's "fix") vs a CPU-side length."""
from _tlbench import start

b = start("torch/arange_max", "TL102", "tensor-value-as-size",
          "per step: queued matmul work, then a length mask built with arange over the batch's max "
          "length taken from a CUDA tensor (x.max() or torch.max(x)) or from a Python int", "ms/step")
torch = b.torch
bs, seq, dim = b.pick(64, 64, 4), b.pick(512, 512, 16), b.pick(2048, 2048, 32)
x = torch.randn(b.pick(4096, 4096, 8), dim, device=b.dev)
w = torch.randn(dim, dim, device=b.dev) / dim ** 0.5
lengths_cpu = torch.randint(1, seq + 1, (bs,))
max_len = int(lengths_cpu.max())  # known on the host when the batch is collated
lengths = lengths_cpu.to(b.dev)
steps, reps, k = b.pick(50, 20, 3), b.pick(5, 3, 1), 4
b.param(batch=bs, max_seq=seq, matmuls_per_step=k, matmul_shape=[x.shape[0], dim, dim], steps=steps)


def work():
    h = x
    for _ in range(k):
        h = torch.tanh(h @ w)
    return h


def make(kind):
    def step(i):
        h = work()
        if kind == "max-method":
            alen = torch.arange(lengths.max(), device=b.dev)       # len2._max()
        elif kind == "torch-max":
            alen = torch.arange(torch.max(lengths), device=b.dev)  # case study CS1's replacement
        else:
            alen = torch.arange(max_len, device=b.dev)             # a Python int
        mask = alen < lengths[:, None]
        return h.sum() + mask.sum()
    return step


for name, role, kind in [("arange(x.max())", "anti", "max-method"),
                         ("arange(torch.max(x))", "ref", "torch-max"),
                         ("arange(cpu_length)", "fix", "cpu")]:
    fn = make(kind)
    samples = b.time_loop(fn, steps, reps)
    syncs = b.count_syncs(lambda: [fn(i) for i in range(5)])
    b.add(name, role, samples, syncs_per_step=None if syncs is None else syncs / 5)
b.emit("arange(x.max())", "arange(cpu_length)")
