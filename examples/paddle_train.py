"""PaddlePaddle seq2seq trainer for expression simplification (time-major batches).

    python paddle_train.py --data-path exprs.txt --num-workers 8
"""
import argparse

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


class ExpressionPairs(paddle.io.Dataset):
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.pairs = [[np.array(side.split(), dtype=np.int64) for side in line.split("\t")] for line in f]

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        return self.pairs[idx]


def collate_pairs(samples, pad_index=0):
    def pad(seqs):
        out = np.full((max(len(s) for s in seqs), len(seqs)), pad_index, dtype=np.int64)
        for j, s in enumerate(seqs):
            out[: len(s), j] = s
        return paddle.to_tensor(out), paddle.to_tensor([len(s) for s in seqs], dtype="int64")

    src, src_len = pad([s for s, _ in samples])
    tgt, tgt_len = pad([t for _, t in samples])
    return src, src_len, tgt, tgt_len


class Seq2Seq(nn.Layer):
    def __init__(self, vocab_size, dim=256, pad_index=0):
        super().__init__()
        self.pad_index = pad_index
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=pad_index)
        self.transformer = nn.Transformer(dim, nhead=8, num_encoder_layers=3, num_decoder_layers=3)
        self.proj = nn.Linear(dim, vocab_size)

    def forward(self, src, src_len, tgt, tgt_len):
        slen, bs = src.shape
        assert src_len._max().item() <= slen
        src_mask = paddle.arange(src_len._max(), dtype="int64").unsqueeze(0) < src_len.unsqueeze(1)
        # decoder input: <pad>-filled buffer, target shifted right by one position
        decoded = paddle.full([int(tgt_len._max().item()), bs], self.pad_index, dtype=src_len.dtype)
        decoded[1:] = tgt[: decoded.shape[0] - 1]
        memory_bias = (1.0 - src_mask.astype("float32")).unsqueeze(1).unsqueeze(1) * -1e9
        out = self.transformer(
            self.embed(src[: src_mask.shape[1]].transpose([1, 0])),
            self.embed(decoded.transpose([1, 0])),
            src_mask=memory_bias,
            memory_mask=memory_bias,
        )
        logits = self.proj(out)
        target = tgt[: decoded.shape[0]].transpose([1, 0])
        return F.cross_entropy(logits, target.unsqueeze(-1), ignore_index=self.pad_index)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-path", dest="data_path", default=None)
    parser.add_argument("--num-workers", dest="num_workers", type=int, default=8)
    parser.add_argument("--batch-size", dest="batch_size", type=int, default=32)
    parser.add_argument("--vocab-size", dest="vocab_size", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=10)
    params = parser.parse_args()

    dataset = ExpressionPairs(params.data_path or "exprs.txt")
    train_loader = paddle.io.DataLoader(
        dataset,
        batch_size=params.batch_size,
        shuffle=True,
        collate_fn=collate_pairs,
        num_workers=params.num_workers if params.data_path is None or params.num_workers == 0 else 1,
    )
    model = Seq2Seq(params.vocab_size)
    optimizer = paddle.optimizer.Adam(learning_rate=3e-4, parameters=model.parameters())

    n_iter, window = 0, []
    for epoch in range(params.epochs):
        for src, src_len, tgt, tgt_len in train_loader:
            loss = model(src, src_len, tgt, tgt_len)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            window.append(loss.detach())
            if n_iter % 10 == 0:
                print(f"iter {n_iter}: loss {paddle.stack(window).mean().item():.4f}")
                window = []
            n_iter += 1


if __name__ == "__main__":
    main()
