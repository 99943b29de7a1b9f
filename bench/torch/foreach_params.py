#!/usr/bin/env python3
"""foreach_params.py - TL303: an EMA of the weights updated by a Python loop over the parameters every step vs torch._foreach_mul_/_foreach_add_, on a GPU-bound step and on a small one."""
from _tlbench import start, two_sizes

b = start("torch/foreach_params", "TL303", "loop-of-small-kernels",
          "transformer training step (12 layers, d_model 512, about 150 parameter tensors) followed by "
          "an exponential moving average of the weights: a Python loop `e.mul_(d).add_(p, alpha=1-d)` "
          "over the parameters vs two torch._foreach_* calls; no EMA as reference; on a GPU-bound "
          "step (batch 32, seq 256) and on a small one (batch 4, seq 64)", "ms/step")
torch = b.torch
sizes = two_sizes(b, layers=12)
DECAY = 0.999


def variants_for(prefix, tr):
    params = [p for p in tr.model.parameters()]
    ema = [p.detach().clone() for p in params]

    def plain(i):
        tr.step()

    def ema_loop(i):
        tr.step()
        with torch.no_grad():
            for e, p in zip(ema, params):
                e.mul_(DECAY).add_(p.detach(), alpha=1 - DECAY)

    def ema_foreach(i):
        tr.step()
        with torch.no_grad():
            detached = [p.detach() for p in params]
            torch._foreach_mul_(ema, DECAY)
            torch._foreach_add_(ema, detached, alpha=1 - DECAY)

    top = not prefix
    return [(prefix + "ema-loop", "anti" if top else "ref", ema_loop),
            (prefix + "ema-foreach", "fix" if top else "ref", ema_foreach),
            (prefix + "no-ema", "ref", plain)]


steps, reps = b.pick(50, 20, 3), b.pick(5, 3, 1)
big, small = sizes[""], sizes["small:"]
b.param(batch=big.x.shape[0], seq=big.x.shape[1], small_batch=small.x.shape[0], small_seq=small.x.shape[1],
        steps=steps, parameter_tensors=len(list(big.model.parameters())))
variants = []
for prefix, tr in sizes.items():
    variants += variants_for(prefix, tr)
b.time_variants(variants, steps, reps)
b.emit("ema-loop", "ema-foreach")
