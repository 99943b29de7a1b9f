#!/usr/bin/env python3
"""pinned_transfer.py - TL202: pageable .to(device) vs pinned memory + non_blocking=True (and per-step .pin_memory())."""
from _tlbench import start

b = start("torch/pinned_transfer", "TL202", "dataloader-pinning",
          "CNN training step on a 64x3x224x224 fp32 batch copied in each step: from pageable memory, "
          "from pinned memory with non_blocking=True, or pinned per step with .pin_memory()", "ms/step")
torch = b.torch
shape = (b.pick(64, 64, 2), 3, b.pick(224, 224, 16), b.pick(224, 224, 16))
nb = b.pick(4, 4, 2)
pageable = [torch.randn(shape) for _ in range(nb)]
pin = (lambda t: t.pin_memory()) if b.dev.type == "cuda" else (lambda t: t)  # CPU smoke mode
pinned = [pin(t) for t in pageable]
labels = torch.randint(0, 10, (shape[0],), device=b.dev)
nn = torch.nn
cnn = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                    nn.Conv2d(64, 64, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                    nn.Linear(64, 10)).to(b.dev)
opt = torch.optim.SGD(cnn.parameters(), 0.01)


def train(x):
    opt.zero_grad(set_to_none=True)
    nn.functional.cross_entropy(cnn(x), labels).backward()
    opt.step()


variants = [
    ("pageable .to()", "anti", lambda i: train(pageable[i % nb].to(b.dev))),
    ("pinned .to(non_blocking=True)", "fix", lambda i: train(pinned[i % nb].to(b.dev, non_blocking=True))),
    ("pinned .to()", "ref", lambda i: train(pinned[i % nb].to(b.dev))),
    ("per-step .pin_memory().to(non_blocking=True)", "ref",
     lambda i: train(pin(pageable[i % nb]).to(b.dev, non_blocking=True))),
]
steps, reps = b.pick(20, 10, 2), b.pick(5, 3, 1)
b.param(batch_shape=list(shape), batch_bytes=pageable[0].numel() * 4, steps=steps)
for name, role, fn in variants:
    b.add(name, role, b.time_loop(fn, steps, reps))
b.emit("pageable .to()", "pinned .to(non_blocking=True)")
