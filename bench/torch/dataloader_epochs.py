#!/usr/bin/env python3
"""dataloader_epochs.py - case study CS5 (docs/case-studies.md): DataLoader with workers started again every epoch (pageable, blocking copies) vs persistent_workers=True + pin_memory + non_blocking."""
import os
import time

from _tlbench import start, uint8_images

b = start("torch/dataloader_epochs", None, "dataloader-prefetch",
          "4 short epochs (100 batches of 128 3x64x64 images decoded from uint8 and normalised in "
          "__getitem__, 8 workers, prefetch_factor 2) feeding a small CNN step: case study CS5's before "
          "(workers started again each epoch, pageable memory, blocking copies) vs after "
          "(persistent_workers=True, pin_memory=True, non_blocking=True); time per batch including "
          "each epoch's start", "ms/batch")
torch = b.torch
try:
    import numpy as np
except ImportError:
    b.not_measurable("numpy is not installed")
from torch.utils.data import DataLoader, Dataset

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(3, 1, 1) * 255
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(3, 1, 1) * 255


Images = uint8_images(np, Dataset, torch, MEAN, STD, flip=True)


workers = min(8, len(os.sched_getaffinity(0)))
batch, side = b.pick(128, 128, 4), b.pick(64, 64, 8)
nbatches, epochs, reps = b.pick(100, 50, 2), b.pick(4, 3, 2), b.pick(5, 2, 1)
data = Images(batch * nbatches, side)
nn = torch.nn
cnn = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1), nn.ReLU(), nn.Conv2d(64, 128, 3, 2, 1), nn.ReLU(),
                    nn.Conv2d(128, 128, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                    nn.Linear(128, 10)).to(b.dev)
opt = torch.optim.SGD(cnn.parameters(), 0.01)


def run(persistent, pinned, non_blocking):
    """ms per batch over `epochs` epochs of a fresh loader, each epoch's start included."""
    loader = DataLoader(data, batch_size=batch, shuffle=True, num_workers=workers, prefetch_factor=2,
                        persistent_workers=persistent, pin_memory=pinned and b.dev.type == "cuda",
                        drop_last=True)
    b.sync()
    t0 = time.perf_counter()
    n = 0
    for _ in range(epochs):
        for x, y in loader:
            x, y = x.to(b.dev, non_blocking=non_blocking), y.to(b.dev, non_blocking=non_blocking)
            opt.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(cnn(x), y).backward()
            opt.step()
            n += 1
    b.sync()
    del loader
    return (time.perf_counter() - t0) * 1e3 / n


b.param(workers=workers, batch=batch, image=[3, side, side], batches_per_epoch=nbatches, epochs=epochs)
run(True, True, True)  # warm-up: CUDA kernels, cuDNN plans, the page cache
for name, role, args in [("respawn-workers+pageable", "anti", (False, False, False)),
                         ("persistent+pinned+non_blocking", "fix", (True, True, True)),
                         ("persistent-only", "ref", (True, False, False)),
                         ("pinned+non_blocking-only", "ref", (False, True, True))]:
    b.add(name, role, [run(*args) for _ in range(reps)], workers=workers)
b.emit("respawn-workers+pageable", "persistent+pinned+non_blocking")
