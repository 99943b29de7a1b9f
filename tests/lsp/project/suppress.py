"""Suppression comments: merged into an existing `# noqa: ...` or `# trainlint: ignore[...]`."""
import torch.nn as nn


class Head(nn.Module):
    def forward(self, x):
        a = x.sum().item()  # noqa: TL999
        b = x.max().item()  # the maximum
        c = "# not a comment"; d = x.min().item()
        e = x.mean().item()  # trainlint: ignore[TL999]
        f = x.std().item()  # noqa
        return a + b + c + d + e + f
