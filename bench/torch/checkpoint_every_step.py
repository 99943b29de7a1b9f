#!/usr/bin/env python3
"""checkpoint_every_step.py - TL406: torch.save of the model and optimizer state, or an evaluation over a validation loader, every training step vs not in the step."""
import os
import shutil
import tempfile

from _tlbench import start, two_sizes

b = start("torch/checkpoint_every_step", "TL406", "checkpoint-or-eval-every-step",
          "transformer training step (d_model 512, 4 layers, AdamW) with, every step, torch.save of the "
          "model's and the optimizer's state_dict to a file on local disk, or an evaluation of 20 "
          "batches under torch.no_grad(), vs the step alone; on a GPU-bound step (batch 32, seq 256) and "
          "on a small one (batch 4, seq 64)", "ms/step")
torch = b.torch
sizes = two_sizes(b)
where = tempfile.mkdtemp(prefix="tl-ckpt-", dir=os.environ.get("TL_BENCH_CKPT_DIR") or None)
path = os.path.join(where, "checkpoint.pt")
eval_batches = b.pick(20, 20, 2)


def variants_for(prefix, tr):
    def plain(i):
        tr.step()

    def save(i):
        tr.step()
        torch.save({"model": tr.model.state_dict(), "optimizer": tr.opt.state_dict(), "step": i}, path)

    def evaluate(i):
        tr.step()
        tr.model.eval()
        with torch.no_grad():
            total = torch.zeros((), device=b.dev)
            for _ in range(eval_batches):
                logits = tr.model(tr.x)
                total += tr.loss_fn(logits.reshape(-1, tr.vocab), tr.y.reshape(-1))
        tr.model.train()
        return total

    top = not prefix
    return [(prefix + "save-every-step", "anti" if top else "ref", save),
            (prefix + "no-save", "fix" if top else "ref", plain),
            (prefix + "evaluate-every-step", "ref", evaluate)]


steps, reps = b.pick(10, 5, 2), b.pick(5, 3, 1)
big, small = sizes[""], sizes["small:"]
variants = []
for prefix, tr in sizes.items():
    variants += variants_for(prefix, tr)
try:
    b.time_variants(variants, steps, reps, sync_steps=2)
    size = os.path.getsize(path)
finally:
    shutil.rmtree(where, ignore_errors=True)
b.param(batch=big.x.shape[0], seq=big.x.shape[1], small_batch=small.x.shape[0], small_seq=small.x.shape[1],
        steps=steps, checkpoint_bytes=size, eval_batches=eval_batches,
        parameters=sum(p.numel() for p in big.model.parameters()))
b.emit("save-every-step", "no-save")
