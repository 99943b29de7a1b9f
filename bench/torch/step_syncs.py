#!/usr/bin/env python3
"""step_syncs.py - TL104, TL105, TL106, TL107: a Python `if` on a device value, torch.cuda.synchronize(),
printing a tensor, and a boolean-mask selection in every training step, against the same step without
them, on a GPU-bound step and on a small one."""
import io
import sys

from _tlbench import start, Trainer

b = start("torch/step_syncs", "TL104", "tensor-condition-in-control-flow",
          "transformer training step with one extra operation per step: a Python `if` on the loss "
          "(TL104), torch.cuda.synchronize() (TL105), print(loss) (TL106), or a loss over the "
          "positions a boolean mask selects (TL107) instead of a loss weighted by the mask; each on a "
          "GPU-bound step (batch 32, seq 256) and on a small one (batch 4, seq 64)", "ms/step")
torch = b.torch
sizes = {
    "": Trainer(b, batch=b.pick(32, 16, 2), seq=b.pick(256, 128, 8), d_model=b.pick(512, 512, 16),
                nhead=b.pick(8, 8, 2), layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32)),
    "small:": Trainer(b, batch=b.pick(4, 4, 1), seq=b.pick(64, 64, 4), d_model=b.pick(512, 512, 16),
                      nhead=b.pick(8, 8, 2), layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32)),
}
steps, reps = b.pick(50, 30, 4), b.pick(7, 3, 1)
big, small = sizes[""], sizes["small:"]
b.param(batch=big.x.shape[0], seq=big.x.shape[1], small_batch=small.x.shape[0], small_seq=small.x.shape[1],
        steps=steps)
sink = io.StringIO()


def plain(tr):
    def step(i):
        tr.step()
    return step


def if_on_loss(tr):
    def step(i):
        loss = tr.step()
        if loss > 1e9:  # never true: only the read of the value costs
            print("diverged", file=sys.stderr)
    return step


def synchronize(tr):
    def step(i):
        tr.step()
        b.sync()  # torch.cuda.synchronize() on the GPU
    return step


def print_loss(tr):
    def step(i):
        loss = tr.step()
        print(loss, file=sink)
        if sink.tell() > 1 << 20:
            sink.seek(0)
            sink.truncate()
    return step


def masked_loss(tr, select):
    # the loss over the non-padding positions (token 0 is padding here): selected, or weighted
    def step(i):
        tr.opt.zero_grad(set_to_none=True)
        logits = tr.model(tr.x).reshape(-1, tr.vocab)
        target = tr.y.reshape(-1)
        mask = target != 0
        if select:
            loss = tr.loss_fn(logits[mask], target[mask])
        else:
            per = torch.nn.functional.cross_entropy(logits, target, reduction="none")
            loss = (per * mask).sum() / mask.sum().clamp(min=1)
        loss.backward()
        tr.opt.step()
    return step


variants = []
for prefix, tr in sizes.items():
    variants += [
        (prefix + "plain", "fix" if not prefix else "ref", plain(tr)),
        (prefix + "if-on-loss", "anti" if not prefix else "ref", if_on_loss(tr)),
        (prefix + "synchronize", "ref", synchronize(tr)),
        (prefix + "print-loss", "ref", print_loss(tr)),
        (prefix + "mask-select", "ref", masked_loss(tr, True)),
        (prefix + "mask-weight", "ref", masked_loss(tr, False)),
    ]
b.time_variants(variants, steps, reps)
b.emit("if-on-loss", "plain")
