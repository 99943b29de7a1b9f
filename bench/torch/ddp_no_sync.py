#!/usr/bin/env python3
"""ddp_no_sync.py - case study CS4 (docs/case-studies.md): DDP gradient accumulation (4 micro-steps) with an all-reduce every micro-step vs model.no_sync(); needs two GPUs."""
import contextlib
import json
import os
import tempfile
import time

ACCUM = 4


def worker(rank, world, init_file, out_path, steps, reps, d_model, layers):
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP

    from _tlbench import transformer

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="file://" + init_file, rank=rank, world_size=world)
    torch.manual_seed(0)
    model = DDP(transformer(torch, d_model=d_model, nhead=16, layers=layers, ff=4 * d_model).cuda(rank),
                device_ids=[rank])
    calls = [0]

    def counting_allreduce(state, bucket):
        calls[0] += 1
        return default_hooks.allreduce_hook(state, bucket)

    model.register_comm_hook(None, counting_allreduce)
    opt = torch.optim.AdamW(model.parameters(), 1e-4)
    x = torch.randint(0, 1000, (8, 256), device=rank)
    loss_fn = torch.nn.CrossEntropyLoss()

    def optimizer_step(use_no_sync):
        opt.zero_grad(set_to_none=True)
        for m in range(ACCUM):
            skip = use_no_sync and m < ACCUM - 1
            with model.no_sync() if skip else contextlib.nullcontext():
                loss = loss_fn(model(x).reshape(-1, 1000), x.reshape(-1)) / ACCUM
                loss.backward()
        opt.step()

    result = {}
    for name, use_no_sync in [("allreduce-every-micro-step", False), ("no_sync-on-accumulation", True)]:
        for _ in range(2):
            optimizer_step(use_no_sync)
        calls[0] = 0
        samples = []
        for _ in range(reps):
            torch.cuda.synchronize()
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(steps):
                optimizer_step(use_no_sync)
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - t0) * 1e3 / steps)
        result[name] = {"samples": samples, "allreduce_calls_per_opt_step": calls[0] / (steps * reps)}
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump(result, f)
    dist.destroy_process_group()


def main():
    from _tlbench import start

    b = start("torch/ddp_no_sync", None, "ddp-accumulation-without-no-sync",
              "two-GPU DDP transformer, 4 accumulation micro-steps per optimizer step: gradient "
              "all-reduce on every micro-step vs model.no_sync() on the first three; time per "
              "optimizer step and all-reduce calls counted with a DDP comm hook", "ms/opt-step")
    torch = b.torch
    gpus = torch.cuda.device_count() if b.dev.type == "cuda" else 0
    if gpus < 2:
        b.not_measurable("needs two GPUs (found %d)" % gpus)
    import torch.multiprocessing as mp

    steps, reps = b.pick(10, 5), b.pick(5, 3)
    d_model, layers = 1024, b.pick(6, 4)
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "result.json")
        mp.spawn(worker, args=(2, os.path.join(tmp, "init"), out_path, steps, reps, d_model, layers),
                 nprocs=2)
        with open(out_path) as f:
            result = json.load(f)
    b.param(gpus_used=2, accumulation_steps=ACCUM, d_model=d_model, layers=layers, steps=steps)
    for name, role in [("allreduce-every-micro-step", "anti"), ("no_sync-on-accumulation", "fix")]:
        r = result[name]
        b.add(name, role, r["samples"], allreduce_calls_per_opt_step=r["allreduce_calls_per_opt_step"])
    b.emit("allreduce-every-micro-step", "no_sync-on-accumulation")


if __name__ == "__main__":
    main()
