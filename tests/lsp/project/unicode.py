"""Non-ASCII identifiers and astral-plane characters in strings."""
import torch.nn as nn


class Größe(nn.Module):
    def forward(self, x):
        grüße = "𝔘𝔫𝔦"; wert = x.sum().item(); return wert
