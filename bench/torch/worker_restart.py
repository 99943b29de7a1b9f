#!/usr/bin/env python3
"""worker_restart.py - TL203: a DataLoader whose worker processes start again at every pass over the data vs persistent_workers=True, for passes of 10, 50 and 200 batches."""
import os
import time

from _tlbench import start, uint8_images

b = start("torch/worker_restart", "TL203", "dataloader-worker-reuse",
          "a DataLoader (8 workers, batches of 64 3x32x32 images normalised in __getitem__) iterated "
          "pass after pass feeding a small CNN step, with the workers started again at each pass "
          "(no persistent_workers) vs kept (persistent_workers=True); passes of 10, 50 and 200 "
          "batches (a loader iterated inside a step-bounded loop, short epochs, longer epochs); time "
          "per batch, each pass's start included, after one warm-up pass", "ms/batch")
torch = b.torch
try:
    import numpy as np
except ImportError:
    b.not_measurable("numpy is not installed")
from torch.utils.data import DataLoader, Dataset

MEAN = np.array([0.49, 0.48, 0.45], dtype=np.float32).reshape(3, 1, 1) * 255
STD = np.array([0.25, 0.24, 0.26], dtype=np.float32).reshape(3, 1, 1) * 255


Images = uint8_images(np, Dataset, torch, MEAN, STD)


workers = min(8, len(os.sched_getaffinity(0)))
batch, side, reps = b.pick(64, 64, 4), b.pick(32, 32, 8), b.pick(5, 2, 1)
lengths = [10, 50, 200] if not b.smoke else [2, 4]
total = b.pick(200, 100, 8)  # batches timed per sample and length
nn = torch.nn
cnn = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1), nn.ReLU(), nn.Conv2d(64, 128, 3, 2, 1), nn.ReLU(),
                    nn.Conv2d(128, 128, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                    nn.Linear(128, 10)).to(b.dev)
opt = torch.optim.SGD(cnn.parameters(), 0.01)
pin = b.dev.type == "cuda"


def one_pass(loader):
    n = 0
    for x, y in loader:
        x, y = x.to(b.dev, non_blocking=True), y.to(b.dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(cnn(x), y).backward()
        opt.step()
        n += 1
    return n


def run(length, persistent):
    """ms per batch over max(2, total // length) passes of `length` batches, after one warm-up pass
    (a persistent loader's workers start there, once per run)."""
    data = Images(batch * length, side)
    loader = DataLoader(data, batch_size=batch, shuffle=True, num_workers=workers, prefetch_factor=2,
                        persistent_workers=persistent, pin_memory=pin, drop_last=True)
    one_pass(loader)
    passes = max(2, total // length)
    b.sync()
    t0 = time.perf_counter()
    n = sum(one_pass(loader) for _ in range(passes))
    b.sync()
    ms = (time.perf_counter() - t0) * 1e3 / n
    del loader
    return ms


b.param(workers=workers, batch=batch, image=[3, side, side], pass_lengths=lengths, batches_per_sample=total,
        start_method=torch.multiprocessing.get_start_method(allow_none=True) or "default")
run(lengths[0], True)  # warm-up: CUDA kernels, cuDNN plans
for length in lengths:
    prefix = "pass-%d:" % length
    for name, persistent in [("respawn", False), ("persistent", True)]:
        role = "ref"
        if length == lengths[0]:
            role = "anti" if not persistent else "fix"
        b.add(prefix + name, role, [run(length, persistent) for _ in range(reps)], batches_per_pass=length)
b.emit("pass-%d:respawn" % lengths[0], "pass-%d:persistent" % lengths[0])
