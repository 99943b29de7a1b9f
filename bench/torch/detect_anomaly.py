#!/usr/bin/env python3
"""detect_anomaly.py - training with torch.autograd.set_detect_anomaly(True) left on vs off."""
from _tlbench import start, Trainer

b = start("torch/detect_anomaly", None, "anomaly-detection-left-on",
          "transformer training step with torch.autograd.set_detect_anomaly(True) vs False",
          "ms/step")
torch = b.torch
tr = Trainer(b, batch=b.pick(32, 16, 2), seq=b.pick(256, 128, 8), d_model=b.pick(512, 512, 16),
             nhead=b.pick(8, 8, 2), layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32))
steps, reps = b.pick(20, 10, 2), b.pick(5, 3, 1)
b.param(steps=steps, batch=tr.x.shape[0], seq=tr.x.shape[1])
for name, role, on in [("detect_anomaly(True)", "anti", True), ("detect_anomaly(False)", "fix", False)]:
    torch.autograd.set_detect_anomaly(on)
    try:
        b.add(name, role, b.time_loop(tr.step, steps, reps))
    finally:
        torch.autograd.set_detect_anomaly(False)
b.emit("detect_anomaly(True)", "detect_anomaly(False)")
