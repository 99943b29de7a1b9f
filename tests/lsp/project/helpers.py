"""Helpers: log_stats is per-step only because train.py calls it in the step loop."""


def log_stats(loss):
    print("loss", loss.item())
