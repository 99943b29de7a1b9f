"""Train an activity classifier on sensor recordings.

    python train.py --data-dir recordings/ --epochs 20
"""
import argparse
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import PrenormalizedSensorDataset, SensorDataset, fit_scaler, load_recordings, pad_collate
from model import MaskedMeanClassifier, RecurrentClassifier


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", default="recordings")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--num-workers", type=int, default=8)
    parser.add_argument("--fast", action="store_true", help="pre-normalised data, vectorised model")
    return parser.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros((), dtype=torch.long, device=device)
    total = 0
    for features, lengths, labels in loader:
        features, lengths, labels = features.to(device), lengths.to(device), labels.to(device)
        correct += (model(features, lengths).argmax(-1) == labels).sum()
        total += labels.numel()
    model.train()
    return correct.item() / max(total, 1)


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    recordings, labels = load_recordings(args.data_dir)
    n_val = len(recordings) // 10
    scaler = fit_scaler(recordings[n_val:])
    dataset_cls = PrenormalizedSensorDataset if args.fast else SensorDataset
    train_set = dataset_cls(recordings[n_val:], labels[n_val:], scaler)
    val_set = dataset_cls(recordings[:n_val], labels[:n_val], scaler)

    train_loader = DataLoader(
        train_set,
        batch_size=args.batch_size,
        shuffle=True,
        collate_fn=pad_collate,
        num_workers=0,
        pin_memory=True,
    )
    val_loader = DataLoader(val_set, batch_size=256, collate_fn=pad_collate, num_workers=0)

    model_cls = MaskedMeanClassifier if args.fast else RecurrentClassifier
    model = model_cls(n_channels=recordings[0].shape[1], n_classes=max(labels) + 1).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.epochs):
        running_loss, n_frames, start = 0.0, 0, time.time()
        for features, lengths, labels in train_loader:
            n_frames += lengths.sum().item()  # still on the host: no device sync
            features = features.to(device, non_blocking=True)
            lengths = lengths.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)

            logits = model(features, lengths)
            loss = criterion(logits, labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

            running_loss += loss.item()  # waits for the GPU on every step
            if step % 100 == 0:
                acc = (logits.argmax(-1) == labels).float().mean().item()
                print(f"step {step:6d}  loss {loss.item():.4f}  batch acc {acc:.3f}")
            step += 1
        elapsed = time.time() - start
        val_acc = evaluate(model, val_loader, device)
        print(f"epoch {epoch}: mean loss {running_loss / max(1, len(train_loader)):.4f}  "
              f"val acc {val_acc:.3f}  {n_frames / elapsed:.0f} frames/s")


if __name__ == "__main__":
    main()
