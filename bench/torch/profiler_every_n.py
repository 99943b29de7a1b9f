#!/usr/bin/env python3
"""profiler_every_n.py - case study CS3 (docs/case-studies.md): a FLOPs profile (torch.profiler) every 50 steps vs every 500 vs one scheduled window vs none."""
from _tlbench import start, Trainer

b = start("torch/profiler_every_n", None, "profiler-in-hot-path",
          "transformer training loop; one step in N wrapped in torch.profiler.profile(with_flops=True) "
          "as case study CS3 did (N = 50, 500), a torch.profiler.schedule window once per run, or no "
          "profiling", "ms/step")
torch = b.torch
from torch.profiler import ProfilerActivity, profile, schedule

tr = Trainer(b, batch=b.pick(16, 16, 2), seq=b.pick(128, 128, 8), d_model=b.pick(512, 512, 16),
             nhead=b.pick(8, 8, 2), layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32))
acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if b.dev.type == "cuda" else [])
steps, reps = b.pick(500, 100, 4), b.pick(5, 2, 1)


def flops_of_one_step():
    with profile(activities=acts, with_flops=True) as prof:
        tr.step()
    return sum(e.flops for e in prof.key_averages())


flops_of_one_step()  # profiler start-up (CUPTI) happens once in a real run too: keep it out
counter = {"step": 0}


def every(n):
    def step(i):
        counter["step"] += 1
        if counter["step"] % n == 0:
            flops_of_one_step()
        else:
            tr.step()
    return step


def scheduled():
    state = {}

    def step(i):
        if i == 0:  # one window per run: wait 10 steps, warm up 1, record 1
            state["prof"] = profile(activities=acts, with_flops=True,
                                    schedule=schedule(wait=10, warmup=1, active=1, repeat=1))
            state["prof"].__enter__()
        tr.step()
        state["prof"].step()
        if i == steps - 1:
            state["prof"].__exit__(None, None, None)
    return step


b.param(steps=steps, batch=tr.x.shape[0], seq=tr.x.shape[1])
for name, role, fn in [("profile-every-50", "anti", every(50)), ("profile-every-500", "ref", every(500)),
                       ("schedule-once", "ref", scheduled()), ("no-profiler", "fix", tr.step)]:
    counter["step"] = 0
    b.add(name, role, b.time_loop(fn, steps, reps, warmup=0 if name == "schedule-once" else 3))
b.emit("profile-every-50", "no-profiler")
