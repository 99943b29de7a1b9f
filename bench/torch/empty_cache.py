#!/usr/bin/env python3
"""empty_cache.py - torch.cuda.empty_cache() called every training step vs never."""
from _tlbench import start, Trainer

b = start("torch/empty_cache", None, "empty-cache-in-loop",
          "transformer training step with torch.cuda.empty_cache() after every step vs without",
          "ms/step")
torch = b.torch
tr = Trainer(b, batch=b.pick(32, 16, 2), seq=b.pick(256, 128, 8), d_model=b.pick(512, 512, 16),
             nhead=b.pick(8, 8, 2), layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32))


def with_empty_cache(i):
    tr.step()
    if b.dev.type == "cuda":
        torch.cuda.empty_cache()


steps, reps = b.pick(30, 10, 2), b.pick(5, 3, 1)
b.param(steps=steps, batch=tr.x.shape[0], seq=tr.x.shape[1])
b.add("empty_cache-every-step", "anti", b.time_loop(with_empty_cache, steps, reps))
b.add("no-empty_cache", "fix", b.time_loop(tr.step, steps, reps))
b.emit("empty_cache-every-step", "no-empty_cache")
