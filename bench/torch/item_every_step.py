#!/usr/bin/env python3
"""item_every_step.py - TL101: loss.item() every step vs every 10 / 50 steps (case studies CS1, CS3 in docs/case-studies.md) vs on-device accumulation, on a GPU-bound step and on a small one."""
import io
import logging

from _tlbench import start, Trainer

b = start("torch/item_every_step", "TL101", "sync-in-hot-path",
          "transformer training step; the loss (and grad norm) read back with .item()/float() every "
          "step vs every N steps vs accumulated on the device; the first two again on a small batch "
          "(batch 4, seq 64), where launching the step takes about as long as running it; a logging.info "
          "call with the loss every step vs every 50 steps (TL402) on both", "ms/step")
torch = b.torch
tr = Trainer(b, batch=b.pick(32, 16, 2), seq=b.pick(256, 128, 8), d_model=b.pick(512, 512, 16),
             nhead=b.pick(8, 8, 2), layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32))
# The same model on a batch so small that the host's work per step (launching some 200 kernels)
# is comparable to the GPU's: there a sync per step stops the host from queueing the next step.
small = Trainer(b, batch=b.pick(4, 4, 1), seq=b.pick(64, 64, 4), d_model=b.pick(512, 512, 16),
                nhead=b.pick(8, 8, 2), layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32))
steps, reps = b.pick(50, 50, 4), b.pick(5, 2, 1)
b.param(batch=tr.x.shape[0], seq=tr.x.shape[1], steps=steps, small_batch=small.x.shape[0],
        small_seq=small.x.shape[1])


def every(n, trainer=tr):
    stats = []

    def step(i):
        loss = trainer.step()
        if i % n == 0:  # CS1's trainer reads the loss twice
            stats.append(loss.item())
            stats.append(loss.item())
    return step


def accumulate(trainer=tr):
    acc = []

    def step(i):
        loss = trainer.step()
        acc.append(loss.detach())  # summed once at the end of the epoch, outside the hot loop
        if len(acc) > 1000:
            acc.clear()
    return step


def logging_like_cs3(grad_norm_every):
    # CS3 before/after: float(loss) every step, float(grad_norm) every 10 (before) or 50 (after)
    params = list(tr.model.parameters())

    def step(i):
        tr.opt.zero_grad(set_to_none=True)
        loss = tr.loss_fn(tr.model(tr.x).reshape(-1, tr.vocab), tr.y.reshape(-1))
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(params, 1.0)
        tr.opt.step()
        log = {"training/loss": float(loss)}
        if i % grad_norm_every == 0:
            log["training/grad_norm"] = float(gn)
    return step


log = logging.getLogger("tlbench.train")
log.propagate = False
log.setLevel(logging.INFO)
log.addHandler(logging.StreamHandler(io.StringIO()))


def log_every(n, trainer=tr):
    # TL402: a logging call with the loss's value every n steps (the value read with .item())
    def step(i):
        loss = trainer.step()
        if i % n == 0:
            log.info("step %d loss %.4f lr %g", i, loss.item(), trainer.opt.param_groups[0]["lr"])
            stream = log.handlers[0].stream
            if stream.tell() > 1 << 20:
                stream.seek(0)
                stream.truncate()
    return step


variants = [
    ("item-every-step", "anti", every(1)),
    ("item-every-10", "ref", every(10)),
    ("item-every-50", "ref", every(50)),
    ("accumulate-on-device", "fix", accumulate()),
    ("log-loss-every-step+gradnorm-every-10", "ref", logging_like_cs3(10)),
    ("log-loss-every-step+gradnorm-every-50", "ref", logging_like_cs3(50)),
    ("small-batch:item-every-step", "ref", every(1, small)),
    ("small-batch:accumulate-on-device", "ref", accumulate(small)),
    ("log-every-step", "ref", log_every(1)),
    ("log-every-50", "ref", log_every(50)),
    ("small-batch:log-every-step", "ref", log_every(1, small)),
    ("small-batch:log-every-50", "ref", log_every(50, small)),
]
b.time_variants(variants, steps, reps)
b.emit("item-every-step", "accumulate-on-device")
