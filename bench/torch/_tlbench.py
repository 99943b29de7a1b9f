"""_tlbench.py - shared helpers of the PyTorch benchmarks: skip check, timing, statistics, JSON output.

Each bench/torch/<name>.py prints exactly one JSON line on stdout with "kind": "bench" and the id
"torch/<name>" (the format of tl_cudabench's lines, see bench/README.md); anything else goes to
stderr. Without torch or without CUDA the line has "status": "skipped" and the reason
"skipped: no torch with CUDA", and the script exits 0.
"""
import argparse
import json
import math
import os
import sys
import time

SKIP_REASON = "skipped: no torch with CUDA"


def stats(samples):
    """median/min/max/mean/p10/p90 (linear interpolation) and spread = (p90 - p10) / median."""
    s = sorted(samples)
    n = len(s)
    if n == 0:
        raise ValueError("no samples")

    def q(p):
        pos = p * (n - 1)
        lo = int(math.floor(pos))
        if lo >= n - 1:
            return s[-1]
        return s[lo] + (pos - lo) * (s[lo + 1] - s[lo])

    med = q(0.5)
    p10, p90 = q(0.1), q(0.9)
    return {"reps": n, "median": med, "min": s[0], "max": s[-1], "mean": sum(s) / n,
            "p10": p10, "p90": p90, "spread": (p90 - p10) / med if med else 0.0}


def _print(obj):
    sys.stdout.write(json.dumps(obj, sort_keys=False) + "\n")
    sys.stdout.flush()


class Bench:
    """One benchmark run: collects variants and prints the result line."""

    def __init__(self, bench_id, rule, rule_name, what, unit, torch, quick, smoke):
        self.id, self.rule, self.rule_name, self.what, self.unit = bench_id, rule, rule_name, what, unit
        self.torch, self.quick, self.smoke = torch, quick, smoke
        self.dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.params = {}
        self.variants = []

    # sizes ---------------------------------------------------------------------------------------
    def pick(self, full, quick=None, smoke=None):
        """full size; quick size with --quick; a tiny size in CPU smoke mode."""
        if self.smoke and smoke is not None:
            return smoke
        if (self.quick or self.smoke) and quick is not None:
            return quick
        return full

    # clocks --------------------------------------------------------------------------------------
    def sync(self):
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize()

    def time_loop(self, step, steps, reps, warmup=3):
        """Milliseconds per step, one sample per repetition: `steps` calls of step(i) between two
        synchronizes (so queued GPU work and stalls are all inside the window)."""
        for i in range(warmup):
            step(i)
        self.sync()
        out = []
        for _ in range(reps):
            self.sync()
            t0 = time.perf_counter()
            for i in range(steps):
                step(i)
            self.sync()
            out.append((time.perf_counter() - t0) * 1e3 / steps)
        return out

    def count_syncs(self, fn):
        """Number of synchronizing CUDA calls fn makes in the steady state, from
        torch.cuda.set_sync_debug_mode("warn"). fn runs twice and only the second run counts: the
        first run in a process reported one synchronizing call that no variant makes (measured on
        an H200 with torch 2.11: +1 in the first variant counted, also under `python -O` where the
        variant has no sync at all), and a one-time cost is not a per-step cost anyway."""
        if self.dev.type != "cuda":
            fn()
            return None
        import warnings
        self.sync()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.torch.cuda.set_sync_debug_mode("warn")
            try:
                fn()
                del caught[:]
                fn()
            finally:
                self.torch.cuda.set_sync_debug_mode("default")
        return sum(1 for w in caught if "synchroniz" in str(w.message).lower())

    def time_variants(self, variants, steps, reps, sync_steps=10):
        """Times each (name, role, step) of variants and counts its synchronizing calls over
        sync_steps steps; adds each as a variant with syncs_per_step and its samples in the order
        they were taken. The repetitions are interleaved: round r times one window of each variant,
        the variants' order rotated by r, so a drift of the machine (clocks, the host's other load)
        falls on every variant of a round alike and a claim's spread can be read per round
        (benchlib.ratio_spread). Each window is warmed up again, as a variant's first steps after
        another's are not its steady state. TL_BENCH_REPS_SCALE=N (a whole number, 1 to 20) takes N
        times the repetitions, for claims whose ranges overlap at the default; the results record
        it as the parameter reps_scale."""
        scale = os.environ.get("TL_BENCH_REPS_SCALE", "1")
        scale = int(scale) if scale.isdigit() and 1 <= int(scale) <= 20 else 1
        if scale != 1 and not self.smoke:
            reps *= scale
            self.param(reps_scale=scale)
        self.param(interleaved=True)
        samples = [[] for _ in variants]
        n = len(variants)
        for r in range(reps):
            for k in range(n):
                j = (k + r) % n
                samples[j] += self.time_loop(variants[j][2], steps, 1)
        for (name, role, fn), got in zip(variants, samples):
            syncs = self.count_syncs(lambda: [fn(i) for i in range(sync_steps)])
            v = self.add(name, role, got, syncs_per_step=None if syncs is None else syncs / sync_steps)
            v["samples"] = [round(x, 6) for x in got]

    def peak_bytes(self, fn):
        """Peak bytes allocated by the caching allocator while fn runs (absolute, not a delta)."""
        if self.dev.type != "cuda":
            fn()
            return None
        self.sync()
        self.torch.cuda.reset_peak_memory_stats()
        fn()
        self.sync()
        return int(self.torch.cuda.max_memory_allocated())

    # results -------------------------------------------------------------------------------------
    def param(self, **kw):
        self.params.update(kw)

    def add(self, name, role, samples, clock="host", **extra):
        v = {"name": name, "role": role, "clock": clock}
        v.update(stats(samples))
        v.update(extra)
        self.variants.append(v)
        print("%s: %s median %.4g %s" % (self.id, name, v["median"], self.unit), file=sys.stderr)
        return v

    def _head(self, status):
        return {"kind": "bench", "id": self.id, "rule": self.rule, "rule_name": self.rule_name,
                "status": status}

    def emit(self, anti, fix):
        names = {v["name"]: v for v in self.variants}
        value = None
        if anti in names and fix in names and names[fix]["median"] > 0:
            value = names[anti]["median"] / names[fix]["median"]
        out = self._head("smoke" if self.smoke else "ok")
        out.update({"what": self.what, "unit": self.unit, "params": self.params,
                    "variants": self.variants, "ratio": {"anti": anti, "fix": fix, "value": value},
                    "env": env_of(self.torch)})
        _print(out)

    def not_measurable(self, reason):
        out = self._head("not_measurable")
        out.update({"reason": reason, "what": self.what, "env": env_of(self.torch)})
        _print(out)
        print("%s: not measurable here: %s" % (self.id, reason), file=sys.stderr)
        sys.exit(0)


def env_of(torch):
    e = {"torch": torch.__version__, "cuda": getattr(torch.version, "cuda", None)}
    if torch.cuda.is_available():
        e["device"] = torch.cuda.get_device_name(0)
        e["device_count"] = torch.cuda.device_count()
    return e


def start(bench_id, rule, rule_name, what, unit, argv=None):
    """Parses --quick, imports torch and returns a Bench; prints the skip line and exits 0 when torch
    or CUDA is missing. TL_BENCH_SMOKE=1 runs on the CPU with tiny sizes to test the script itself:
    its line says "status": "smoke" and bench/run never records it as a measurement."""
    ap = argparse.ArgumentParser(description="%s: %s" % (bench_id, what))
    ap.add_argument("--quick", action="store_true", help="fewer steps and repetitions")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    smoke = os.environ.get("TL_BENCH_SMOKE") == "1"
    head = {"kind": "bench", "id": bench_id, "rule": rule, "rule_name": rule_name}
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install
        _skip(head, "import torch failed: %s" % e)
    if not torch.cuda.is_available() and not smoke:
        _skip(head, "torch %s: torch.cuda.is_available() is False" % torch.__version__)
    b = Bench(bench_id, rule, rule_name, what, unit, torch, args.quick, smoke)
    b.child = args.child
    torch.manual_seed(0)
    return b


def _skip(head, detail):
    out = dict(head)
    out.update({"status": "skipped", "reason": SKIP_REASON, "detail": detail})
    _print(out)
    print("%s: %s (%s)" % (head["id"], SKIP_REASON, detail), file=sys.stderr)
    sys.exit(0)


def transformer(torch, d_model=512, nhead=8, layers=4, ff=2048, vocab=1000):
    """A small encoder-only language model built in code (nothing is downloaded)."""
    nn = torch.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, d_model)
            layer = nn.TransformerEncoderLayer(d_model, nhead, ff, dropout=0.0, batch_first=True)
            self.enc = nn.TransformerEncoder(layer, layers)
            self.head = nn.Linear(d_model, vocab)

        def forward(self, tokens):
            return self.head(self.enc(self.emb(tokens)))

    return LM()


class Trainer:
    """model + AdamW + one batch of tokens: step() runs forward, backward and the optimizer step
    and returns the (still on-device) loss."""

    def __init__(self, b, batch=32, seq=256, vocab=1000, **model_kw):
        torch = b.torch
        self.torch = torch
        self.model = transformer(torch, vocab=vocab, **model_kw).to(b.dev)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.x = torch.randint(0, vocab, (batch, seq), device=b.dev)
        self.y = torch.randint(0, vocab, (batch, seq), device=b.dev)
        self.loss_fn = torch.nn.CrossEntropyLoss()
        self.vocab = vocab

    def step(self, *_):
        self.opt.zero_grad(set_to_none=True)
        loss = self.loss_fn(self.model(self.x).reshape(-1, self.vocab), self.y.reshape(-1))
        loss.backward()
        self.opt.step()
        return loss


def two_sizes(b, layers=4, vocab=1000):
    """The two configurations the rule benchmarks compare: {"": a GPU-bound step (batch 32, seq
    256), "small:": a launch-bound one (batch 4, seq 64)}, both on the d_model 512 transformer of
    `transformer` with `layers` layers (smaller with --quick, tiny in smoke mode)."""
    kw = dict(d_model=b.pick(512, 512, 16), nhead=b.pick(8, 8, 2), layers=b.pick(layers, layers, 1),
              ff=b.pick(2048, 2048, 32), vocab=vocab)
    return {"": Trainer(b, batch=b.pick(32, 16, 2), seq=b.pick(256, 128, 8), **kw),
            "small:": Trainer(b, batch=b.pick(4, 4, 1), seq=b.pick(64, 64, 4), **kw)}


def uint8_images(np, Dataset, torch, mean, std, flip=False):
    """A Dataset class of n random uint8 images 3 x side x side with labels 0-9, each decoded to
    float32 and normalised by (x - mean) / std in __getitem__ (and every odd one flipped, as an
    augmentation would, with flip=True): per-sample work for the loader's workers."""

    class Images(Dataset):
        def __init__(self, n, side):
            rng = np.random.default_rng(0)
            self.raw = rng.integers(0, 256, (n, 3, side, side), dtype=np.uint8)
            self.labels = rng.integers(0, 10, n)

        def __len__(self):
            return len(self.raw)

        def __getitem__(self, i):
            x = (self.raw[i].astype(np.float32) - mean) / std
            if flip and i % 2:
                x = x[:, :, ::-1].copy()
            return torch.from_numpy(x), int(self.labels[i])

    return Images

