"""Recurrent classifiers over padded (batch, frames, channels) sensor sequences."""
import torch
import torch.nn as nn


class RecurrentClassifier(nn.Module):
    """GRU encoder with masked mean pooling, written one row at a time (slow)."""

    def __init__(self, n_channels, n_classes, hidden=128):
        super().__init__()
        self.gru = nn.GRU(n_channels, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, n_classes)

    def forward(self, features, lengths):
        batch_size = features.size(0)
        # trim the padding to the longest sequence of the batch
        mask = torch.arange(lengths.max(), device=features.device)[None, :] < lengths[:, None]
        hidden, _ = self.gru(features[:, : mask.size(1)])
        pooled = hidden.new_zeros(batch_size, hidden.size(-1))
        for i in range(batch_size):
            pooled[i] = hidden[i][mask[i]].mean(dim=0)
        return self.head(pooled)


class MaskedMeanClassifier(nn.Module):
    """Same model, vectorised: static sizes, one masked reduction for the whole batch."""

    def __init__(self, n_channels, n_classes, hidden=128):
        super().__init__()
        self.gru = nn.GRU(n_channels, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, n_classes)

    def forward(self, features, lengths):
        seq_len = features.size(1)
        mask = torch.arange(seq_len, device=features.device)[None, :] < lengths[:, None]
        hidden, _ = self.gru(features)
        summed = (hidden * mask.unsqueeze(-1)).sum(dim=1)
        pooled = summed / lengths.clamp(min=1).unsqueeze(-1).to(summed.dtype)
        return self.head(pooled)
