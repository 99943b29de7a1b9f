#!/usr/bin/env python3
"""amp.py - case study CS5 (docs/case-studies.md): fp32 training vs autocast + GradScaler (fp16) and bf16 autocast: time and peak memory."""
from _tlbench import start, Trainer

b = start("torch/amp", None, "no-mixed-precision",
          "transformer training step (batch 32, seq 256, d 512, 6 layers) in fp32 vs torch.autocast "
          "fp16 + GradScaler vs autocast bf16; time per step and peak allocated memory", "ms/step")
torch = b.torch
tr = Trainer(b, batch=b.pick(32, 16, 2), seq=b.pick(256, 256, 8), d_model=b.pick(512, 512, 16),
             nhead=b.pick(8, 8, 2), layers=b.pick(6, 4, 1), ff=b.pick(2048, 2048, 32))
dev_type = b.dev.type
try:
    scaler = torch.amp.GradScaler(dev_type, enabled=dev_type == "cuda")
except (AttributeError, TypeError):  # torch < 2.3
    scaler = torch.cuda.amp.GradScaler(enabled=dev_type == "cuda")


def forward_loss():
    return tr.loss_fn(tr.model(tr.x).reshape(-1, tr.vocab), tr.y.reshape(-1))


def fp32(i):
    tr.step()


def amp_fp16(i):
    tr.opt.zero_grad(set_to_none=True)
    with torch.autocast(dev_type, dtype=torch.float16 if dev_type == "cuda" else torch.bfloat16):
        loss = forward_loss()
    scaler.scale(loss).backward()
    scaler.step(tr.opt)
    scaler.update()


def amp_bf16(i):
    tr.opt.zero_grad(set_to_none=True)
    with torch.autocast(dev_type, dtype=torch.bfloat16):
        loss = forward_loss()
    loss.backward()
    tr.opt.step()


steps, reps = b.pick(20, 10, 2), b.pick(5, 3, 1)
b.param(steps=steps, batch=tr.x.shape[0], seq=tr.x.shape[1],
        matmul_allow_tf32=bool(torch.backends.cuda.matmul.allow_tf32),
        cudnn_allow_tf32=bool(torch.backends.cudnn.allow_tf32))
for name, role, fn in [("fp32", "anti", fp32), ("amp-fp16+GradScaler", "fix", amp_fp16),
                       ("amp-bf16", "ref", amp_bf16)]:
    samples = b.time_loop(fn, steps, reps)
    b.add(name, role, samples, peak_mem_bytes=b.peak_bytes(lambda: fn(0)))
b.emit("fp32", "amp-fp16+GradScaler")
