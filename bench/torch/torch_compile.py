#!/usr/bin/env python3
"""torch_compile.py - case studies CS2 and CS5 (docs/case-studies.md): eager vs torch.compile (TCN training with mode="reduce-overhead"; transformer inference, default mode, MHA fast path off)."""
import time

from _tlbench import start, transformer

b = start("torch/torch_compile", None, "no-torch-compile",
          "case study CS2: a TCN training step (batch 512, 64 steps, 32 features) eager vs "
          "torch.compile(mode='reduce-overhead'); case study CS5: transformer inference eager vs "
          "torch.compile() with nn.MultiheadAttention's fast path off in both (and on, eager, as a "
          "reference); compile time is measured apart and not counted", "ms/step")
torch = b.torch
nn = torch.nn
steps, reps = b.pick(50, 20, 2), b.pick(5, 3, 1)
feat, seq, batch = 32, 64, b.pick(512, 512, 8)


def tcn():
    return nn.Sequential(
        nn.Conv1d(feat, 64, 3, padding=1), nn.ReLU(), nn.Conv1d(64, 64, 3, padding=2, dilation=2),
        nn.ReLU(), nn.Conv1d(64, 64, 3, padding=4, dilation=4), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(64, 1)).to(b.dev)


x = torch.randn(batch, feat, seq, device=b.dev)
y = torch.randn(batch, 1, device=b.dev)
tokens = torch.randint(0, 1000, (b.pick(32, 16, 2), b.pick(256, 256, 8)), device=b.dev)


def train_step(model, opt):
    def step(i):
        opt.zero_grad(set_to_none=True)
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return step


def infer_step(model):
    def step(i):
        with torch.no_grad():
            model(tokens)
    return step


def compiled(model, **kw):
    """torch.compile(model), or None with the reason in params when it is missing or fails."""
    if not hasattr(torch, "compile"):
        b.param(compile_error="torch %s has no torch.compile" % torch.__version__)
        return None
    try:
        return torch.compile(model, **kw)
    except Exception as e:
        b.param(compile_error="%s: %s" % (type(e).__name__, e))
        return None


def graphs_compiled():
    """Graphs dynamo has compiled so far in this process (None where the counter is missing)."""
    try:
        from torch._dynamo.utils import counters
        return int(counters["stats"]["unique_graphs"])
    except Exception:
        return None


def measure(name, role, make_step, compiles=False):
    try:
        before = graphs_compiled()
        t0 = time.perf_counter()
        step = make_step()
        step(0)  # compiles here when compiled
        b.sync()
        first_ms = (time.perf_counter() - t0) * 1e3
        after = graphs_compiled()
        graphs = None if before is None or after is None else after - before
        if compiles and graphs == 0:  # dynamo ran the model eagerly: timing it would compare eager to eager
            raise RuntimeError("torch.compile compiled no graph")
        b.add(name, role, b.time_loop(step, steps, reps), first_call_ms=first_ms, graphs_compiled=graphs)
    except Exception as e:  # a compiler failure must not hide the other variants
        b.param(**{"error:" + name: "%s: %s" % (type(e).__name__, str(e)[:300])})


base = tcn()
state = {k: v.clone() for k, v in base.state_dict().items()}


def tcn_variant(compile_kw):
    def make():
        m = tcn()
        m.load_state_dict(state)
        opt = torch.optim.AdamW(m.parameters(), 1e-3)
        mm = m if compile_kw is None else compiled(m, **compile_kw)
        if mm is None:
            raise RuntimeError("torch.compile unavailable")
        return train_step(mm, opt)
    return make


lm = transformer(torch, d_model=b.pick(512, 512, 16), nhead=b.pick(8, 8, 2), layers=b.pick(4, 4, 1),
                 ff=b.pick(2048, 2048, 32)).to(b.dev).eval()


def lm_variant(compile_kw):
    def make():
        mm = lm if compile_kw is None else compiled(lm, **compile_kw)
        if mm is None:
            raise RuntimeError("torch.compile unavailable")
        return infer_step(mm)
    return make


def set_mha_fastpath(on):
    """nn.TransformerEncoder's inference fast path (one fused native op per layer in eval mode
    under no_grad) hides the model from torch.compile. On an H200 with torch 2.11 the compiled LM
    ran exactly as fast as eager with it on, so the LM is compared with it off, as the attention
    of most hand-written and library models is; the fast path is timed as a reference."""
    fn = getattr(getattr(torch.backends, "mha", None), "set_fastpath_enabled", None)
    if fn is None:
        return False
    fn(on)
    return True


b.param(steps=steps, tcn_batch=batch, lm_tokens=list(tokens.shape))
measure("tcn-train:eager", "anti", tcn_variant(None))
measure("tcn-train:compile-reduce-overhead", "fix", tcn_variant({"mode": "reduce-overhead"}), compiles=True)
measure("lm-infer:eager-mha-fastpath", "ref", lm_variant(None))
b.param(lm_mha_fastpath_off=set_mha_fastpath(False))
measure("lm-infer:eager", "ref", lm_variant(None))
measure("lm-infer:compile", "ref", lm_variant({}), compiles=True)
b.emit("tcn-train:eager", "tcn-train:compile-reduce-overhead")
