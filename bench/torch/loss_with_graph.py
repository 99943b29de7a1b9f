#!/usr/bin/env python3
"""loss_with_graph.py - TL701: `total += loss` across steps (the graph kept) vs `total += loss.detach()`: GPU memory and host memory kept per step, and time, in a training loop and in an evaluation loop without no_grad."""
import os
import time

from _tlbench import start, Trainer

b = start("torch/loss_with_graph", "TL701", "loss-accumulated-with-graph",
          "transformer (batch 8, seq 256, d_model 512, 4 layers) run for 40 steps accumulating the loss "
          "into a running total with its graph (`total += loss`) vs detached (`total += "
          "loss.detach()`): in a training loop (backward every step) and in an evaluation loop run "
          "without torch.no_grad(); GPU memory and the host's resident memory still held after the "
          "loop, per step, and time per step", "ms/step")
torch = b.torch
tr = Trainer(b, batch=b.pick(8, 8, 2), seq=b.pick(256, 256, 8), d_model=b.pick(512, 512, 16), nhead=b.pick(8, 8, 2),
             layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32))
steps, reps = b.pick(40, 20, 3), b.pick(5, 3, 1)


def allocated():
    b.sync()
    return torch.cuda.memory_allocated() if b.dev.type == "cuda" else 0


def rss_bytes():
    """The process's resident memory now (not the peak, which only grows)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def loss_of(train):
    if train:
        return tr.step()
    logits = tr.model(tr.x)
    return tr.loss_fn(logits.reshape(-1, tr.vocab), tr.y.reshape(-1))


def run(train, detach):
    """(ms per step, GPU bytes kept per step, host resident-memory growth per step) for `steps` steps."""
    base = allocated()
    rss0 = rss_bytes()
    total = torch.zeros((), device=b.dev)
    b.sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        loss = loss_of(train)
        total += loss.detach() if detach else loss
    b.sync()
    ms = (time.perf_counter() - t0) * 1e3 / steps
    kept = (allocated() - base) / steps
    grown = (rss_bytes() - rss0) / steps
    del total, loss
    return ms, kept, grown


b.param(batch=tr.x.shape[0], seq=tr.x.shape[1], steps=steps,
        parameters=sum(p.numel() for p in tr.model.parameters()))
for prefix, train in [("train:", True), ("eval-without-no_grad:", False)]:
    for name, detach in [("accumulate-loss", False), ("accumulate-detached", True)]:
        run(train, detach)  # warm-up (and the caching allocator's pools)
        got = [run(train, detach) for _ in range(reps)]
        role = "ref"
        if prefix == "eval-without-no_grad:":
            role = "fix" if detach else "anti"
        kept = sorted(g[1] for g in got)[len(got) // 2]
        grown = sorted(g[2] for g in got)[len(got) // 2]
        b.add(prefix + name, role, [g[0] for g in got], gpu_bytes_kept_per_step=kept,
              host_rss_growth_per_step=grown)
b.emit("eval-without-no_grad:accumulate-loss", "eval-without-no_grad:accumulate-detached")
