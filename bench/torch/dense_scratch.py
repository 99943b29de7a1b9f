#!/usr/bin/env python3
"""dense_scratch.py - TL302 / case study CS4 (docs/case-studies.md): a vocabulary-sized zeros tensor per step + scatter_add_ vs scatter_add_ into the logits."""
from _tlbench import start

b = start("torch/dense_scratch", "TL302", "per-step-dense-scratch",
          "case study CS4's GatedFusion shape (batch 128, seq 128, vocab 21128, fp32): per step a "
          "torch.zeros of the logits' shape, scatter_add_ of 8 candidates per token, then added to "
          "the logits in place, vs scatter_add_ into the logits in place; time and peak memory; the same in a training step "
          "(an output head over hidden size 512 makes the logits, cross-entropy, backward)", "ms/step")
torch = b.torch
B, S, V, K = b.pick(128, 32, 2), 128 if not b.smoke else 4, b.pick(21128, 21128, 50), 8
logits = torch.randn(B, S, V, device=b.dev)
ids = torch.randint(0, V, (B, S, K), device=b.dev)
vals = torch.rand(B, S, K, device=b.dev)


def dense(i, out=logits):
    scratch = torch.zeros(B, S, V, device=b.dev)  # the vocabulary-sized zero tensor
    scratch.scatter_add_(-1, ids, vals)
    return out.add_(scratch)


def in_place(i, out=logits):
    return out.scatter_add_(-1, ids, vals)


with torch.no_grad():
    if not torch.allclose(dense(0, logits.clone()), in_place(0, logits.clone())):
        raise SystemExit("dense and in-place results disagree")
# The same scatter in a training step: an output head makes the logits from hidden states, the
# candidates' scores are added (out of place, as autograd needs), then the loss and backward.
D = b.pick(512, 512, 8)
hidden = torch.randn(B, S, D, device=b.dev)
head = torch.nn.Linear(D, V).to(b.dev)
target = torch.randint(0, V, (B, S), device=b.dev)
opt = torch.optim.SGD(head.parameters(), 1e-3)


def train_step(scratch_first):
    def step(i):
        opt.zero_grad(set_to_none=True)
        z = head(hidden)
        if scratch_first:
            scratch = torch.zeros(B, S, V, device=b.dev)
            scratch.scatter_add_(-1, ids, vals)
            z = z + scratch
        else:
            z = z.scatter_add(-1, ids, vals)
        torch.nn.functional.cross_entropy(z.reshape(-1, V), target.reshape(-1)).backward()
        opt.step()
    return step


steps, reps = b.pick(20, 10, 2), b.pick(5, 3, 1)
b.param(batch=B, seq=S, vocab=V, candidates=K, logits_bytes=logits.numel() * 4, steps=steps)
with torch.no_grad():
    for name, role, fn in [("zeros+scatter_add_+add", "anti", dense),
                           ("in-place scatter_add_", "fix", in_place)]:
        samples = b.time_loop(fn, steps, reps)
        b.add(name, role, samples, peak_mem_bytes=b.peak_bytes(lambda: fn(0)))
for name, fn in [("step:zeros+scatter_add_+add", train_step(True)), ("step:scatter_add", train_step(False))]:
    b.add(name, "ref", b.time_loop(fn, steps, reps), peak_mem_bytes=b.peak_bytes(lambda: fn(0)))
b.emit("zeros+scatter_add_+add", "in-place scatter_add_")
