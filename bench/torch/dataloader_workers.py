#!/usr/bin/env python3
"""dataloader_workers.py - TL201/TL204: num_workers forced to 1 vs the cores, per-sample scaler.transform vs pre-normalised data."""
import os
import time

from _tlbench import start

b = start("torch/dataloader_workers", "TL201", "dataloader-forced-workers",
          "windows of simulation data (batch 512 x 64 steps x 32 features): DataLoader with 1 worker "
          "vs one per core, standardised per sample in __getitem__ vs once in __init__; loader alone "
          "and feeding a small TCN training step", "ms/batch")
torch = b.torch
try:
    import numpy as np
except ImportError:
    b.not_measurable("numpy is not installed")
from torch.utils.data import DataLoader, Dataset


class ScalerLike:
    """What sklearn's StandardScaler.transform does per call, without sklearn: validate the input
    (convert to float64, check finiteness), then (x - mean) / scale."""

    def __init__(self, data):
        self.mean_ = data.mean(axis=0, dtype=np.float64)
        self.scale_ = data.std(axis=0, dtype=np.float64) + 1e-12

    def transform(self, x):
        x = np.asarray(x, dtype=np.float64)
        if not np.isfinite(x).all():
            raise ValueError("input contains NaN or infinity")
        return (x - self.mean_) / self.scale_


class Windows(Dataset):
    def __init__(self, raw, seq, scaler, prenormalise):
        self.raw, self.seq, self.scaler, self.pre = raw, seq, scaler, prenormalise
        if prenormalise:  # case study CS2's fix: standardise everything once
            self.data = scaler.transform(raw).astype(np.float32)

    def __len__(self):
        return len(self.raw) - self.seq - 1

    def __getitem__(self, i):
        if self.pre:
            x = torch.from_numpy(self.data[i:i + self.seq])
            y = torch.from_numpy(self.data[i + self.seq, :1])
        else:  # case study CS2's original: transform per sample, copy with torch.FloatTensor
            x = torch.FloatTensor(self.scaler.transform(self.raw[i:i + self.seq]))
            y = torch.FloatTensor(self.scaler.transform(self.raw[i + self.seq:i + self.seq + 1])[0, :1])
        return x, y


cores = len(os.sched_getaffinity(0))
feat, seq, batch = 32, 64, b.pick(512, 512, 8)
nbatches = b.pick(200, 80, 3)
rng = np.random.default_rng(0)
raw = rng.standard_normal((nbatches * batch + seq + 64, feat)).astype(np.float32) * 3 + 1
scaler = ScalerLike(raw)
tcn = torch.nn.Sequential(
    torch.nn.Conv1d(feat, 64, 3, padding=1), torch.nn.ReLU(),
    torch.nn.Conv1d(64, 64, 3, padding=2, dilation=2), torch.nn.ReLU(),
    torch.nn.Conv1d(64, 64, 3, padding=4, dilation=4), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool1d(1), torch.nn.Flatten(), torch.nn.Linear(64, 1)).to(b.dev)
opt = torch.optim.AdamW(tcn.parameters(), 1e-3)


def run(workers, prenormalise, train):
    """ms per batch from the first batch to the last (worker start-up is not counted)."""
    loader = DataLoader(Windows(raw, seq, scaler, prenormalise), batch_size=batch, shuffle=True,
                        num_workers=workers, drop_last=True)
    it = iter(loader)
    n, t0 = 0, None
    for x, y in it:
        if t0 is None:
            b.sync()
            t0 = time.perf_counter()
            continue
        x, y = x.to(b.dev), y.to(b.dev)
        if train:
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(tcn(x.transpose(1, 2)), y)
            loss.backward()
            opt.step()
        n += 1
        if n == nbatches - 1:
            break
    b.sync()
    del it
    return (time.perf_counter() - t0) * 1e3 / n


reps = b.pick(5, 2, 1)
b.param(cores=cores, batch=batch, window=seq, features=feat, batches_timed=nbatches - 1,
        workers_n=cores)
for name, role, workers, pre, train in [
        ("loader:w1:transform", "ref", 1, False, False), ("loader:wN:transform", "ref", cores, False, False),
        ("loader:w1:prenorm", "ref", 1, True, False), ("loader:wN:prenorm", "ref", cores, True, False),
        ("train:w1:transform", "anti", 1, False, True), ("train:wN:transform", "fix", cores, False, True),
        ("train:wN:prenorm", "ref", cores, True, True)]:
    b.add(name, role, [run(workers, pre, train) for _ in range(reps)], workers=workers)
b.emit("train:w1:transform", "train:wN:transform")
