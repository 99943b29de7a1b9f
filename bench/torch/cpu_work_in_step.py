#!/usr/bin/env python3
"""cpu_work_in_step.py - TL205: tokenising the batch, a special-token mask built in Python, and a NumPy round trip in every training step, against the same step with that work done in the loader or on the device."""
import random

from _tlbench import start

b = start("torch/cpu_work_in_step", "TL205", "cpu-work-in-step",
          "transformer training step (vocabulary 1000) with CPU work on the batch in the training "
          "thread: (1) tokenising the batch's texts with a fast (Rust) tokenizer vs token ids prepared "
          "by the loader's workers; (2) case study CS4's special-token mask from the ids' Python lists "
          "vs torch.isin on the device; (3) accuracy from np.argmax of the logits copied to the host vs "
          "argmax on the device; each on a GPU-bound step (batch 32, seq 256) and on a small one "
          "(batch 4, seq 64)", "ms/step")
torch = b.torch
from _tlbench import Trainer  # noqa: E402

try:
    import numpy as np
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import WhitespaceSplit
except ImportError as e:
    b.not_measurable("needs numpy and the tokenizers package: %s" % e)

VOCAB = 1000
SPECIAL = [0, 1, 2]  # [PAD] [CLS] [SEP]
words = {"[PAD]": 0, "[CLS]": 1, "[SEP]": 2}
for k in range(3, VOCAB):
    words["w%d" % k] = k
tok = Tokenizer(WordLevel(vocab=words, unk_token="[PAD]"))
tok.pre_tokenizer = WhitespaceSplit()


def trainer(batch, seq):
    return Trainer(b, batch=batch, seq=seq, vocab=VOCAB, d_model=b.pick(512, 512, 16), nhead=b.pick(8, 8, 2),
                   layers=b.pick(4, 4, 1), ff=b.pick(2048, 2048, 32))


sizes = {"": trainer(b.pick(32, 16, 2), b.pick(256, 128, 8)), "small:": trainer(b.pick(4, 4, 1), b.pick(64, 64, 4))}
rng = random.Random(0)
special_ids = torch.tensor(SPECIAL, device=b.dev)


def texts_for(tr):
    n, seq = tr.x.shape
    return [" ".join(["[CLS]"] + ["w%d" % rng.randrange(3, VOCAB) for _ in range(seq - 2)] + ["[SEP]"])
            for _ in range(n)]


def train_on(tr, ids, weight=None):
    tr.opt.zero_grad(set_to_none=True)
    logits = tr.model(ids)
    per = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tr.y.reshape(-1), reduction="none")
    loss = per.mean() if weight is None else (per * weight.reshape(-1)).sum() / weight.sum().clamp(min=1)
    loss.backward()
    tr.opt.step()
    return logits


def variants_for(prefix, tr):
    texts = texts_for(tr)
    ready = torch.tensor([e.ids for e in tok.encode_batch(texts)])  # what the workers would hand over
    if b.dev.type == "cuda":
        ready = ready.pin_memory()

    def tokenize_in_step(i):
        ids = torch.tensor([e.ids for e in tok.encode_batch(texts)])
        train_on(tr, ids.to(b.dev, non_blocking=True))

    def tokenized_by_loader(i):
        train_on(tr, ready.to(b.dev, non_blocking=True))

    ids_dev = ready.to(b.dev)

    def mask_in_python(i):
        rows = ids_dev.tolist()
        mask = [[0 if t in SPECIAL else 1 for t in row] for row in rows]
        train_on(tr, ids_dev, torch.tensor(mask, dtype=torch.float32).to(b.dev, non_blocking=True))

    def mask_on_device(i):
        train_on(tr, ids_dev, (~torch.isin(ids_dev, special_ids)).float())

    correct = []

    def numpy_accuracy(i):
        logits = train_on(tr, ids_dev)
        pred = np.argmax(logits.detach().cpu().numpy(), -1)
        correct.append(float((pred == tr.y.cpu().numpy()).mean()))
        del correct[:-100]

    acc = torch.zeros((), device=b.dev)

    def device_accuracy(i):
        logits = train_on(tr, ids_dev)
        acc.add_((logits.detach().argmax(-1) == tr.y).float().mean())

    top = not prefix
    return [(prefix + "tokenize-in-step", "anti" if top else "ref", tokenize_in_step),
            (prefix + "tokenized-by-loader", "fix" if top else "ref", tokenized_by_loader),
            (prefix + "special-mask-python", "ref", mask_in_python),
            (prefix + "special-mask-isin", "ref", mask_on_device),
            (prefix + "numpy-accuracy", "ref", numpy_accuracy),
            (prefix + "device-accuracy", "ref", device_accuracy)]


steps, reps = b.pick(50, 20, 3), b.pick(5, 3, 1)
big, small = sizes[""], sizes["small:"]
b.param(batch=big.x.shape[0], seq=big.x.shape[1], small_batch=small.x.shape[0], small_seq=small.x.shape[1],
        steps=steps, vocab=VOCAB)
variants = []
for prefix, tr in sizes.items():
    variants += variants_for(prefix, tr)
b.time_variants(variants, steps, reps)
b.emit("tokenize-in-step", "tokenized-by-loader")
