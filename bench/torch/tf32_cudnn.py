#!/usr/bin/env python3
"""tf32_cudnn.py - case study CS5 (docs/case-studies.md): fp32 matmuls with and without TF32, and convolutions with cudnn.benchmark off and on."""
from _tlbench import start

b = start("torch/tf32_cudnn", None, "tf32-and-cudnn-benchmark-off",
          "MLP training step (batch 4096, width 4096, 4 layers) with "
          "torch.backends.cuda.matmul.allow_tf32 False vs True, and the same on a small MLP (batch 256, "
          "width 1024); CNN training step (batch 64, "
          "3x224x224) with torch.backends.cudnn.benchmark False vs True", "ms/step")
torch = b.torch
nn = torch.nn
width, batch = b.pick(4096, 2048, 32), b.pick(4096, 2048, 8)
mlp = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(width, width), nn.ReLU())]).to(b.dev)
mopt = torch.optim.SGD(mlp.parameters(), 1e-3)
mx = torch.randn(batch, width, device=b.dev)
swidth, sbatch = b.pick(1024, 1024, 16), b.pick(256, 256, 4)  # a small MLP: launch-bound, not math-bound
smlp = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(swidth, swidth), nn.ReLU())]).to(b.dev)
sopt = torch.optim.SGD(smlp.parameters(), 1e-3)
sx = torch.randn(sbatch, swidth, device=b.dev)
cnn = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3), nn.ReLU(), nn.Conv2d(64, 128, 3, 2, 1), nn.ReLU(),
                    nn.Conv2d(128, 128, 3, 1, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                    nn.Linear(128, 10)).to(b.dev)
copt = torch.optim.SGD(cnn.parameters(), 1e-3)
cx = torch.randn(b.pick(64, 32, 2), 3, b.pick(224, 224, 16), b.pick(224, 224, 16), device=b.dev)
cy = torch.randint(0, 10, (cx.shape[0],), device=b.dev)


def mlp_step(i):
    mopt.zero_grad(set_to_none=True)
    mlp(mx).square().mean().backward()
    mopt.step()


def small_mlp_step(i):
    sopt.zero_grad(set_to_none=True)
    smlp(sx).square().mean().backward()
    sopt.step()


def cnn_step(i):
    copt.zero_grad(set_to_none=True)
    nn.functional.cross_entropy(cnn(cx), cy).backward()
    copt.step()


steps, reps = b.pick(20, 10, 2), b.pick(5, 3, 1)
old_tf32, old_bench = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.benchmark
b.param(steps=steps, mlp_width=width, mlp_batch=batch, small_mlp_width=swidth, small_mlp_batch=sbatch, cnn_input=list(cx.shape),
        cudnn_allow_tf32=bool(torch.backends.cudnn.allow_tf32))
for name, small_name, role, tf32 in [("mlp:allow_tf32=False", "small-mlp:allow_tf32=False", "anti", False),
                                     ("mlp:allow_tf32=True", "small-mlp:allow_tf32=True", "fix", True)]:
    torch.backends.cuda.matmul.allow_tf32 = tf32
    b.add(name, role, b.time_loop(mlp_step, steps, reps))
    b.add(small_name, "ref", b.time_loop(small_mlp_step, steps, reps))
torch.backends.cuda.matmul.allow_tf32 = old_tf32
for name, bench_on in [("cnn:cudnn.benchmark=False", False), ("cnn:cudnn.benchmark=True", True)]:
    torch.backends.cudnn.benchmark = bench_on
    b.add(name, "ref", b.time_loop(cnn_step, steps, reps, warmup=5))
torch.backends.cudnn.benchmark = old_bench
b.emit("mlp:allow_tf32=False", "mlp:allow_tf32=True")
