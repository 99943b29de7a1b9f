#!/usr/bin/env python3
"""apply_prompt.py - TL301: case study CS4's _apply_prompt double Python loop vs index_copy_, in a BERT-like training step."""
from _tlbench import start, transformer

b = start("torch/apply_prompt", "TL301", "python-index-loop-over-tensor",
          "BERT-like training step (batch 128, seq 128, hidden 768) whose embeddings get 6 prompt "
          "vectors per sample: 128x6 indexed assignments in a Python double loop vs one index_copy_",
          "ms/step")
torch = b.torch
B, S, H = b.pick(128, 64, 2), b.pick(128, 128, 16), b.pick(768, 768, 32)
P = 3  # prompt_length: 2 * P = 6 prompt rows per sample, as in case study CS4
vocab = b.pick(21128, 21128, 50)
layers = b.pick(4, 2, 1)
model = transformer(torch, d_model=H, nhead=b.pick(12, 12, 2), layers=layers, ff=4 * H,
                    vocab=vocab).to(b.dev)
prompt = torch.nn.Sequential(torch.nn.Linear(H, H), torch.nn.ReLU(), torch.nn.Linear(H, H)).to(b.dev)
prompt_params = torch.nn.Parameter(torch.randn(2 * P, H, device=b.dev))
opt = torch.optim.AdamW(list(model.parameters()) + list(prompt.parameters()) + [prompt_params], 1e-4)
tokens = torch.randint(0, vocab, (B, S), device=b.dev)
labels = torch.randint(0, vocab, (B, S), device=b.dev)
positions = torch.tensor([1, 2, 3, 5, 6, 7], device=b.dev)
prompt_mask = torch.zeros(B, S, dtype=torch.long, device=b.dev)
prompt_mask[:, positions] = 1
blocked_indices = positions.unsqueeze(0).expand(B, -1).contiguous()  # [B, 2P] on the GPU
loss_fn = torch.nn.CrossEntropyLoss()


def apply_loop(inputs_embeds, replace_embeds):
    for i in range(B):
        for j in range(2 * P):
            inputs_embeds[i, blocked_indices[i, j], :] = replace_embeds[j, :]
    return inputs_embeds


def apply_cs4_fix(inputs_embeds, replace_embeds):
    prompt_positions = (prompt_mask[0] == 1).nonzero(as_tuple=True)[0]
    replace_embeds_expanded = replace_embeds.unsqueeze(0).expand(B, -1, -1)
    return inputs_embeds.index_copy_(1, prompt_positions, replace_embeds_expanded)


def apply_precomputed(inputs_embeds, replace_embeds):
    return inputs_embeds.index_copy_(1, positions, replace_embeds.unsqueeze(0).expand(B, -1, -1))


def step_with(apply):
    def step(i):
        opt.zero_grad(set_to_none=True)
        emb = apply(model.emb(tokens), prompt(prompt_params))
        logits = model.head(model.enc(emb))
        loss = loss_fn(logits.reshape(-1, vocab), labels.reshape(-1))
        loss.backward()
        opt.step()
    return step


def op_only(apply):
    base = torch.randn(B, S, H, device=b.dev)
    rep = torch.randn(2 * P, H, device=b.dev)
    return lambda i: apply(base, rep)


with torch.no_grad():  # all three must write the same rows
    e, r = torch.randn(B, S, H, device=b.dev), torch.randn(2 * P, H, device=b.dev)
    ref = apply_loop(e.clone(), r)
    if not (torch.equal(ref, apply_cs4_fix(e.clone(), r)) and torch.equal(ref, apply_precomputed(e.clone(), r))):
        raise SystemExit("apply_prompt variants disagree")

steps, reps = b.pick(5, 3, 1), b.pick(5, 3, 1)
b.param(batch=B, seq=S, hidden=H, vocab=vocab, encoder_layers=layers, prompt_rows=2 * P, steps=steps)
for name, role, apply in [("double-loop", "anti", apply_loop),
                          ("index_copy_(CS4 fix, with nonzero)", "fix", apply_cs4_fix),
                          ("index_copy_(positions precomputed)", "ref", apply_precomputed)]:
    fn = step_with(apply)
    samples = b.time_loop(fn, steps, reps, warmup=2)
    syncs = b.count_syncs(lambda: fn(0))
    b.add("step:" + name, role, samples, syncs_per_step=syncs)
for name, apply in [("double-loop", apply_loop), ("index_copy_(positions precomputed)", apply_precomputed)]:
    with torch.no_grad():
        b.add("op-only:" + name, "ref", b.time_loop(op_only(apply), b.pick(20, 10, 2), reps))
b.emit("step:double-loop", "step:index_copy_(CS4 fix, with nonzero)")
