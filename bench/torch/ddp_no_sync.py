#!/usr/bin/env python3
"""ddp_no_sync.py - case study CS4 (docs/case-studies.md): DDP gradient accumulation (4 micro-steps) with an all-reduce every micro-step vs model.no_sync().

With two GPUs it times both on two ranks and measures the all-reduce bandwidth. With one GPU it runs
DDP on one rank: the all-reduces are counted (a DDP comm hook sees each bucket whatever the number
of ranks), and it records what the paper estimate of the time on more GPUs needs (bench/README.md,
"Claims that need two GPUs"): the bytes of gradients one all-reduce moves, the buckets, and the
micro-step's and the backward's own times.
"""
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

    def micro_step(sync):
        with contextlib.nullcontext() if sync else model.no_sync():
            loss = loss_fn(model(x).reshape(-1, 1000), x.reshape(-1)) / ACCUM
            loss.backward()

    def optimizer_step(use_no_sync):
        opt.zero_grad(set_to_none=True)
        for m in range(ACCUM):
            micro_step(not (use_no_sync and m < ACCUM - 1))
        opt.step()

    result = {"world": world}
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

    # What an estimate for more ranks needs: the gradient bytes one micro-step's all-reduces move, and
    # the micro-step's and its backward's times without communication (under no_sync), medians of
    # CUDA-event timings.
    result["grad_bytes"] = sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad)
    micro, backward = [], []
    for _ in range(5 * reps + 3):
        opt.zero_grad(set_to_none=True)
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
        with model.no_sync():
            ev[0].record()
            loss = loss_fn(model(x).reshape(-1, 1000), x.reshape(-1)) / ACCUM
            ev[1].record()
            loss.backward()
            ev[2].record()
        torch.cuda.synchronize()
        micro.append(ev[0].elapsed_time(ev[2]))
        backward.append(ev[1].elapsed_time(ev[2]))
    result["micro_step_ms"] = sorted(micro[3:])[len(micro[3:]) // 2]
    result["backward_ms"] = sorted(backward[3:])[len(backward[3:]) // 2]
    if world > 1:
        # The all-reduce bandwidth of this machine for one gradient's worth of bytes, as nccl-tests
        # defines its bus bandwidth: bytes x 2(n-1)/n / time.
        buf = torch.ones(result["grad_bytes"] // 4, device=rank)
        times = []
        for i in range(reps + 2):
            torch.cuda.synchronize()
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(buf)
            torch.cuda.synchronize()
            if i >= 2:
                times.append(time.perf_counter() - t0)
        t = sorted(times)[len(times) // 2]
        result["allreduce_busbw_gbs"] = result["grad_bytes"] * 2 * (world - 1) / world / t / 1e9
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump(result, f)
    dist.destroy_process_group()


def main():
    from _tlbench import start

    b = start("torch/ddp_no_sync", "TL501", "ddp-accumulation-without-no-sync",
              "DDP transformer, 4 accumulation micro-steps per optimizer step: gradient all-reduce on "
              "every micro-step vs model.no_sync() on the first three; time per optimizer step (two "
              "GPUs) and all-reduce calls counted with a DDP comm hook (any number of GPUs)",
              "ms/opt-step")
    torch = b.torch
    gpus = torch.cuda.device_count() if b.dev.type == "cuda" else 0
    if gpus < 1:
        b.not_measurable("needs a GPU")
    if not torch.distributed.is_available() or not torch.distributed.is_nccl_available():
        b.not_measurable("torch.distributed with NCCL is not available")
    import torch.multiprocessing as mp

    world = 2 if gpus >= 2 else 1
    steps, reps = b.pick(10, 5), b.pick(5, 3)
    d_model, layers = 1024, b.pick(6, 4)
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "result.json")
        mp.spawn(worker, args=(world, os.path.join(tmp, "init"), out_path, steps, reps, d_model, layers),
                 nprocs=world)
        with open(out_path) as f:
            result = json.load(f)
    b.param(gpus_used=world, accumulation_steps=ACCUM, d_model=d_model, layers=layers, steps=steps,
            grad_bytes=result["grad_bytes"], micro_step_ms=result["micro_step_ms"],
            backward_ms=result["backward_ms"])
    if "allreduce_busbw_gbs" in result:
        b.param(allreduce_busbw_gbs=result["allreduce_busbw_gbs"])
    for name, role in [("allreduce-every-micro-step", "anti"), ("no_sync-on-accumulation", "fix")]:
        r = result[name]
        b.add(name, role, r["samples"], allreduce_calls_per_opt_step=r["allreduce_calls_per_opt_step"])
    b.emit("allreduce-every-micro-step", "no_sync-on-accumulation")


if __name__ == "__main__":
    main()
