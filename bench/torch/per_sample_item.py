#!/usr/bin/env python3
"""per_sample_item.py - TL101 / case study CS3 (docs/case-studies.md): per-sample .item() metrics loop every step vs every 10 steps vs on the device."""
from _tlbench import start

b = start("torch/per_sample_item", "TL101", "sync-in-hot-path",
          "classifier training step (batch 256) followed by case study CS3's per-dataset metrics: a Python "
          "loop with labels[i].item() and predictions[i].item() every step, every 10 steps, or "
          "counted on the device with bincount", "ms/step")
torch = b.torch
nn = torch.nn
batch, width, classes, nsets = b.pick(256, 256, 4), b.pick(4096, 4096, 16), 10, 4
model = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                      nn.Linear(width, classes)).to(b.dev)
opt = torch.optim.AdamW(model.parameters(), 1e-4)
x = torch.randn(batch, width, device=b.dev)
labels = torch.randint(0, classes, (batch,), device=b.dev)
dataset_ids = torch.randint(0, nsets, (batch,), device=b.dev)
names = ["set%d" % k for k in range(nsets)]
dataset_names = [names[k] for k in dataset_ids.tolist()]  # known on the host from the loader
counts = {}
device_counts = torch.zeros(nsets * classes * classes, dtype=torch.long, device=b.dev)


def train():
    opt.zero_grad(set_to_none=True)
    logits = model(x)
    nn.functional.cross_entropy(logits, labels).backward()
    opt.step()
    return logits


def metrics_loop(logits):
    predictions = torch.argmax(logits, dim=-1)
    for i, name in enumerate(dataset_names):
        label = labels[i].item()
        pred = predictions[i].item()
        key = (name, label, pred)
        counts[key] = counts.get(key, 0) + 1


def every(n):
    def step(i):
        logits = train()
        if i % n == 0:
            metrics_loop(logits)
    return step


def on_device(i):
    logits = train()
    key = (dataset_ids * classes + labels) * classes + torch.argmax(logits.detach(), dim=-1)
    device_counts.add_(torch.bincount(key, minlength=device_counts.numel()))


steps, reps = b.pick(50, 20, 2), b.pick(5, 3, 1)
b.param(steps=steps, batch=batch, width=width)
for name, role, fn in [("metrics-every-step", "anti", every(1)), ("metrics-every-10", "fix", every(10)),
                       ("metrics-on-device", "ref", on_device)]:
    b.add(name, role, b.time_loop(fn, steps, reps))
b.emit("metrics-every-step", "metrics-every-10")
